"""CREATE_FUNCTION: CREATE [OR REPLACE] FUNCTION keeps the old definition in the log; undo puts it back (or drops the
function) while the function still holds the definition the statement made."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.create_view import restore_definition
from actions.kinds.kind import ActionKind, function_from_wire, function_to_wire, name_of, optional, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage.catalogs.interface import FunctionDefinition
from storage.catalogs.names import TableName


@attrs.frozen
class CreateFunctionPayload:
    old: FunctionDefinition | None
    new: FunctionDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"old": None if self.old is None else function_to_wire(self.old), "new": function_to_wire(self.new)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateFunctionPayload:
        return cls(optional(require(data, "old", "CREATE_FUNCTION"), function_from_wire, "CREATE_FUNCTION"),
                   function_from_wire(require(data, "new", "CREATE_FUNCTION"), "CREATE_FUNCTION"))


def log_create_function(log: DDLLog, chain: int, name: TableName, old: FunctionDefinition | None,
                        new: FunctionDefinition) -> ActionEntry:
    return log.add_action(chain, ActionType.CREATE_FUNCTION, name=name, payload=CreateFunctionPayload(old, new))


def undo_create_function(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    payload = payload_of(action, CreateFunctionPayload)
    restore_definition(ctx.catalog.functions.function_definition(name), payload.old, payload.new,
                       drop=lambda: ctx.catalog.functions.drop_function(name),
                       recreate=lambda old: ctx.catalog.functions.create_function(name, old, replace=True))


def describe(action: ActionEntry) -> str:
    return f"put the old definition of function {action.name} back while it holds the new"


KIND = ActionKind(ActionType.CREATE_FUNCTION, ("FUNCTION",), CreateFunctionPayload, undo_create_function, describe,
                  "function", log_create_function)
