"""CHANGE_KIND: a relation that changed kind in one metastore call (a view became a table or a table a view, see
:class:`storage.catalogs.ports.KindExchange`): ORIG took TMP's definition and TMP holds ORIG's old one. Undo puts the
old definition back on ORIG while ORIG still has the new one, then removes the holder (never files)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, payload_of, require
from actions.kinds.swap_table import names_of
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_KIND_BEFORE_FORGET = crashpoints.declare(
    "undo.change_kind.before_forget", "undo put ORIG's old definition back; the holder is still in the catalog")


@attrs.frozen
class ChangeKindPayload:
    """ORIG took the definition tagged ``new_tag`` (TMP's), TMP holds ORIG's old one tagged ``holder_tag``;
    ``orig_tag``: ORIG's own tag property before (None: none, always for a view), put back on undo."""

    new_tag: str
    holder_tag: str
    orig_tag: str | None

    def to_wire(self) -> dict[str, Any]:
        return {"new_tag": self.new_tag, "holder_tag": self.holder_tag, "orig_tag": self.orig_tag}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ChangeKindPayload:
        orig_tag = require(data, "orig_tag", "CHANGE_KIND")
        return cls(str(require(data, "new_tag", "CHANGE_KIND")), str(require(data, "holder_tag", "CHANGE_KIND")),
                   None if orig_tag is None else str(orig_tag))


def log_change_kind(log: DDLLog, chain: int, orig: TableName, tmp: TableName,
                    payload: ChangeKindPayload) -> ActionEntry:
    return log.add_action(chain, ActionType.CHANGE_KIND, name=orig, from_name=tmp, tag=payload.orig_tag,
                          payload=payload)


def undo_change_kind(action: ActionEntry, ctx: ActionContext) -> None:
    """ORIG with the new definition but no holder is refused (raised: the chain stays for an operator), and so is
    a relation someone else put under ORIG's name while TMP holds the old definition: neither is touched."""
    orig, tmp = names_of(action)
    payload = payload_of(action, ChangeKindPayload)
    kinds = ctx.catalog.kinds
    if kinds.relation_tag(orig) == payload.new_tag:
        if kinds.relation_tag(tmp) != payload.holder_tag:
            raise CatalogError(f"cannot undo the kind change of {orig}: its old definition is no longer held by "
                               f"{tmp}", str(orig))
        kinds.restore_kind(orig, tmp, payload.orig_tag)
    if kinds.relation_tag(tmp) != payload.holder_tag:
        return  # the exchange never began, or the holder is gone already
    if kinds.relation_tag(orig) != payload.orig_tag:
        raise CatalogError(f"cannot undo the kind change of {orig}: another relation has that name now; the old "
                           f"definition stays in {tmp}", str(orig))
    UNDO_KIND_BEFORE_FORGET()
    ctx.catalog.swaps.forget_table(tmp, expect=payload.holder_tag)


def describe(action: ActionEntry) -> str:
    return (f"put the old definition of {action.name} (a view or a table), held by {action.from_name}, back while "
            f"{action.name} has the new one of the other kind; then remove {action.from_name} (never files)")


KIND = ActionKind(ActionType.CHANGE_KIND, ("DEFINITION",), ChangeKindPayload, undo_change_kind, describe, "object",
                  log_change_kind)
