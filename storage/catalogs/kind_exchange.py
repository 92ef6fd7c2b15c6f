"""What a catalog needs to change a relation's kind (a view into a table, a table into a view) without the name ever
missing: the definition swap of :mod:`replace_table.machine`, across kinds. A separate protocol, so that a catalog
without it refuses the change (:func:`kind_exchange_of`) instead of dropping first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from storage.catalogs.names import TableName
from storage.errors import NotAtomicError


@runtime_checkable
class KindExchange(Protocol):
    def relation_tag(self, name: TableName) -> str | None:
        """The identity tag property of the table or view ``name`` (None: no such relation, or it has none)."""
        ...

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        """Why ORIG cannot take TMP's definition of the other kind in one call (None when it can)."""
        ...

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        """TMP becomes the holder of ORIG's definition (a view stays a view, a table becomes external: dropping the
        holder never deletes ORIG's files), tagged ``holder_tag``; then ORIG takes TMP's former definition, of the
        other kind, in one metastore call: a reader resolves ORIG to the old relation or the new one, never to
        nothing. ``between`` runs between the two. Returns ORIG's old data location (None for a view)."""
        ...

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        """ORIG := the definition ``holder`` keeps, of its own kind (a table managed again with ``orig_tag``): the
        undo of :meth:`exchange_kinds`."""
        ...


def kind_exchange_of(catalog: object, name: TableName) -> KindExchange:
    """``catalog`` as a :class:`KindExchange`, or :class:`NotAtomicError` (nothing done)."""
    if not isinstance(catalog, KindExchange):
        raise NotAtomicError(f"this catalog cannot change the kind of {name} in one step", str(name))
    return catalog
