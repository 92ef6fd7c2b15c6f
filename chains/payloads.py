"""Typed payloads: what each action type carries beyond its names and tag, one class per action type.

Written and read here only. Reading is strict: a missing field raises :class:`PayloadError` instead of falling back
to a default, because a default changes what a replay does (a missing "old view" read as "there was no view" would
make the undo drop the view).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs

from chains.entries import ActionEntry, ActionPayload, ActionType
from chains.errors import PayloadError
from storage.catalogs.interface import Column, FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

T = TypeVar("T")


# ------------------------------------------------------------------------------------------------ field codecs


def _require(data: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in data:
        raise PayloadError(f"the {what} payload has no {key!r} field")
    return data[key]


def _view_to_wire(definition: ViewDefinition) -> dict[str, Any]:
    return {"query": definition.query, "comment": definition.comment, "columns": list(definition.columns)}


def _view_from_wire(value: Any, what: str) -> ViewDefinition:
    return ViewDefinition(str(_require(value, "query", what)), _require(value, "comment", what),
                          tuple(str(c) for c in _require(value, "columns", what)))


def _function_to_wire(definition: FunctionDefinition) -> dict[str, Any]:
    return {"class_name": definition.class_name, "resources": [list(pair) for pair in definition.resources],
            "params": definition.params, "returns": definition.returns, "body": definition.body}


def _function_from_wire(value: Any, what: str) -> FunctionDefinition:
    return FunctionDefinition(
        class_name=_require(value, "class_name", what),
        resources=tuple((str(kind), str(uri)) for kind, uri in _require(value, "resources", what)),
        params=_require(value, "params", what),
        returns=_require(value, "returns", what),
        body=_require(value, "body", what),
    )


def _optional(value: Any, decode: Callable[[Any, str], T], what: str) -> T | None:
    return None if value is None else decode(value, what)


# ------------------------------------------------------------------------------------------------ payloads


@attrs.frozen
class CreateTablePayload:
    """Undo of a table this statement creates. ``renamed_from``: the table arrived by a rename (TMP -> ORIG)."""

    owns_location: bool = False
    renamed_from: TableName | None = None

    def to_wire(self) -> dict[str, Any]:
        renamed = None if self.renamed_from is None else [self.renamed_from.db, self.renamed_from.name]
        return {"owns_location": self.owns_location, "renamed_from": renamed}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateTablePayload:
        renamed = _require(data, "renamed_from", "CREATE_TABLE")
        return cls(bool(_require(data, "owns_location", "CREATE_TABLE")),
                   None if renamed is None else TableName(str(renamed[0]), str(renamed[1])))


@attrs.frozen
class RenameTablePayload:
    """Undo of a rename. ``owns_location``: files left at the source name's default location are ours."""

    owns_location: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"owns_location": self.owns_location}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RenameTablePayload:
        return cls(bool(_require(data, "owns_location", "RENAME_TABLE")))


@attrs.frozen
class SwapTablePayload:
    """Undo of a definition swap: ORIG (the entry's name, identity ``tag`` before the swap) took the definition of
    TMP (``from_name``, identity ``new_tag``), and TMP became the holder of ORIG's old definition (identity
    ``holder_tag``). ``orig_tag``: ORIG's own tag property before the swap (None: it had none), put back on undo."""

    new_tag: str
    holder_tag: str
    orig_tag: str | None

    def to_wire(self) -> dict[str, Any]:
        return {"new_tag": self.new_tag, "holder_tag": self.holder_tag, "orig_tag": self.orig_tag}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SwapTablePayload:
        orig_tag = _require(data, "orig_tag", "SWAP_TABLE")
        return cls(str(_require(data, "new_tag", "SWAP_TABLE")), str(_require(data, "holder_tag", "SWAP_TABLE")),
                   None if orig_tag is None else str(orig_tag))


@attrs.frozen
class DeleteDataPayload:
    """A table version's directory, deleted once ``due`` (seconds since the epoch) has come: readers that listed
    its files before the swap finish with them."""

    location: str
    due: float

    def to_wire(self) -> dict[str, Any]:
        return {"location": self.location, "due": self.due}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DeleteDataPayload:
        return cls(str(_require(data, "location", "DELETE_DATA")), float(_require(data, "due", "DELETE_DATA")))


@attrs.frozen
class DropInitPayload:
    """First in a roll-forward chain, replayed last: binlogs ``statement`` for ``objects`` once the rest is done."""

    statement: str
    objects: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"binlog": self.statement, "objects": list(self.objects)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropInitPayload:
        return cls(str(_require(data, "binlog", "DROP_INIT")),
                   tuple(str(o) for o in _require(data, "objects", "DROP_INIT")))


@attrs.frozen
class DropPayload:
    """DROP_TABLE and DROP_DB: ``keep_files``: the object leaves the catalog but its files stay, for readers that
    resolved it just before (their deletion is a DELETE_DATA chain of the same statement, due after the grace
    period); else they go with it (``DROP TABLE ... PURGE``)."""

    keep_files: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"keep_files": self.keep_files}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropPayload:
        return cls(bool(_require(data, "keep_files", "DROP")))


@attrs.frozen
class NoPayload:
    """FORGET_TABLE carries all it needs in the entry's name and identity tag."""

    def to_wire(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> NoPayload:
        return cls()


@attrs.frozen
class DropViewPayload:
    """The view the statement drops: replay drops the view only while it still has this definition (and the
    identity in the entry's tag)."""

    definition: ViewDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"definition": _view_to_wire(self.definition)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropViewPayload:
        return cls(_view_from_wire(_require(data, "definition", "DROP_VIEW"), "DROP_VIEW"))


@attrs.frozen
class DropFunctionPayload:
    """The function the statement drops: replay drops the function only while it has this definition."""

    definition: FunctionDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"definition": _function_to_wire(self.definition)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropFunctionPayload:
        return cls(_function_from_wire(_require(data, "definition", "DROP_FUNCTION"), "DROP_FUNCTION"))


@attrs.frozen
class CreateViewPayload:
    """Undo of CREATE [OR REPLACE] / ALTER VIEW: ``old`` (None: there was no view) is put back while the view still
    holds ``new``."""

    old: ViewDefinition | None
    new: ViewDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"old": None if self.old is None else _view_to_wire(self.old), "new": _view_to_wire(self.new)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateViewPayload:
        return cls(_optional(_require(data, "old", "CREATE_VIEW"), _view_from_wire, "CREATE_VIEW"),
                   _view_from_wire(_require(data, "new", "CREATE_VIEW"), "CREATE_VIEW"))


@attrs.frozen
class RenameViewPayload:
    """Undo of a view rename: moved back only while the view under the new name has this definition."""

    definition: ViewDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"definition": _view_to_wire(self.definition)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RenameViewPayload:
        return cls(_view_from_wire(_require(data, "definition", "RENAME_VIEW"), "RENAME_VIEW"))


@attrs.frozen
class CreateFunctionPayload:
    """Undo of CREATE [OR REPLACE] FUNCTION, as :class:`CreateViewPayload`."""

    old: FunctionDefinition | None
    new: FunctionDefinition

    def to_wire(self) -> dict[str, Any]:
        return {"old": None if self.old is None else _function_to_wire(self.old),
                "new": _function_to_wire(self.new)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateFunctionPayload:
        return cls(_optional(_require(data, "old", "CREATE_FUNCTION"), _function_from_wire, "CREATE_FUNCTION"),
                   _function_from_wire(_require(data, "new", "CREATE_FUNCTION"), "CREATE_FUNCTION"))


@attrs.frozen
class CreateDatabasePayload:
    """Undo of CREATE DATABASE. ``owns_location``: no directory was there before, so a leftover one is ours."""

    owns_location: bool

    def to_wire(self) -> dict[str, Any]:
        return {"owns_location": self.owns_location}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateDatabasePayload:
        return cls(bool(_require(data, "owns_location", "CREATE_DB")))


# ALTER TABLE: one payload class, one change per kind. Undo kinds restore, forward kinds apply.


@attrs.frozen
class RestoreProperties:
    """Undo: the old value of every key the statement set or unset (None: the key was not there)."""

    old: tuple[tuple[str, str | None], ...]


@attrs.frozen
class RestoreColumnComment:
    column: str
    old: str | None


@attrs.frozen
class AddColumnsChange:
    columns: tuple[Column, ...]
    text: str | None = None
    """The column list as the statement wrote it (what Spark runs; ``columns`` names what it adds); None: only the
    parsed columns (then rendered from ``columns``)."""


@attrs.frozen
class PartitionChange:
    add: bool
    spec: tuple[tuple[str, str], ...]


AlterChange = RestoreProperties | RestoreColumnComment | AddColumnsChange | PartitionChange


@attrs.frozen
class AlterTablePayload:
    change: AlterChange

    @property
    def kind(self) -> str:
        change = self.change
        if isinstance(change, RestoreProperties):
            return "properties"
        if isinstance(change, RestoreColumnComment):
            return "column_comment"
        if isinstance(change, AddColumnsChange):
            return "add_columns"
        return "add_partition" if change.add else "drop_partition"

    def to_wire(self) -> dict[str, Any]:
        change = self.change
        data: dict[str, Any] = {"kind": self.kind}
        if isinstance(change, RestoreProperties):
            data["old"] = [list(pair) for pair in change.old]
        elif isinstance(change, RestoreColumnComment):
            data.update(column=change.column, old=change.old)
        elif isinstance(change, AddColumnsChange):
            data["columns"] = [[c.name, c.type, c.comment] for c in change.columns]
            data["text"] = change.text
        else:
            data["spec"] = [list(pair) for pair in change.spec]
        return data

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> AlterTablePayload:
        what = "ALTER_TABLE"
        kind = _require(data, "kind", what)
        change: AlterChange
        if kind == "properties":
            change = RestoreProperties(tuple((str(k), v) for k, v in _require(data, "old", what)))
        elif kind == "column_comment":
            change = RestoreColumnComment(str(_require(data, "column", what)), _require(data, "old", what))
        elif kind == "add_columns":
            columns = tuple(Column(str(n), str(t), c) for n, t, c in _require(data, "columns", what))
            change = AddColumnsChange(columns, _require(data, "text", what))
        elif kind in ("add_partition", "drop_partition"):
            change = PartitionChange(kind == "add_partition",
                                     tuple((str(k), str(v)) for k, v in _require(data, "spec", what)))
        else:
            raise PayloadError(f"unknown ALTER_TABLE change kind {kind!r}")
        return cls(change)


Payload = (CreateTablePayload | RenameTablePayload | DropInitPayload | DropPayload | NoPayload | DropViewPayload
           | DropFunctionPayload | CreateViewPayload | RenameViewPayload | CreateFunctionPayload
           | CreateDatabasePayload | AlterTablePayload | SwapTablePayload | DeleteDataPayload)

PAYLOAD_TYPES: dict[ActionType, type[Any]] = {
    ActionType.CREATE_TABLE: CreateTablePayload,
    ActionType.RENAME_TABLE: RenameTablePayload,
    ActionType.DROP_INIT: DropInitPayload,
    ActionType.DROP_TABLE: DropPayload,
    ActionType.DROP_VIEW: DropViewPayload,
    ActionType.DROP_FUNCTION: DropFunctionPayload,
    ActionType.DROP_DB: DropPayload,
    ActionType.CREATE_VIEW: CreateViewPayload,
    ActionType.RENAME_VIEW: RenameViewPayload,
    ActionType.CREATE_FUNCTION: CreateFunctionPayload,
    ActionType.ALTER_TABLE: AlterTablePayload,
    ActionType.CREATE_DB: CreateDatabasePayload,
    ActionType.SWAP_TABLE: SwapTablePayload,
    ActionType.FORGET_TABLE: NoPayload,
    ActionType.DELETE_DATA: DeleteDataPayload,
}
"""The one payload class of every action type."""


def check_payload(action_type: ActionType, payload: ActionPayload) -> None:
    expected = PAYLOAD_TYPES[action_type]
    if type(payload) is not expected:
        raise PayloadError(f"a {action_type.value} action takes a {expected.__name__}, not {type(payload).__name__}")


def default_payload(action_type: ActionType) -> Payload:
    """The payload of a type whose fields all have defaults; :class:`PayloadError` for one that must be given."""
    try:
        payload: Payload = PAYLOAD_TYPES[action_type]()
    except TypeError:
        raise PayloadError(f"a {action_type.value} action needs its payload") from None
    return payload


def payload_to_wire(action_type: ActionType, payload: ActionPayload) -> dict[str, Any]:
    check_payload(action_type, payload)
    return payload.to_wire()


def payload_from_wire(action_type: ActionType, data: Mapping[str, Any] | None) -> Payload:
    if not isinstance(data, Mapping):
        raise PayloadError(f"the {action_type.value} payload is not a map")
    payload: Payload = PAYLOAD_TYPES[action_type].from_wire(data)
    return payload


P = TypeVar("P")


def payload_of(action: ActionEntry, kind: type[P]) -> P:
    """The action's payload, checked to be a ``kind`` (an executor reads only its own type's payload)."""
    payload = action.payload
    if not isinstance(payload, kind):
        raise PayloadError(f"{action.type.value} action {action.id} carries a {type(payload).__name__}, "
                           f"not a {kind.__name__}")
    return payload
