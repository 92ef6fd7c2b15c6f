"""The definition swap of the in-memory catalog (the contract of ``Catalog.exchange_definitions`` and its
neighbours, with table objects for definitions): a table's "location" is where its rows live; a holder is the old
table object under TMP's name, external and tagged with the holder tag, remembering ORIG's identity."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from storage.catalogs.memory_table import MemoryTable
from storage.catalogs.names import TableName
from storage.errors import CatalogError, NoSuchObjectError


@attrs.define
class SwapState:
    enabled: bool = True
    """False: every table is refused (tests of the rename path)."""
    orphans: set[str] = attrs.field(factory=set)
    """Locations whose table left the catalog without its files (a forgotten holder): what ``delete_data`` removes."""


def default_location(name: TableName) -> str:
    return f"memory:/{name.db}/{name.name}"


def location_of(name: TableName, table: MemoryTable) -> str:
    """Where the rows of the table ``name`` live: its own location after a swap, else the name's default one."""
    return table.location or default_location(name)


class MemorySwap:
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog` (which provides ``tables`` and ``_check``)."""

    tables: dict[TableName, MemoryTable]
    swap: SwapState

    def _check(self, operation: str, name: TableName) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def _table_or_missing(self, name: TableName) -> MemoryTable:
        table = self.tables.get(name)
        if table is None:
            raise NoSuchObjectError(f"table {name} does not exist", str(name))
        return table

    def swap_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        if not self.swap.enabled:
            return "this in-memory catalog refuses definition swaps"
        for name in (orig, tmp):
            table = self.tables.get(name)
            if table is None:
                return f"{name} does not exist"
            if table.external:
                return f"{name} is not a managed table"
        if self.tables[orig].partitioned_by != self.tables[tmp].partitioned_by:
            return f"the partition columns of {tmp} change (the metastore cannot change a table's partition keys)"
        return None

    def exchange_definitions(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                             between: Callable[[], None]) -> str:
        self._check("exchange", orig)
        old, new = self._table_or_missing(orig), self._table_or_missing(tmp)
        old_location = location_of(orig, old)
        self.tables[tmp] = attrs.evolve(old, identity=holder_tag, external=True, held=old.identity,
                                        location=old_location)
        between()
        self._check("install", orig)
        self.tables[orig] = attrs.evolve(new, location=location_of(tmp, new))
        return old_location

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
        location = location_of(name, table)
        if all(location_of(other_name, other) != location for other_name, other in self.tables.items()):
            self.swap.orphans.add(location)
        return True

    def delete_data(self, location: str, owner: TableName) -> bool:
        self._check("delete_data", owner)
        table = self.tables.get(owner)
        if (table is not None and location_of(owner, table) == location) or location not in self.swap.orphans:
            return False
        self.swap.orphans.discard(location)
        return True
