"""The kind exchange of the in-memory catalog (:class:`~storage.catalogs.kind_exchange.KindExchange`): a view's
tag is its ``spark_ddl_log.tag`` property, a view holder is the old view under TMP's name with the holder tag as that
property, a table holder is the old table object, external, as in :mod:`storage.catalogs.memory.memory_swap`."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from storage.catalogs.interface import TAG_PROPERTY, ViewDefinition
from storage.catalogs.memory.memory_swap import MemorySwap, location_of
from storage.catalogs.memory.memory_table import MemoryTable
from storage.catalogs.names import TableName
from storage.errors import CatalogError, NoSuchObjectError


def tagged(view: ViewDefinition, tag: str | None) -> ViewDefinition:
    """``view`` with its tag property set to ``tag`` (None: removed)."""
    properties = {**view.property_map, TAG_PROPERTY: tag} if tag is not None else {
        k: v for k, v in view.property_map.items() if k != TAG_PROPERTY}
    return attrs.evolve(view, properties=tuple(sorted(properties.items())))


class MemoryKinds(MemorySwap):
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog` before :class:`MemorySwap`."""

    views: dict[TableName, ViewDefinition]

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
        """A view holder is forgotten like a table holder (a view has no files)."""
        view = self.views.get(name)
        if view is not None:
            self._check("forget", name)
            if view.property_map.get(TAG_PROPERTY) != expect:
                return False
            del self.views[name]
            return True
        return super().forget_table(name, expect=expect)
