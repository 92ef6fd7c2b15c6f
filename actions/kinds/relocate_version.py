"""RELOCATE_VERSION: a kept version of a dropped table moved out of the name's default directory (``<db>/<name>``),
which a new table of that name needs, to a sibling the DDL log reserves (:func:`~storage.catalogs.version_moves.
kept_location`), instead of being deleted before its time: its readers' grace period, a replica that has not copied
it yet and UNDROP all keep it. A roll-forward: logged (with the version's new deletion chain, whose DELETE_DATA names
the new directory) before the rename, so recovery redoes a rename a crash cut. One rename, idempotent: a directory
no longer at ``location`` was moved already (or deleted: then there is nothing to keep). Only while nothing in the
catalog uses the directory (a table registered there since, between a crash and recovery, is not ours): it is then
left alone and the version's deletion chain is cancelled, so the version leaves the history instead of being listed
over files it does not own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType, ChainState
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName

BEFORE_MOVE = crashpoints.declare("relocate_version.before_move",
                                  "a dropped table's kept version is logged at its new directory, not moved yet")
AFTER_MOVE = crashpoints.declare("relocate_version.after_move",
                                 "a dropped table's kept version was moved; the move is not marked done yet")


@attrs.frozen
class RelocateVersionPayload:
    """``location``: where the version is, ``to``: where it goes, ``deletion``: the position of its DELETE_DATA chain
    (at ``to``), cancelled when the directory turns out not to be ours."""

    location: str
    to: str
    deletion: int

    def to_wire(self) -> dict[str, Any]:
        return {"location": self.location, "to": self.to, "deletion": self.deletion}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RelocateVersionPayload:
        return cls(str(require(data, "location", "RELOCATE_VERSION")), str(require(data, "to", "RELOCATE_VERSION")),
                   int(require(data, "deletion", "RELOCATE_VERSION")))


def log_relocate_version(log: DDLLog, chain: int, owner: TableName, location: str, to: str,
                         deletion: int) -> ActionEntry:
    return log.add_action(chain, ActionType.RELOCATE_VERSION, name=owner,
                          payload=RelocateVersionPayload(location, to, deletion))


def forward_relocate_version(action: ActionEntry, ctx: ActionContext) -> None:
    owner = name_of(action)
    payload = payload_of(action, RelocateVersionPayload)
    mover = ctx.catalog.directories.version_mover()
    BEFORE_MOVE()
    kept = mover.move_directory(payload.location, payload.to, owner)
    if kept is not None:
        ctx.log.note(action.id, f"left {payload.location} in place: {kept}")
        if ctx.log.is_written(payload.deletion) and ctx.log.chain(payload.deletion).active:
            ctx.log.set_state(payload.deletion, ChainState.CANCELLED)
        return
    AFTER_MOVE()


def describe(action: ActionEntry) -> str:
    payload = payload_of(action, RelocateVersionPayload)
    return (f"move the kept version of dropped table {action.name} from {payload.location} to {payload.to} unless "
            "something uses it")


KIND = ActionKind(ActionType.RELOCATE_VERSION, ("MOVE",), RelocateVersionPayload, forward_relocate_version, describe,
                  "object", log_relocate_version)
