"""FORGET_TABLE: after a statement commits, a work table leaves the catalog, never its files, only while it is the
statement's (its tag): a replace's TMP, whose files ORIG reads since the swap; a kind change's holder of ORIG's old
definition (the old version, deleted after the grace period by DELETE_DATA)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage.catalogs.names import TableName
from storage.errors import CatalogError


@attrs.frozen
class ForgetTablePayload:
    """Nothing beyond the entry's name and identity tag."""

    def to_wire(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ForgetTablePayload:
        return cls()


def log_forget_table(log: DDLLog, chain: int, name: TableName, tag: str) -> ActionEntry:
    return log.add_action(chain, ActionType.FORGET_TABLE, name=name, tag=tag, payload=ForgetTablePayload())


def forward_forget_table(action: ActionEntry, ctx: ActionContext) -> None:
    if action.name is None or action.tag is None:
        raise CatalogError(f"forget action {action.id} lacks its name or tag")
    ctx.catalog.swaps.forget_table(action.name, expect=action.tag)


def describe(action: ActionEntry) -> str:
    return f"remove table {action.name} from the catalog, not its files, if it has identity {action.tag}"


KIND = ActionKind(ActionType.FORGET_TABLE, ("TABLE",), ForgetTablePayload, forward_forget_table, describe, "object",
                  log_forget_table)
