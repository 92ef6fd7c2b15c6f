"""The in-memory catalog's one shared state (tables, views, functions, databases, its "file system") and what every
port of it checks first: a test's injected failure, a missing table or database, files left at a location."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from storage.catalogs.interface import (
    FunctionDefinition,
    ViewDefinition,
)
from storage.catalogs.memory.memory_table import (
    MemoryTable,
    SwapState,
    database_location,
    default_location,
    location_of,
)
from storage.catalogs.names import TableName
from storage.errors import (
    CatalogError,
    LeftoverFilesError,
    NoSuchObjectError,
    WrongObjectKindError,
)

_ids = itertools.count(1)
_view_ids = itertools.count(1)


def next_view_id() -> str:
    """A new view identity (new on create and replace, kept by a rename, as the metastore's create time)."""
    return f"view:{next(_view_ids)}"


class MemoryState:
    """What the in-memory ports share; tests read and change it directly (``catalog.backend``)."""

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

    def check(self, operation: str, name: TableName) -> None:
        """The failure hook every operation calls first: records the call, raises what ``fail_on`` injects."""
        self.calls.append((operation, name))
        if self.fail_on(operation, name):
            raise CatalogError(f"injected failure: {operation} {name}", str(name))

    def missing_table(self, name: TableName) -> CatalogError:
        """What Spark raises where a table is expected: a view of that name is the wrong kind, else it is missing."""
        if name in self.views:
            return WrongObjectKindError.view_not_table(name)
        return NoSuchObjectError.relation(f"table {name} does not exist", str(name))

    def table(self, name: TableName) -> MemoryTable:
        table = self.tables.get(name)
        if table is None:
            raise self.missing_table(name)
        return table

    def table_or_missing(self, name: TableName) -> MemoryTable:
        table = self.tables.get(name)
        if table is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        return table

    def require_database(self, db: str) -> None:
        if db not in self.databases:
            raise NoSuchObjectError.database(f"database {db} does not exist", db)

    def clear_location(self, name: TableName, operation: str) -> None:
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

    def keep_files_of(self, name: TableName, table: MemoryTable) -> None:
        """The table ``name`` left the catalog, its files stay (unless another table reads the same location)."""
        location = location_of(name, table)
        if all(location_of(other_name, other) != location for other_name, other in self.tables.items()):
            self.swap.orphans.add(location)
            self.swap.files[location] = table

    def add_user_table(self, name: TableName, columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
        """A table created outside the log (no tag): its identity is a fingerprint."""
        self.tables[name] = MemoryTable(f"fp:{next(_ids)}", columns, list(rows))

    def live_databases(self) -> set[str]:
        return set(self.databases)

    def forget_database_directory(self, location: str) -> None:
        """A kept directory of a dropped database was deleted."""
        self.database_dirs = {db for db in self.database_dirs
                              if db in self.databases or database_location(db) != location}

    def rows_at(self, location: str) -> list[tuple[object, ...]]:
        """The rows stored at ``location``: the table reading it, else the version kept there."""
        for name, table in self.tables.items():
            if location_of(name, table) == location:
                return list(table.rows)
        kept = self.swap.files.get(location)
        if kept is None:
            raise NoSuchObjectError(f"no files at {location}", location)
        return list(kept.rows)

    def close(self) -> None:
        """Nothing to close."""


class MemoryPort:
    """A port of the in-memory catalog: its methods work on the one shared :class:`MemoryState`."""

    def __init__(self, state: MemoryState) -> None:
        self.state = state
