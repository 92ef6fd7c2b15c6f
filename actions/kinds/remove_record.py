"""REMOVE_RECORD: a schema swap takes a table's record out of its database, never its files, after the other
database's table of that name was made from the same definition (INSTALL_VERSION with no previous one): the table
moved to the other database by its metastore record, its data where it was. Undo: while the name is free, the record
back from the logged definition, with its identity (its files are the ones it had; the other name's copy of the
record is removed by that INSTALL_VERSION's own undo)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_REMOVE_BEFORE = crashpoints.declare(
    "undo.remove_record.before", "undo is about to put a table's removed record back")


@attrs.frozen
class RemoveRecordPayload:
    """``definition``: the table's whole definition (``Versions.version_of``) when its record was removed."""

    definition: str

    def to_wire(self) -> dict[str, Any]:
        return {"definition": self.definition}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RemoveRecordPayload:
        return cls(str(require(data, "definition", "REMOVE_RECORD")))


def log_remove_record(log: DDLLog, chain: int, name: TableName, tag: str, definition: str) -> ActionEntry:
    return log.add_action(chain, ActionType.REMOVE_RECORD, name=name, tag=tag,
                          payload=RemoveRecordPayload(definition))


def undo_remove_record(action: ActionEntry, ctx: ActionContext) -> None:
    """Only a free name gets the record back: a table or view made under it since is left alone."""
    name = name_of(action)
    if action.tag is None:
        raise CatalogError(f"remove action {action.id} lacks its identity", str(name))
    if ctx.catalog.names.identity(name) is not None or ctx.catalog.views.view_definition(name) is not None:
        return  # not removed yet, or put back already, or someone else's object
    UNDO_REMOVE_BEFORE()
    ctx.catalog.versions.install_version(name, payload_of(action, RemoveRecordPayload).definition, action.tag,
                                         create=True)


def describe(action: ActionEntry) -> str:
    return f"while the name {action.name} is free: its table's record back (identity {action.tag}), files untouched"


KIND = ActionKind(ActionType.REMOVE_RECORD, ("RECORD",), RemoveRecordPayload, undo_remove_record, describe,
                  "object", log_remove_record)
