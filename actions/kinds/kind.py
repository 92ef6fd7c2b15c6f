"""What an action type is, as one record (:class:`ActionKind`): its phases, its payload, its executor, how it is
described, which metadata locks it needs, and the helper that logs it. Each type's module in :mod:`actions.kinds`
defines all of these side by side, the way MariaDB's ddl_log.cc keeps each action's writer beside its executor;
:data:`actions.kinds.KINDS` lists them, and a test checks that every action type has a whole kind.

Payloads are stored in the log as plain maps (:class:`chains.entries.ActionEntry` keeps them so) and read back here,
strictly: a missing field raises :class:`~chains.errors.PayloadError` instead of falling back to a default, because a
default changes what a replay does (a missing "old view" read as "there was no view" would make the undo drop it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol, TypeVar

import attrs

from actions.context import ActionContext
from chains.entries import ActionEntry, ActionType
from chains.errors import PayloadError
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName
from storage.errors import CatalogError

LockScope = Literal["object", "function", "database", "none"]
"""Which metadata lock an action's names take: a table or view (exclusive, its database shared), a function (the
same, in the function namespace), a database (exclusive), none (the statement's own locks cover it)."""

P = TypeVar("P", bound="Payload")
T = TypeVar("T")


class Payload(Protocol):
    """What an action carries for its type, beyond its names and tag: written as a map, read back strictly."""

    def to_wire(self) -> dict[str, Any]: ...


class PayloadClass(Protocol):
    def from_wire(self, data: Mapping[str, Any]) -> Any: ...


@attrs.frozen
class ActionKind:
    """Everything one action type is. ``phases``: the phases it passes through (FINAL is implicit);
    ``runs_last``: replayed after the chain's other actions whatever its position (DROP_INIT binlogs what the drops
    did); ``execute``: replay it, idempotently, touching only the identities the log recorded."""

    type: ActionType
    phases: tuple[str, ...]
    payload: PayloadClass
    execute: Callable[[ActionEntry, ActionContext], None]
    describe: Callable[[ActionEntry], str]
    locks: LockScope
    log: Callable[..., ActionEntry]
    runs_last: bool = False


def payload_of(action: ActionEntry, kind: type[P]) -> P:
    """The action's payload read as a ``kind`` (an executor reads only its own type's payload)."""
    data = action.payload
    if not isinstance(data, Mapping):
        raise PayloadError(f"the {action.type.value} payload of action {action.id} is not a map")
    payload: P = kind.from_wire(data)  # type: ignore[attr-defined]
    return payload


def require(data: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in data:
        raise PayloadError(f"the {what} payload has no {key!r} field")
    return data[key]


def optional(value: Any, decode: Callable[[Any, str], T], what: str) -> T | None:
    return None if value is None else decode(value, what)


def name_of(action: ActionEntry) -> TableName:
    if action.name is None:
        raise CatalogError(f"{action.type.value} action {action.id} has no object name")
    return action.name


def view_to_wire(definition: ViewDefinition) -> dict[str, Any]:
    wire = {"query": definition.query, "comment": definition.comment, "columns": list(definition.columns),
            "properties": [list(pair) for pair in definition.properties]}
    if definition.schema_mode is not None:
        wire["schema_mode"] = definition.schema_mode
    return wire


def view_from_wire(value: Any, what: str) -> ViewDefinition:
    """``properties`` and ``schema_mode`` are optional: logs written before views kept them have none."""
    properties = value.get("properties") or [] if isinstance(value, Mapping) else []
    mode = value.get("schema_mode") if isinstance(value, Mapping) else None
    return ViewDefinition(str(require(value, "query", what)), require(value, "comment", what),
                          tuple(str(c) for c in require(value, "columns", what)),
                          tuple((str(k), str(v)) for k, v in properties), None if mode is None else str(mode))


def function_to_wire(definition: FunctionDefinition) -> dict[str, Any]:
    return {"class_name": definition.class_name, "resources": [list(pair) for pair in definition.resources],
            "params": definition.params, "returns": definition.returns, "body": definition.body}


def function_from_wire(value: Any, what: str) -> FunctionDefinition:
    return FunctionDefinition(
        class_name=require(value, "class_name", what),
        resources=tuple((str(kind), str(uri)) for kind, uri in require(value, "resources", what)),
        params=require(value, "params", what),
        returns=require(value, "returns", what),
        body=require(value, "body", what),
    )
