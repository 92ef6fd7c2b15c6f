"""The in-memory catalog's tables: names (lookups, RENAME, DROP), data jobs (CREATE, INSERT) and definitions (ALTER
TABLE, partitions), as the Spark catalog's, on :class:`~storage.catalogs.memory.memory_state.MemoryState`."""

from __future__ import annotations

from collections.abc import Callable

from storage.catalogs.file_moves import WriteJob
from storage.catalogs.interface import (
    KEEP_POINT,
    TAG_PROPERTY,
    Column,
    Fill,
    TableMetadata,
    TableSpec,
)
from storage.catalogs.memory.memory_files import MemoryFileMover
from storage.catalogs.memory.memory_state import MemoryPort, MemoryState
from storage.catalogs.memory.memory_table import (
    MemoryTable,
    default_location,
    location_of,
    partition_of,
    register_partition,
    with_static,
)
from storage.catalogs.name_references import sqlglot_relations
from storage.catalogs.names import DEFAULT_DATABASE, TableName
from storage.catalogs.rules import (
    check_name,
    check_spec,
)
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    NoSuchObjectError,
    ObjectExistsError,
)


class MemoryNames(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Names` port."""

    def exists(self, name: TableName) -> bool:
        return name in self.state.tables

    def identity(self, name: TableName) -> str | None:
        table = self.state.tables.get(name)
        return None if table is None else table.identity

    def current_identity(self, name: TableName) -> str | None:
        return self.identity(name)  # nothing is kept between reads

    def list_tables(self, db: str) -> list[TableName]:
        self.state.require_database(db)
        return sorted(name for name in self.state.tables if name.db == db)

    def default_location(self, name: TableName) -> str | None:
        return default_location(name)

    def rename(self, old: TableName, new: TableName, *, keep_directory: bool = False) -> None:
        self.state.check("rename", old)
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: Spark renames tables only within a database", str(new))
        if old not in self.state.tables:
            raise self.state.missing_table(old)
        check_name(new)
        if new in self.state.tables or new in self.state.views:
            raise ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
        self.state.clear_location(new, f"rename {old} to")
        self.state.tables[new] = self.state.tables.pop(old)

    def settle_rename(self, old: TableName, new: TableName) -> None:
        return None

    def drop(self, name: TableName, *, expect: str | None = None, before: Callable[[], None] | None = None,
             keep_files: bool = False) -> bool:
        table = self.state.tables.get(name)
        if table is None:
            raise self.state.missing_table(name)
        if expect is not None and table.identity != expect:
            return False
        if before is not None:
            before()
        self.state.check("drop", name)
        del self.state.tables[name]
        if keep_files and not table.external:
            self.state.keep_files_of(name, table)
        return True

    def check_current_catalog(self) -> None:
        return None

    def drop_table_drops_views(self) -> bool:
        return False

    def relations_read(self, query: str | None = None, frame: object | None = None, *,
                       default_db: str | None = None) -> list[TableName]:
        """sqlglot's reading of ``query`` (an in-memory fill is rows, never a plan: ``frame`` reads nothing)."""
        found = None if query is None else sqlglot_relations(query, default_db or DEFAULT_DATABASE)
        return found or []


class MemoryDefinitions(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Definitions` port."""

    def table_location(self, name: TableName) -> str | None:
        table = self.state.tables.get(name)
        return None if table is None or table.external else location_of(name, table)

    def table_metadata(self, name: TableName) -> TableMetadata | None:
        table = self.state.tables.get(name)
        if table is None:
            return None
        columns = tuple(Column(c, table.types.get(c, "INT"), table.comments.get(c)) for c in table.columns)
        properties = {**table.properties, TAG_PROPERTY: table.identity}
        return TableMetadata(columns, table.partitioned_by, tuple(sorted(properties.items())), external=table.external)

    def recorded_definition(self, name: TableName) -> tuple[str, TableMetadata] | None:
        location, metadata = self.table_location(name), self.table_metadata(name)
        return None if location is None or metadata is None else (location, metadata)

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None:
        self.state.check("set_properties", name)
        self.state.table(name).properties.update(properties)

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        self.state.check("unset_properties", name)
        for key in keys:
            self.state.table(name).properties.pop(key, None)

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        self.state.check("set_column_comment", name)
        table = self.state.table(name)
        if column not in table.columns:
            raise NoSuchObjectError.column(f"column {column!r} does not exist in {name}", column)
        if column in table.partitioned_by:
            raise InvalidDefinitionError(f"cannot set a comment on {name}: {column} is a partition column", str(name))
        if comment:
            self.state.table(name).comments[column] = comment
        else:
            self.state.table(name).comments.pop(column, None)

    def add_columns(self, name: TableName, columns: tuple[Column, ...], *, text: str | None = None) -> None:
        self.state.check("add_columns", name)
        table = self.state.table(name)
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

    def check_alter(self, name: TableName, clause: str) -> None:
        return None  # the in-memory catalog reads no SQL: its statements check their own operands

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        wanted = spec or {}
        return [dict(p) for p in self.state.table(name).partitions
                if all(p.get(column) == value for column, value in wanted.items())]

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        self.state.check("add_partition", name)
        self._check_partition_spec(name, spec, whole=True)
        if spec not in self.state.table(name).partitions:
            self.state.table(name).partitions.append(dict(spec))

    def _check_partition_spec(self, name: TableName, spec: dict[str, str], *, whole: bool) -> None:
        table = self.state.table(name)
        if not table.partitioned_by:
            raise InvalidDefinitionError(f"cannot change partitions of {name}: the table is not partitioned", str(name))
        keys = set(spec)
        if not keys or not keys <= set(table.partitioned_by) or (whole and keys != set(table.partitioned_by)):
            raise InvalidDefinitionError(f"partition spec {spec} does not match the partitioning of {name}", str(name))

    def add_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None:
        self.state.check("add_partition", name)
        for spec in specs:
            self._check_partition_spec(name, spec, whole=True)
        for spec in specs:
            register_partition(self.state.table(name), spec)

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        self.state.check("drop_partition", name)
        if spec in self.state.table(name).partitions:
            self.state.table(name).partitions.remove(spec)

    def drop_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None:
        self.state.check("drop_partition", name)
        for spec in specs:
            self._check_partition_spec(name, spec, whole=False)
        table = self.state.table(name)
        for spec in specs:
            for partition in self.list_partitions(name, spec):
                table.partitions.remove(partition)


class MemoryDataJobs(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.DataJobs` port."""

    def __init__(self, state: MemoryState, definitions: MemoryDefinitions) -> None:
        super().__init__(state)
        self.definitions = definitions

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """As Spark: the name must be free of tables and views, its database must exist, files at its location
        block it unless it is one of the log's names; partition columns go last (as Hive stores them)."""
        self.state.check("create", name)
        check_name(name)
        if spec.copy:
            spec = spec.copied(self.definitions.table_metadata(spec.like) if spec.like is not None else None)
        self.check_create(spec, name)
        if name in self.state.tables or name in self.state.views:
            raise ObjectExistsError.relation(f"{name} already exists", str(name))
        self.state.require_database(name.db)
        self.state.clear_location(name, "create")
        rows: list[tuple[object, ...]] = []
        columns: tuple[str, ...] = ()
        types: dict[str, str] = {}
        partitioned_by = tuple(column.lower() for column in spec.partitioned_by)
        if spec.columns is not None:
            columns = tuple(column.name for column in spec.columns)
            types = {column.name: column.type.lower() for column in spec.columns}
        elif spec.like is not None:
            source = self.state.table(spec.like)
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
        self.state.tables[name] = MemoryTable(tag, columns, rows, types=types, properties=dict(spec.properties),
                                        partitioned_by=partitioned_by)

    def check_create(self, spec: TableSpec, name: TableName | None = None, *, work: TableName | None = None,
                     tag: str = "") -> None:
        columns: tuple[str, ...] | None = None
        if spec.columns is not None:
            columns = tuple(column.name for column in spec.columns)
        elif isinstance(spec.df, MemoryTable):
            columns = spec.df.columns
        check_spec(spec, columns, name)
        if spec.like is not None and spec.like not in self.state.tables:
            raise NoSuchObjectError.relation(f"table {spec.like} does not exist", str(spec.like))

    def insert(self, name: TableName, fill: Fill, *, job: WriteJob | None = None) -> None:
        """Rows of a :class:`MemoryTable` given as ``fill.df`` (static partition values put in at their columns);
        a partitioned table registers the partitions rows go to, and a full static spec its partition, as Spark.
        ``job``: the rows are remembered as that job's "files" (``SwapState.jobs``)."""
        self.state.check("insert", name)
        if fill.files_from is not None:
            raise InvalidDefinitionError("the in-memory catalog has no files to copy", str(name))
        if fill.column_clause:
            raise InvalidDefinitionError("the in-memory catalog maps an INSERT's rows by position only", str(name))
        if name not in self.state.tables:
            raise self.state.missing_table(name)
        table = self.state.tables[name]
        static = fill.static
        new_rows = list(fill.df.rows) if isinstance(fill.df, MemoryTable) else []
        if static:
            new_rows = [with_static(table.columns, static, iter(row)) for row in new_rows]
        if job is not None:
            self.state.swap.jobs[job.id] = (table.identity, list(new_rows))
        table.rows.extend(new_rows)
        written = {partition_of(table, row) for row in new_rows}
        if table.partitioned_by and len(static) == len(table.partitioned_by):
            written.add(tuple(static[c] for c in table.partitioned_by))
        for values in sorted(written - {()}):
            register_partition(table, dict(zip(table.partitioned_by, values, strict=True)))
        if fill.keep is not None:
            KEEP_POINT()
            self._keep(table, self.state.table(fill.keep), fill, written)
        if fill.partitions_of is not None:
            for partition in self.state.table(fill.partitions_of).partitions:
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

    def check_insert(self, name: TableName, fill: Fill) -> None:
        """Nothing: the in-memory catalog reads no SQL and takes any rows."""

    def prepare_write(self, name: TableName, fill: Fill, directory: str) -> object | None:
        """None: the in-memory catalog builds every version under TMP."""
        return None

    def prepare_create(self, name: TableName, work: TableName, spec: TableSpec, tag: str) -> object | None:
        """None: the in-memory catalog builds every version under TMP."""
        return None

    def write_created(self, name: TableName, job: object, tag: str, spec: TableSpec) -> object:
        raise InvalidDefinitionError("the in-memory catalog writes no version outside a table", str(name))

    def create_written(self, name: TableName, job: object, tag: str, spec: TableSpec) -> None:
        raise InvalidDefinitionError("the in-memory catalog writes no version outside a table", str(name))

    def write_version(self, name: TableName, job: object) -> None:
        raise InvalidDefinitionError("the in-memory catalog writes no version outside a table", str(name))

    def partition_overwrite_mode(self) -> str:
        return self.state.overwrite_mode

    def file_mover(self) -> MemoryFileMover:
        """INSERT INTO's "files" (:class:`~storage.catalogs.memory.memory_files.MemoryFileMover`)."""
        return MemoryFileMover(self.state.tables, self.state.swap, self.state.check)

    def orphan_window(self) -> float | None:
        return self.state.swap.orphan_window
