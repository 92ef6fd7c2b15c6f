"""The definition swap of the in-memory catalog (the contract of ``Catalog.exchange_definitions`` and its
neighbours, with table objects for definitions): a table's "location" is where its rows live. A holder (the old table
object under TMP's name, external, remembering ORIG's identity) exists only in logs of earlier versions' swaps, which
``restore_definition`` still undoes."""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs

from storage.catalogs.interface import SwapPlan, TableVersion
from storage.catalogs.memory.memory_table import MemoryTable
from storage.catalogs.names import TableName
from storage.errors import CatalogError, NoSuchObjectError


@attrs.define
class SwapState:
    enabled: bool = True
    """False: every table is refused (tests of the rename path)."""
    orphans: set[str] = attrs.field(factory=set)
    """Locations whose table left the catalog without its files (a forgotten holder): what ``delete_data`` removes."""
    orphan_window: float | None = None
    """What ``orphan_window`` answers: None, tasks end with the driver; else an engine whose tasks outlive it (a test
    makes a late write of one by adding its table's name to ``MemoryCatalog.leftovers``)."""
    files: dict[str, MemoryTable] = attrs.field(factory=dict)
    """The rows (the "files") at each orphan location, as the table that left them had them: a kept version."""
    moved: set[str] = attrs.field(factory=set)
    """The "files" (one per row) moved out of an INSERT's work table into its table
    (:mod:`~storage.catalogs.memory.memory_files`)."""
    notes: dict[str, str] = attrs.field(factory=dict)
    """The note of each kept directory (``write_kept_note``), by location."""


def default_location(name: TableName) -> str:
    return f"memory:/{name.db}/{name.name}"


def database_location(db: str) -> str:
    return f"memory:/{db}"


def location_of(name: TableName, table: MemoryTable) -> str:
    """Where the rows of the table ``name`` live: its own location after a swap, else the name's default one."""
    return table.location or default_location(name)


class MemorySwap:
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog` (which provides ``tables`` and ``_check``)."""

    tables: dict[TableName, MemoryTable]
    swap: SwapState
    version_of: Callable[[TableName], TableVersion | None]  # MemoryVersions' (after this class in the MRO)

    def _check(self, operation: str, name: TableName) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def orphan_window(self) -> float | None:
        return self.swap.orphan_window

    def default_location(self, name: TableName) -> str | None:
        return default_location(name)

    def _table_or_missing(self, name: TableName) -> MemoryTable:
        table = self.tables.get(name)
        if table is None:
            raise NoSuchObjectError(f"table {name} does not exist", str(name))
        return table

    def plan_swap(self, orig: TableName, tmp: TableName) -> SwapPlan:
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

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        self._check("forget", name)
        table = self.tables.get(name)
        if table is None or table.identity != expect:
            return False
        del self.tables[name]
        self.keep_files_of(name, table)
        return True

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

    def version_mover(self) -> MemorySwap:
        return self

    def move_directory(self, location: str, to: str, owner: TableName) -> str | None:
        """As Spark's (:mod:`storage.catalogs.version_moves`): the kept "files" at ``location`` move to ``to``."""
        self._check("move_directory", owner)
        user = self.directory_user(location)
        if user is not None:
            return user
        if location in self.swap.orphans:
            if to in self.swap.orphans:
                raise CatalogError(f"cannot move the kept version of {owner} at {location}: {to} exists already",
                                   str(owner))
            self.swap.orphans.discard(location)
            self.swap.orphans.add(to)
            if location in self.swap.files:
                self.swap.files[to] = self.swap.files.pop(location)
            self.swap.notes.pop(location, None)
        return None

    def moved_definition(self, definition: str, to: str) -> str:
        record = json.loads(definition)
        record["location"] = to
        return json.dumps(record, sort_keys=True)

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

    def live_databases(self) -> set[str]:
        raise NotImplementedError  # MemoryCatalog's

    def forget_database_directory(self, location: str) -> None:
        raise NotImplementedError  # MemoryCatalog's
