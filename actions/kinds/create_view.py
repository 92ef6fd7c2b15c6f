"""CREATE_VIEW: CREATE [OR REPLACE] VIEW and ALTER VIEW keep the old definition in the log (as MariaDB's CREATE_VIEW
keeps a copy of the old .frm); undo puts it back, or drops the view when there was none, only while the view still
holds the definition the statement made."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, optional, payload_of, require, view_from_wire, view_to_wire
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

D = TypeVar("D", ViewDefinition, FunctionDefinition)


@attrs.frozen
class CreateViewPayload:
    """``old`` (None: there was no view) is put back while the view still holds ``new``."""

    old: ViewDefinition | None
    new: ViewDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"old": None if self.old is None else view_to_wire(self.old), "new": view_to_wire(self.new)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateViewPayload:
        return cls(optional(require(data, "old", "CREATE_VIEW"), view_from_wire, "CREATE_VIEW"),
                   view_from_wire(require(data, "new", "CREATE_VIEW"), "CREATE_VIEW"))


def log_create_view(log: DDLLog, chain: int, name: TableName, old: ViewDefinition | None,
                    new: ViewDefinition) -> ActionEntry:
    return log.add_action(chain, ActionType.CREATE_VIEW, name=name, payload=CreateViewPayload(old, new))


def restore_definition(current: D | None, old: D | None, new: D | None, *, drop: Callable[[], None],
                       recreate: Callable[[D], None]) -> None:
    """Undo of CREATE [OR REPLACE] VIEW / FUNCTION: put ``old`` back (or drop the object when there was none) while
    the object still holds ``new``, the definition this statement made; someone else's object is never touched."""
    if current == old or (current is not None and current != new):
        return
    if old is None:
        drop()
    else:
        recreate(old)


def undo_create_view(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    payload = payload_of(action, CreateViewPayload)
    restore_definition(as_made_by(ctx.catalog.views.view_definition(name), payload.new), payload.old, payload.new,
                       drop=lambda: ctx.catalog.views.drop_view(name),
                       recreate=lambda old: ctx.catalog.views.create_view(name, old, replace=True))


def as_made_by(current: ViewDefinition | None, new: ViewDefinition) -> ViewDefinition | None:
    """``current`` as the statement that made ``new`` states it: one that named no schema mode made the session's
    default, which the catalog reports by its name (``COMPENSATION``); the view is still the statement's."""
    if current is None or new.schema_mode is not None or current.schema_mode is None:
        return current
    stated = attrs.evolve(current, schema_mode=None)
    return stated if stated == new else current


def describe(action: ActionEntry) -> str:
    return f"put the old definition of view {action.name} back while it holds the new one"


KIND = ActionKind(ActionType.CREATE_VIEW, ("VIEW",), CreateViewPayload, undo_create_view, describe, "object",
                  log_create_view)
