"""RENAME_VIEW: ALTER VIEW ... RENAME TO; undo moves the view back only while the view under the new name is the
one moved (identity and definition)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require, view_from_wire, view_to_wire
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage.catalogs.interface import ViewDefinition
from storage.catalogs.names import TableName
from storage.errors import CatalogError


@attrs.frozen
class RenameViewPayload:
    definition: ViewDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"definition": view_to_wire(self.definition)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RenameViewPayload:
        return cls(view_from_wire(require(data, "definition", "RENAME_VIEW"), "RENAME_VIEW"))


def log_rename_view(log: DDLLog, chain: int, old: TableName, new: TableName, identity: str | None,
                    definition: ViewDefinition) -> ActionEntry:
    return log.add_action(chain, ActionType.RENAME_VIEW, from_name=old, name=new, tag=identity,
                          payload=RenameViewPayload(definition))


def undo_rename_view(action: ActionEntry, ctx: ActionContext) -> None:
    moved_to = name_of(action)
    original = action.from_name
    if original is None:
        raise CatalogError(f"rename action {action.id} has no source name")
    payload = payload_of(action, RenameViewPayload)
    current = ctx.catalog.views.view_definition(moved_to)
    if current is None or current != payload.definition or ctx.catalog.views.view_identity(moved_to) != action.tag:
        return  # the rename never happened, was undone already, or the view there is someone else's
    ctx.catalog.views.rename_view(moved_to, original)


def describe(action: ActionEntry) -> str:
    return f"rename view {action.name} back to {action.from_name} if it has identity {action.tag}"


KIND = ActionKind(ActionType.RENAME_VIEW, ("VIEW",), RenameViewPayload, undo_rename_view, describe, "object",
                  log_rename_view)
