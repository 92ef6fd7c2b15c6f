"""SWAP_TABLE: a replace's definition swap as earlier versions of this project logged it: ORIG took TMP's definition
and TMP holds ORIG's old one (a *holder*). Undo puts the old definition back on ORIG while ORIG still has the new
one, then removes the holder without its files (they are ORIG's). Replaces now log INSTALL_VERSION with the old
definition itself and make no holder (:mod:`replace_table.plans.swap_path`); the kind stays so that a log written before
still recovers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_SWAP_BEFORE_FORGET = crashpoints.declare(
    "undo.swap_table.before_forget", "undo put ORIG's old definition back; the holder is still in the catalog")


@attrs.frozen
class SwapTablePayload:
    """ORIG (the entry's name, identity ``tag`` before the swap) took the definition of TMP (``from_name``,
    identity ``new_tag``), and TMP became the holder of ORIG's old definition (identity ``holder_tag``).
    ``orig_tag``: ORIG's own tag property before the swap (None: it had none), put back on undo."""

    new_tag: str
    holder_tag: str
    orig_tag: str | None

    def to_wire(self) -> dict[str, Any]:
        return {"new_tag": self.new_tag, "holder_tag": self.holder_tag, "orig_tag": self.orig_tag}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SwapTablePayload:
        orig_tag = require(data, "orig_tag", "SWAP_TABLE")
        return cls(str(require(data, "new_tag", "SWAP_TABLE")), str(require(data, "holder_tag", "SWAP_TABLE")),
                   None if orig_tag is None else str(orig_tag))


def log_swap_table(log: DDLLog, chain: int, orig: TableName, tmp: TableName, orig_identity: str | None,
                   payload: SwapTablePayload) -> ActionEntry:
    return log.add_action(chain, ActionType.SWAP_TABLE, name=orig, from_name=tmp, tag=orig_identity, payload=payload)


def names_of(action: ActionEntry) -> tuple[TableName, TableName]:
    if action.name is None or action.from_name is None:
        raise CatalogError(f"{action.type.value} action {action.id} lacks a table name")
    return action.name, action.from_name


def undo_swap_table(action: ActionEntry, ctx: ActionContext) -> None:
    """ORIG with the new definition but no holder is refused (raised, so the chain stays for an operator): TMP's undo
    would otherwise remove the files ORIG reads. So is another table under ORIG's name while TMP holds the old
    definition: neither is touched."""
    orig, tmp = names_of(action)
    payload = payload_of(action, SwapTablePayload)
    catalog = ctx.catalog
    if catalog.names.identity(orig) == payload.new_tag:
        if catalog.names.identity(tmp) != payload.holder_tag:
            raise CatalogError(f"cannot undo the swap of {orig}: its old definition is no longer held by {tmp}",
                               str(orig))
        catalog.swaps.restore_definition(orig, tmp, payload.orig_tag)
    if catalog.names.identity(orig) == action.tag:
        UNDO_SWAP_BEFORE_FORGET()
        catalog.swaps.forget_table(tmp, expect=payload.holder_tag)
    elif catalog.names.identity(tmp) == payload.holder_tag:
        # Another table took ORIG's name after the crash: it is left alone, and so is the old table's definition
        # in TMP (its only way to the old data), until an operator decides (the chain is retried, then abandoned).
        raise CatalogError(f"cannot undo the swap of {orig}: another table has that name now; the old table's "
                           f"definition stays in {tmp}", str(orig))


def describe(action: ActionEntry) -> str:
    return (f"put the old definition of table {action.name}, held by {action.from_name}, back while {action.name} "
            f"has the new one; then remove {action.from_name} without its files")


KIND = ActionKind(ActionType.SWAP_TABLE, ("DEFINITION",), SwapTablePayload, undo_swap_table, describe, "object",
                  log_swap_table)
