"""An in-memory :class:`~storage.catalogs.interface.Catalog` for unit tests of the log itself (never the only proof of a
Spark behaviour). It keeps rows so tests can check that data survives, and can be told to fail an operation.

Every in-memory crash sweep trusts it, so it behaves as the Spark catalog does wherever no engine is needed: the
contract suite (tests/contract) runs the same tests on both. Views and tables share one namespace; objects need their
database; names and definitions Spark refuses are refused with the same error types (:mod:`storage.catalogs.rules`);
files left at a table's location block a create or a rename onto it (:class:`LeftoverFilesError`) unless the name is
one of the log's own. It cannot analyse SQL: a SELECT or a view's query is taken as it is.

One class for the whole catalog protocol, as the protocol is one; its files (INSERT's work files, a kept version's
directory) are :mod:`storage.catalogs.memory.memory_files`, its records :mod:`storage.catalogs.memory.memory_table`."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable

import attrs

from storage.catalogs.copying import INTERNAL_PROPERTY_PREFIXES, DatabaseDefinition
from storage.catalogs.interface import (
    KEEP_POINT,
    TAG_PROPERTY,
    Column,
    DatabaseObjects,
    Fill,
    FunctionDefinition,
    SwapPlan,
    TableMetadata,
    TableSpec,
    TableVersion,
    ViewDefinition,
    new_database_tag,
)
from storage.catalogs.memory.memory_files import MemoryFileMover, MemoryVersionMover
from storage.catalogs.memory.memory_table import (
    MemoryTable,
    SwapState,
    database_location,
    default_location,
    location_of,
    partition_of,
    register_partition,
    with_static,
)
from storage.catalogs.names import DEFAULT_DATABASE, TableName
from storage.catalogs.ports import Catalog
from storage.catalogs.rules import (
    DATABASE_TAG,
    check_database_name,
    check_function,
    check_name,
    check_spec,
    check_view,
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
_view_ids = itertools.count(1)


def tagged(view: ViewDefinition, tag: str | None) -> ViewDefinition:
    """``view`` with its tag property set to ``tag`` (None: removed)."""
    properties = {**view.property_map, TAG_PROPERTY: tag} if tag is not None else {
        k: v for k, v in view.property_map.items() if k != TAG_PROPERTY}
    return attrs.evolve(view, properties=tuple(sorted(properties.items())))


class MemoryCatalog:
    def __init__(self, *, swap: bool = True, orphan_window: float | None = None) -> None:
        """``swap=False``: the catalog refuses definition swaps, so replaces take the rename path.
        ``orphan_window``: see :class:`~storage.catalogs.memory.memory_table.SwapState`."""
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
        """The failure hook every operation calls first: records the call, raises what ``fail_on`` injects."""
        self.calls.append((operation, name))
        if self.fail_on(operation, name):
            raise CatalogError(f"injected failure: {operation} {name}", str(name))

    # ------------------------------------------------------------------ tables

    def add_user_table(self, name: TableName, columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
        """A table created outside the log (no tag): its identity is a fingerprint."""
        self.tables[name] = MemoryTable(f"fp:{next(_ids)}", columns, list(rows))

    def _missing_table(self, name: TableName) -> CatalogError:
        """What Spark raises where a table is expected: a view of that name is the wrong kind, else it is missing."""
        if name in self.views:
            return WrongObjectKindError.view_not_table(name)
        return NoSuchObjectError.relation(f"table {name} does not exist", str(name))

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
            raise ObjectExistsError.relation(f"{name} already exists", str(name))
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
            raise NoSuchObjectError.database(f"database {db} does not exist", db)

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
        location = default_location(name)
        reader = next((other for other, table in self.tables.items()
                       if not table.external and location_of(other, table) == location), None)
        if reader is not None:  # after a schema swap another name's managed table reads it: LOCATION_ALREADY_EXISTS
            raise LeftoverFilesError(f"cannot {operation} {name}: its location {location} already exists; table "
                                     f"{reader} reads it", str(name), location)

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
            raise ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
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
            raise NoSuchObjectError.relation(f"table {spec.like} does not exist", str(spec.like))

    def check_alter(self, name: TableName, clause: str) -> None:
        return None  # the in-memory catalog reads no SQL: its statements check their own operands

    def settle_rename(self, old: TableName, new: TableName) -> None:
        return None

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
            raise NoSuchObjectError.column(f"column {column!r} does not exist in {name}", column)
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
                raise ObjectExistsError.column(f"column {taken!r} already exists in {name}", taken)
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

    # ---------------------------------------- views and functions (views share the tables' namespace, as Spark's)

    def _missing_view(self, name: TableName) -> CatalogError:
        """What Spark raises where a view is expected: a table of that name is the wrong kind, else it is missing."""
        if name in self.tables:
            return WrongObjectKindError.table_not_view(name)
        return NoSuchObjectError.relation(f"view {name} does not exist", str(name))

    def set_view_properties(self, name: TableName, properties: dict[str, str]) -> None:
        self._check("set_view_properties", name)
        if name not in self.views:
            raise self._missing_view(name)
        merged = {**self.views[name].property_map, **properties}
        self.views[name] = attrs.evolve(self.views[name], properties=tuple(sorted(merged.items())))

    def set_view_schema_mode(self, name: TableName, mode: str) -> None:
        self._check("set_view_schema_mode", name)
        if name not in self.views:
            raise self._missing_view(name)
        self.views[name] = attrs.evolve(self.views[name], schema_mode=mode)

    def unset_view_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        self._check("unset_view_properties", name)
        if name not in self.views:
            raise self._missing_view(name)
        kept = {k: v for k, v in self.views[name].property_map.items() if k not in keys}
        self.views[name] = attrs.evolve(self.views[name], properties=tuple(sorted(kept.items())))

    def view_definition(self, name: TableName) -> ViewDefinition | None:
        return self.views.get(name)

    def stored_view(self, name: TableName, definition: ViewDefinition, *, reanalysed: bool = True) -> ViewDefinition:
        check_view(name, definition)
        return definition

    def view_identity(self, name: TableName) -> str | None:
        if name not in self.views:
            return None
        return self.view_ids.setdefault(name, f"view:{next(_view_ids)}")  # a view a test put straight into ``views``

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None:
        self._check("create_view", name)
        check_view(name, definition)
        if name in self.tables:
            raise ObjectExistsError.table_not_view(f"{name} is a table, not a view", name)
        if name in self.views and not replace:
            raise ObjectExistsError.relation(f"{name} already exists", str(name))
        self._require_database(name.db)
        self.view_ids[name] = f"view:{next(_view_ids)}"  # a replace is a new view, as in Spark's metastore
        self.views[name] = definition

    def rename_view(self, old: TableName, new: TableName) -> None:
        self._check("rename_view", old)
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: views cannot move between databases", str(new))
        if old not in self.views:
            raise self._missing_view(old)
        check_name(new, "view")
        if new in self.views or new in self.tables:
            raise ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
        self.views[new] = self.views.pop(old)
        self.view_ids[new] = self.view_ids.pop(old, "") or f"view:{next(_view_ids)}"

    def drop_view(self, name: TableName) -> None:
        self._check("drop_view", name)
        if name not in self.views:
            raise self._missing_view(name)
        del self.views[name]
        self.view_ids.pop(name, None)

    def function_definition(self, name: TableName) -> FunctionDefinition | None:
        return self.functions.get(name)

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None:
        self._check("create_function", name)
        check_function(name, definition)
        if name in self.functions and not replace:
            raise ObjectExistsError.function(f"function {name} already exists", str(name))
        self._require_database(name.db)
        self.functions[name] = definition

    def drop_function(self, name: TableName) -> None:
        self._check("drop_function", name)
        if name not in self.functions:
            raise NoSuchObjectError.function(f"function {name} does not exist", str(name))
        del self.functions[name]

    # ------------------------------------------------------------------ databases

    def database_exists(self, db: str) -> bool:
        return db in self.databases

    def database_identity(self, db: str) -> str | None:
        return self.database_tags.get(db) if db in self.databases else None

    def tag_database(self, db: str) -> str:
        self._check("tag_database", TableName(db, "*"))
        if db not in self.databases:
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
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
            raise ObjectExistsError.database(f"database {db} already exists", db)
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

    def database_location(self, db: str) -> str | None:
        return database_location(db) if db in self.databases else None

    # ------------------------------------------------------------------ definition swap and kept directories

    def orphan_window(self) -> float | None:
        return self.swap.orphan_window

    def drop_table_drops_views(self) -> bool:
        return False

    def no_such_function(self, name: TableName) -> NoSuchObjectError:
        return NoSuchObjectError.function(f"function {name} does not exist", str(name))

    def default_location(self, name: TableName) -> str | None:
        return default_location(name)

    def _table_or_missing(self, name: TableName) -> MemoryTable:
        table = self.tables.get(name)
        if table is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        return table

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        """As the interface says; this catalog keeps no statistics, so ``keep_statistics`` changes nothing."""
        if not self.swap.enabled:
            return SwapPlan("this in-memory catalog refuses definition swaps")
        for name in (orig, tmp):
            table = self.tables.get(name)
            if table is None:
                return SwapPlan(f"{name} does not exist")
            if table.external:
                return SwapPlan(f"{name} is not a managed table")
        if self.tables[orig].partitioned_by != self.tables[tmp].partitioned_by:
            return SwapPlan(f"the partition columns of {tmp} change (the metastore cannot change a table's "
                            "partition keys)")
        return SwapPlan(None, self.version_of(orig))

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        table = self.tables.get(orig)
        if not self.swap.enabled or table is None or table.external or table.partitioned_by:
            return SwapPlan("built under TMP")
        self._check("plan_empty", orig)
        empty = attrs.evolve(table, identity=tag, rows=[], location=default_location(tmp), held=None)
        return SwapPlan(None, self.version_of(orig), empty)

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        self._check("exchange", orig)
        old = self._table_or_missing(orig)
        new = plan.handle if isinstance(plan.handle, MemoryTable) else self._table_or_missing(tmp)
        between()
        self._check("install", orig)
        self.tables[orig] = attrs.evolve(new, location=new.location or location_of(tmp, new))
        self.keep_files_of(orig, old)

    def restore_definition(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        self._check("restore", orig)
        kept = self._table_or_missing(holder)
        if kept.held is None:
            raise CatalogError(f"{holder} holds no table definition", str(holder))
        self.tables[orig] = attrs.evolve(kept, identity=kept.held, external=False, held=None)

    def keep_files_of(self, name: TableName, table: MemoryTable) -> None:
        """The table ``name`` left the catalog, its files stay (unless another table reads the same location)."""
        location = location_of(name, table)
        if all(location_of(other_name, other) != location for other_name, other in self.tables.items()):
            self.swap.orphans.add(location)
            self.swap.files[location] = table

    def delete_data(self, location: str, owner: TableName) -> str | None:
        """As Spark's: kept while any table's location is at, under or above it, or a database's at or under it."""
        self._check("delete_data", owner)
        user = self.directory_user(location)
        if user is not None:
            return user
        self.swap.orphans = {kept for kept in self.swap.orphans
                             if kept != location and not kept.startswith(location + "/")}
        self.swap.files = {kept: table for kept, table in self.swap.files.items() if kept in self.swap.orphans}
        self.swap.notes = {kept: note for kept, note in self.swap.notes.items() if kept in self.swap.orphans}
        self.forget_database_directory(location)
        return None

    def directory_user(self, location: str) -> str | None:
        for name, table in self.tables.items():
            where = location_of(name, table)
            if where == location or where.startswith(location + "/") or location.startswith(where + "/"):
                return f"table {name} is located at {where}"
        for db in self.live_databases():
            where = database_location(db)
            if where == location or where.startswith(location + "/"):
                return f"database {db} is located at {where}"
        return None

    def write_kept_note(self, location: str, text: str) -> bool:
        """Only into a directory that is there: kept files, or a table's."""
        if location not in self.swap.orphans and all(location_of(n, t) != location for n, t in self.tables.items()):
            return False
        self.swap.notes[location] = text
        return True

    def remove_kept_note(self, location: str) -> None:
        self.swap.notes.pop(location, None)

    def read_kept_note(self, location: str) -> str | None:
        return self.swap.notes.get(location)

    # ------------------------------------------------------------------ kind exchange

    def relation_tag(self, name: TableName) -> str | None:
        table = self.tables.get(name)
        if table is not None:
            return None if table.identity.startswith("fp:") else table.identity
        view = self.views.get(name)
        return None if view is None else view.property_map.get(TAG_PROPERTY)

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        if not self.swap.enabled:
            return "this in-memory catalog refuses definition swaps"
        for name in (orig, tmp):
            table = self.tables.get(name)
            if table is not None and (table.external or table.partitioned_by):
                return f"{name} is a partitioned or external table"
        return None

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        self._check("exchange_kinds", orig)
        if orig in self.views and tmp in self.tables:
            old_view, new_table = self.views[orig], self.tables[tmp]
            del self.tables[tmp]
            self.views[tmp] = tagged(old_view, holder_tag)
            between()
            self._check("install_kind", orig)
            del self.views[orig]
            self.tables[orig] = attrs.evolve(new_table, location=location_of(tmp, new_table))
            return None
        if orig in self.tables and tmp in self.views:
            old_table, new_view = self.tables[orig], self.views[tmp]
            old_location = location_of(orig, old_table)
            del self.views[tmp]
            self.tables[tmp] = attrs.evolve(old_table, identity=holder_tag, external=True, held=old_table.identity,
                                            location=old_location)
            between()
            self._check("install_kind", orig)
            del self.tables[orig]
            self.views[orig] = new_view
            return old_location
        raise NoSuchObjectError(f"{orig} and {tmp} are not a view and a table", str(orig))

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        self._check("restore_kind", orig)
        kept_table: MemoryTable | None = self.tables.get(holder)
        if kept_table is not None and kept_table.held is not None:
            self.views.pop(orig, None)
            self.tables[orig] = attrs.evolve(kept_table, identity=kept_table.held, external=False, held=None)
            return
        kept_view = self.views.get(holder)
        if kept_view is None:
            raise CatalogError(f"{holder} holds no definition", str(holder))
        self.tables.pop(orig, None)
        self.views[orig] = tagged(kept_view, None)

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        """Remove the holder ``name`` (a table: its files kept; a view holder: a view has no files) while its tag is
        ``expect``."""
        view = self.views.get(name)
        if view is not None:
            self._check("forget", name)
            if view.property_map.get(TAG_PROPERTY) != expect:
                return False
            del self.views[name]
            return True
        self._check("forget", name)
        table = self.tables.get(name)
        if table is None or table.identity != expect:
            return False
        del self.tables[name]
        self.keep_files_of(name, table)
        return True

    # ------------------------------------------------------------------ table versions

    def version_of(self, name: TableName) -> TableVersion | None:
        table = self.tables.get(name)
        if table is None or table.external:
            return None
        location = location_of(name, table)
        record = {"columns": list(table.columns), "types": table.types, "comments": table.comments,
                  "properties": table.properties, "partitioned_by": list(table.partitioned_by),
                  "partitions": table.partitions, "location": location, "identity": table.identity}
        properties = {**table.properties, TAG_PROPERTY: table.identity}  # Spark's table parameters hold the tag
        return TableVersion(json.dumps(record, sort_keys=True), location, tuple(sorted(properties.items())),
                            location == default_location(name))

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        current = self.tables.get(name)
        wanted = tuple(json.loads(definition)["partitioned_by"])
        if current is not None and current.partitioned_by != wanted:
            return f"its partition columns {list(wanted)} differ from the table's {list(current.partitioned_by)}"
        return None

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        self._check("install_version", name)
        record = json.loads(definition)
        current = self.tables.get(name)
        if create and current is not None:
            raise ObjectExistsError.relation(f"table {name} already exists", str(name))
        if not create and current is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        if current is not None:  # its files stay where they are (the version the install replaces)
            del self.tables[name]
            self.keep_files_of(name, current)
        location = str(record["location"])
        files = self.swap.files.pop(location, None) or next(  # a schema swap: another name's table reads them now
            (other for other_name, other in self.tables.items() if location_of(other_name, other) == location), None)
        self.swap.orphans.discard(location)
        properties = dict(record["properties"])
        identity = tag if tag is not None else str(record["identity"])
        self.tables[name] = MemoryTable(
            identity, tuple(record["columns"]), list(files.rows) if files is not None else [],
            types=dict(record["types"]), comments=dict(record["comments"]), properties=properties,
            partitioned_by=tuple(record["partitioned_by"]), partitions=[dict(p) for p in record["partitions"]],
            location=None if location == default_location(name) else location)

    def data_size(self, location: str) -> int | None:
        files = self.swap.files.get(location)
        return None if files is None else sum(len(repr(row)) for row in files.rows)

    # ------------------------------------------------------------------ copying between catalogs (a replica's)

    def list_databases(self) -> list[str]:
        return sorted(self.databases)

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        return DatabaseDefinition() if db in self.databases else None

    def relocated_version(self, definition: str, location: str) -> str:
        record = json.loads(definition)
        record["location"] = location
        record["properties"] = {k: v for k, v in record["properties"].items()
                                if not k.startswith(INTERNAL_PROPERTY_PREFIXES)}
        return json.dumps(record, sort_keys=True)

    def rows_at(self, location: str) -> list[tuple[object, ...]]:
        """The rows stored at ``location``: the table reading it, else the version kept there."""
        for name, table in self.tables.items():
            if location_of(name, table) == location:
                return list(table.rows)
        kept = self.swap.files.get(location)
        if kept is None:
            raise NoSuchObjectError(f"no files at {location}", location)
        return list(kept.rows)

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        self._check("copy_version_into", name)
        origin = self if source is None else source.backend if isinstance(source, Catalog) else source
        if not isinstance(origin, MemoryCatalog):
            raise InvalidDefinitionError(f"the in-memory catalog cannot read the files at {location}", str(name))
        rows = origin.rows_at(location)
        self._table(name).rows = rows
        return len(rows)

    def definition_digest(self, name: TableName) -> str | None:
        table = self.tables.get(name)
        if table is None:
            return None
        properties = {k: v for k, v in table.properties.items() if not k.startswith(INTERNAL_PROPERTY_PREFIXES)}
        return json.dumps({"columns": table.columns, "types": table.types, "comments": table.comments,
                           "properties": properties, "partitioned_by": table.partitioned_by,
                           "partitions": sorted(sorted(p.items()) for p in table.partitions),
                           "external": table.external}, sort_keys=True)

    def row_checksum(self, name: TableName) -> str:
        rows = sorted(repr(row) for row in self._table(name).rows)
        return f"{len(rows)}:{hashlib.sha256(chr(10).join(rows).encode()).hexdigest()[:16]}"

    # ------------------------------------------------------------------ files

    def check_insert(self, name: TableName, fill: Fill) -> None:
        """Nothing: the in-memory catalog reads no SQL and takes any rows."""

    def close(self) -> None:
        """Nothing to close."""

    def file_mover(self) -> MemoryFileMover:
        """INSERT INTO's "files" (:class:`~storage.catalogs.memory.memory_files.MemoryFileMover`)."""
        return MemoryFileMover(self.tables, self.swap, self._check)

    def version_mover(self) -> MemoryVersionMover:
        """A kept version's "directory" moved aside
        (:class:`~storage.catalogs.memory.memory_files.MemoryVersionMover`)."""
        return MemoryVersionMover(self.swap, self._check, self.directory_user)


def memory_catalog(*, swap: bool = True, orphan_window: float | None = None) -> Catalog:
    """A :class:`Catalog` in memory; its state is ``catalog.backend``."""
    state = MemoryCatalog(swap=swap, orphan_window=orphan_window)
    return Catalog(names=state, data=state, definitions=state, swaps=state, versions=state, kinds=state,
                   directories=state, views=state, functions=state, databases=state, copies=state, backend=state)
