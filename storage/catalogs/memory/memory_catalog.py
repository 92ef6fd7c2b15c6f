"""An in-memory :class:`~storage.catalogs.interface.Catalog` for unit tests of the log itself (never the only proof of a
Spark behaviour). It keeps rows so tests can check that data survives, and can be told to fail an operation.

Every in-memory crash sweep trusts it, so it behaves as the Spark catalog does wherever no engine is needed: the
contract suite (tests/contract) runs the same tests on both. Views and tables share one namespace; objects need their
database; names and definitions Spark refuses are refused with the same error types (:mod:`storage.catalogs.rules`);
files left at a table's location block a create or a rename onto it (:class:`LeftoverFilesError`) unless the name is
one of the log's own. It cannot analyse SQL: a SELECT or a view's query is taken as it is."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from storage.catalogs.interface import (
    KEEP_POINT,
    TAG_PROPERTY,
    Column,
    DatabaseObjects,
    Fill,
    FunctionDefinition,
    TableMetadata,
    TableSpec,
    ViewDefinition,
    new_database_tag,
)
from storage.catalogs.memory.memory_copying import MemoryCopying
from storage.catalogs.memory.memory_files import MemoryFiles
from storage.catalogs.memory.memory_kinds import MemoryKinds
from storage.catalogs.memory.memory_objects import MemoryObjects
from storage.catalogs.memory.memory_swap import SwapState, database_location, location_of
from storage.catalogs.memory.memory_table import MemoryTable, partition_of, register_partition, with_static
from storage.catalogs.memory.memory_versions import MemoryVersions
from storage.catalogs.names import DEFAULT_DATABASE, TableName
from storage.catalogs.rules import (
    DATABASE_TAG,
    check_database_name,
    check_name,
    check_spec,
)
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)

_ids = itertools.count(1)


class MemoryCatalog(MemoryObjects, MemoryFiles, MemoryKinds, MemoryVersions, MemoryCopying):  # MemorySwap: Kinds'
    def __init__(self, *, swap: bool = True, orphan_window: float | None = None) -> None:
        """``swap=False``: the catalog refuses definition swaps, so replaces take the rename path.
        ``orphan_window``: see :class:`~storage.catalogs.memory.memory_swap.MemorySwap`."""
        self.swap = SwapState(enabled=swap, orphan_window=orphan_window)
        self.tables: dict[TableName, MemoryTable] = {}
        self.views: dict[TableName, ViewDefinition] = {}
        self.functions: dict[TableName, FunctionDefinition] = {}
        self.databases: set[str] = {"default"}
        self.view_ids: dict[TableName, str] = {}
        """Each view's identity: new on create, kept by replace and rename (as the metastore's create time)."""
        self.database_tags: dict[str, str] = {}
        self.database_dirs: set[str] = {"default"}
        """Databases' default locations; one without its database is a leftover."""
        self.leftovers: set[TableName] = set()
        """Names whose 'managed location' holds files without a table (what a torn Spark operation leaves)."""
        self.fail_on: Callable[[str, TableName], bool] = lambda operation, name: False
        self.calls: list[tuple[str, TableName]] = []
        self.overwrite_mode = "static"
        """What ``partition_overwrite_mode`` answers (the in-memory engine has no session conf)."""

    def _check(self, operation: str, name: TableName) -> None:
        self.calls.append((operation, name))
        if self.fail_on(operation, name):
            raise CatalogError(f"injected failure: {operation} {name}", str(name))

    def add_user_table(self, name: TableName, columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
        """A table created outside the log (no tag): its identity is a fingerprint."""
        self.tables[name] = MemoryTable(f"fp:{next(_ids)}", columns, list(rows))

    def _missing_table(self, name: TableName) -> CatalogError:
        """What Spark raises where a table is expected: a view of that name is the wrong kind, else it is missing."""
        if name in self.views:
            return WrongObjectKindError.view_not_table(name)
        return NoSuchObjectError(f"table {name} does not exist", str(name))

    def exists(self, name: TableName) -> bool:
        return name in self.tables

    def identity(self, name: TableName) -> str | None:
        table = self.tables.get(name)
        return None if table is None else table.identity

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """As Spark: the name must be free of tables and views, its database must exist, files at its location
        block it unless it is one of the log's names; partition columns go last (as Hive stores them)."""
        self._check("create", name)
        check_name(name)
        if spec.copy:
            spec = spec.copied(self.table_metadata(spec.like) if spec.like is not None else None)
        self.check_create(spec, name)
        if name in self.tables or name in self.views:
            raise ObjectExistsError(f"{name} already exists", str(name))
        self._require_database(name.db)
        self._clear_location(name, "create")
        rows: list[tuple[object, ...]] = []
        columns: tuple[str, ...] = ()
        types: dict[str, str] = {}
        partitioned_by = tuple(column.lower() for column in spec.partitioned_by)
        if spec.columns is not None:
            columns = tuple(column.name for column in spec.columns)
            types = {column.name: column.type.lower() for column in spec.columns}
        elif spec.like is not None:
            source = self._table(spec.like)
            columns, types, partitioned_by = source.columns, dict(source.types), source.partitioned_by
            if spec.alter is not None:  # an ALTER TABLE rebuild's copy: one column retyped, some dropped
                dropped = {column.lower() for column in spec.alter.drop}
                columns = tuple(column for column in columns if column.lower() not in dropped)
                if spec.alter.retype is not None:
                    retyped, new_type = spec.alter.retype
                    types[next(c for c in columns if c.lower() == retyped.lower())] = new_type.lower()
        elif isinstance(spec.df, MemoryTable):
            columns, rows, types = spec.df.columns, list(spec.df.rows), dict(spec.df.types)
        if partitioned_by and spec.like is None:
            order = [c for c in columns if c not in partitioned_by] + [c for c in columns if c in partitioned_by]
            rows = [tuple(row[columns.index(c)] for c in order) for row in rows]
            columns = tuple(order)
        self.tables[name] = MemoryTable(tag, columns, rows, types=types, properties=dict(spec.properties),
                                        partitioned_by=partitioned_by)

    def _require_database(self, db: str) -> None:
        if db not in self.databases:
            raise NoSuchObjectError(f"database {db} does not exist", db)

    def _clear_location(self, name: TableName, operation: str) -> None:
        """Spark refuses to put a table where files are left, except that the log's own names clean them first."""
        if name in self.leftovers:
            if not name.is_reserved:
                raise LeftoverFilesError(
                    f"cannot {operation} {name}: its location already exists but no table of that name does",
                    str(name),
                    f"memory:{name.db}.db/{name.name}",
                )
            self.leftovers.discard(name)

    def partition_overwrite_mode(self) -> str:
        return self.overwrite_mode

    def insert(self, name: TableName, fill: Fill) -> None:
        """Rows of a :class:`MemoryTable` given as ``fill.df`` (static partition values put in at their columns);
        a partitioned table registers the partitions rows go to, and a full static spec its partition, as Spark."""
        self._check("insert", name)
        if fill.files_from is not None:
            raise InvalidDefinitionError("the in-memory catalog has no files to copy", str(name))
        if name not in self.tables:
            raise self._missing_table(name)
        table = self.tables[name]
        static = fill.static
        new_rows = list(fill.df.rows) if isinstance(fill.df, MemoryTable) else []
        if static:
            new_rows = [with_static(table.columns, static, iter(row)) for row in new_rows]
        table.rows.extend(new_rows)
        written = {partition_of(table, row) for row in new_rows}
        if table.partitioned_by and len(static) == len(table.partitioned_by):
            written.add(tuple(static[c] for c in table.partitioned_by))
        for values in sorted(written - {()}):
            register_partition(table, dict(zip(table.partitioned_by, values, strict=True)))
        if fill.keep is not None:
            KEEP_POINT()
            self._keep(table, self._table(fill.keep), fill, written)
        if fill.partitions_of is not None:
            for partition in self._table(fill.partitions_of).partitions:
                register_partition(table, partition)
        for listed in fill.copy_partitions:
            register_partition(table, dict(listed))

    def _keep(self, table: MemoryTable, source: MemoryTable, fill: Fill, written: set[tuple[str, ...]]) -> None:
        static = fill.static

        def replaced(values: tuple[str, ...]) -> bool:
            if fill.replaces == "written":
                return values in written
            spec = dict(zip(source.partitioned_by, values, strict=True))
            return all(spec[column] == value for column, value in static.items())

        table.rows.extend(row for row in source.rows if not replaced(partition_of(source, row)))
        for partition in source.partitions:
            if not replaced(tuple(partition[c] for c in source.partitioned_by)):
                register_partition(table, partition)

    def rename(self, old: TableName, new: TableName) -> None:
        self._check("rename", old)
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: Spark renames tables only within a database", str(new))
        if old not in self.tables:
            raise self._missing_table(old)
        check_name(new)
        if new in self.tables or new in self.views:
            raise ObjectExistsError(f"cannot rename {old} to {new}: {new} already exists", str(new))
        self._clear_location(new, f"rename {old} to")
        self.tables[new] = self.tables.pop(old)

    def drop(self, name: TableName, *, expect: str | None = None, before: Callable[[], None] | None = None,
             keep_files: bool = False) -> bool:
        table = self.tables.get(name)
        if table is None:
            raise self._missing_table(name)
        if expect is not None and table.identity != expect:
            return False
        if before is not None:
            before()
        self._check("drop", name)
        del self.tables[name]
        if keep_files and not table.external:
            self.keep_files_of(name, table)
        return True

    def table_location(self, name: TableName) -> str | None:
        table = self.tables.get(name)
        return None if table is None or table.external else location_of(name, table)

    def database_location(self, db: str) -> str | None:
        return database_location(db) if db in self.databases else None

    def list_tables(self, db: str) -> list[TableName]:
        self._require_database(db)
        return sorted(name for name in self.tables if name.db == db)

    def clean_leftovers(self, name: TableName) -> bool:
        if name in self.tables or name in self.views or name not in self.leftovers:
            return False
        self.leftovers.discard(name)
        return True

    def check_current_catalog(self) -> None:
        return None

    def check_create(self, spec: TableSpec, name: TableName | None = None) -> None:
        columns: tuple[str, ...] | None = None
        if spec.columns is not None:
            columns = tuple(column.name for column in spec.columns)
        elif isinstance(spec.df, MemoryTable):
            columns = spec.df.columns
        check_spec(spec, columns, name)
        if spec.like is not None and spec.like not in self.tables:
            raise NoSuchObjectError(f"table {spec.like} does not exist", str(spec.like))

    def check_alter(self, name: TableName, clause: str) -> None:
        return None  # the in-memory catalog reads no SQL: its statements check their own operands

    def settle_rename(self, old: TableName, new: TableName) -> None:
        return None

    # -- views, functions, databases

    def _table(self, name: TableName) -> MemoryTable:
        table = self.tables.get(name)
        if table is None:
            raise self._missing_table(name)
        return table

    def recorded_definition(self, name: TableName) -> tuple[str, TableMetadata] | None:
        location, metadata = self.table_location(name), self.table_metadata(name)
        return None if location is None or metadata is None else (location, metadata)

    def table_metadata(self, name: TableName) -> TableMetadata | None:
        table = self.tables.get(name)
        if table is None:
            return None
        columns = tuple(Column(c, table.types.get(c, "INT"), table.comments.get(c)) for c in table.columns)
        properties = {**table.properties, TAG_PROPERTY: table.identity}
        return TableMetadata(columns, table.partitioned_by, tuple(sorted(properties.items())), external=table.external)

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None:
        self._check("set_properties", name)
        self._table(name).properties.update(properties)

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        self._check("unset_properties", name)
        for key in keys:
            self._table(name).properties.pop(key, None)

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        self._check("set_column_comment", name)
        table = self._table(name)
        if column not in table.columns:
            raise NoSuchObjectError(f"column {column!r} does not exist in {name}", column)
        if column in table.partitioned_by:
            raise InvalidDefinitionError(f"cannot set a comment on {name}: {column} is a partition column", str(name))
        if comment:
            self._table(name).comments[column] = comment
        else:
            self._table(name).comments.pop(column, None)

    def add_columns(self, name: TableName, columns: tuple[Column, ...], *, text: str | None = None) -> None:
        self._check("add_columns", name)
        table = self._table(name)
        existing = {column.lower(): column for column in table.columns}
        for column in columns:
            if column.name.lower() in existing:
                taken = existing[column.name.lower()]
                raise ObjectExistsError(f"column {taken!r} already exists in {name}", taken)
        at = len(table.columns) - len(table.partitioned_by)  # new columns go before the partition columns (Hive)
        added = tuple(c.name for c in columns)
        table.columns = (*table.columns[:at], *added, *table.columns[at:])
        table.types.update({c.name: c.type.lower() for c in columns})
        table.rows = [(*row[:at], *(None for _ in columns), *row[at:]) for row in table.rows]

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        wanted = spec or {}
        return [dict(p) for p in self._table(name).partitions
                if all(p.get(column) == value for column, value in wanted.items())]

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        self._check("add_partition", name)
        self._check_partition_spec(name, spec, whole=True)
        if spec not in self._table(name).partitions:
            self._table(name).partitions.append(dict(spec))

    def _check_partition_spec(self, name: TableName, spec: dict[str, str], *, whole: bool) -> None:
        table = self._table(name)
        if not table.partitioned_by:
            raise InvalidDefinitionError(f"cannot change partitions of {name}: the table is not partitioned", str(name))
        keys = set(spec)
        if not keys or not keys <= set(table.partitioned_by) or (whole and keys != set(table.partitioned_by)):
            raise InvalidDefinitionError(f"partition spec {spec} does not match the partitioning of {name}", str(name))

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        self._check("drop_partition", name)
        if spec in self._table(name).partitions:
            self._table(name).partitions.remove(spec)

    def database_exists(self, db: str) -> bool:
        return db in self.databases

    def database_identity(self, db: str) -> str | None:
        return self.database_tags.get(db) if db in self.databases else None

    def tag_database(self, db: str) -> str:
        self._check("tag_database", TableName(db, "*"))
        if db not in self.databases:
            raise NoSuchObjectError(f"database {db} does not exist", db)
        return self.database_tags.setdefault(db, new_database_tag())

    def list_objects(self, db: str) -> DatabaseObjects:
        self._require_database(db)
        return DatabaseObjects(
            tables=tuple(sorted(n for n in self.tables if n.db == db)),
            views=tuple(sorted(n for n in self.views if n.db == db)),
            functions=tuple(sorted(n for n in self.functions if n.db == db)),
        )

    def create_database(self, db: str, *, comment: str | None = None,
                        properties: tuple[tuple[str, str], ...] = ()) -> None:
        self._check("create_database", TableName(db, "*"))
        check_database_name(db)
        if db in self.databases:
            raise ObjectExistsError(f"database {db} already exists", db)
        self.databases.add(db)
        self.database_dirs.add(db)
        tag = dict(properties).get(TAG_PROPERTY)
        if tag is not None and DATABASE_TAG.fullmatch(tag):  # Spark's catalog reads back only a tag's shape
            self.database_tags[db] = tag

    def drop_database(self, db: str, *, keep_files: bool = False) -> None:
        self._check("drop_database", TableName(db, "*"))
        self._require_database(db)
        if db == DEFAULT_DATABASE:
            raise CatalogError(f"the database {db} cannot be dropped", db)
        if not self.list_objects(db).empty:
            raise CatalogError(f"database {db} is not empty", db)
        self.databases.discard(db)
        if keep_files:
            self.swap.orphans.add(database_location(db))
        else:
            self.database_dirs.discard(db)
        self.database_tags.pop(db, None)

    def live_databases(self) -> set[str]:
        return set(self.databases)

    def forget_database_directory(self, location: str) -> None:
        """A kept directory of a dropped database was deleted."""
        self.database_dirs = {db for db in self.database_dirs
                              if db in self.databases or database_location(db) != location}

    def database_leftovers_exist(self, db: str) -> bool:
        return db not in self.databases and db in self.database_dirs

    def clean_database_leftovers(self, db: str) -> bool:
        if not self.database_leftovers_exist(db):
            return False
        self.database_dirs.discard(db)
        return True
