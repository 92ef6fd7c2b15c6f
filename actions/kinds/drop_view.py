"""DROP_VIEW: one view of a DROP VIEW or DROP DATABASE, rolled forward: dropped only while it is the view the
statement dropped, by identity and definition (a view created anew under the name after a crash stays)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require, view_from_wire, view_to_wire
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.interface import ViewDefinition
from storage.catalogs.names import TableName

DROP_VIEW_BEFORE = crashpoints.declare("forward.drop_view.before_drop", "roll-forward is about to drop a view")


@attrs.frozen
class DropViewPayload:
    definition: ViewDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"definition": view_to_wire(self.definition)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropViewPayload:
        return cls(view_from_wire(require(data, "definition", "DROP_VIEW"), "DROP_VIEW"))


def log_drop_view(log: DDLLog, chain: int, name: TableName, identity: str | None,
                  definition: ViewDefinition) -> ActionEntry:
    return log.add_action(chain, ActionType.DROP_VIEW, name=name, tag=identity, payload=DropViewPayload(definition))


def forward_drop_view(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    payload = payload_of(action, DropViewPayload)
    views = ctx.catalog.views
    if views.view_definition(name) != payload.definition or views.view_identity(name) != action.tag:
        return
    DROP_VIEW_BEFORE()
    ctx.catalog.views.drop_view(name)


def describe(action: ActionEntry) -> str:
    return f"drop view {action.name} if it still has identity {action.tag} and the logged text"


KIND = ActionKind(ActionType.DROP_VIEW, ("VIEW",), DropViewPayload, forward_drop_view, describe, "object",
                  log_drop_view)
