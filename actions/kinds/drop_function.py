"""DROP_FUNCTION: a function of a DROP FUNCTION or DROP DATABASE, rolled forward: dropped only while it has the
definition the statement dropped (the metastore keeps no other identity of a function that Spark reports)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, function_from_wire, function_to_wire, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.interface import FunctionDefinition
from storage.catalogs.names import TableName

DROP_FUNCTION_BEFORE = crashpoints.declare("forward.drop_function.before_drop",
                                           "roll-forward is about to drop a function")


@attrs.frozen
class DropFunctionPayload:
    definition: FunctionDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"definition": function_to_wire(self.definition)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropFunctionPayload:
        return cls(function_from_wire(require(data, "definition", "DROP_FUNCTION"), "DROP_FUNCTION"))


def log_drop_function(log: DDLLog, chain: int, name: TableName, definition: FunctionDefinition) -> ActionEntry:
    return log.add_action(chain, ActionType.DROP_FUNCTION, name=name, payload=DropFunctionPayload(definition))


def forward_drop_function(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    payload = payload_of(action, DropFunctionPayload)
    if ctx.catalog.functions.function_definition(name) != payload.definition:
        return
    DROP_FUNCTION_BEFORE()
    ctx.catalog.functions.drop_function(name)


def describe(action: ActionEntry) -> str:
    return f"drop function {action.name} if it still has the logged definition"


KIND = ActionKind(ActionType.DROP_FUNCTION, ("FUNCTION",), DropFunctionPayload, forward_drop_function, describe,
                  "function", log_drop_function)
