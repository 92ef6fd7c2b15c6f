"""MOVE_FILES: after an INSERT INTO commits, the files its work table holds are moved into the table one by one,
then the partitions the table lacks are registered (in one call) and the session refreshed; a roll-forward, which
recovery finishes after a crash (each move is idempotent: a file already in place is not moved again). Only while
the table is the one the statement added rows to (its identity): another table put under the name since (between a
crash and recovery) gets nothing; the action fails, is retried, and on the last try is given up on like a refused
DROP (reported as "gave up on"), and the work table leaves with the files no table of theirs can take.

Undo needs nothing of it: before the commit point the files are only in the work table, whose CREATE_TABLE undo
drops it with them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.file_moves import FileMove, MovePlan, PartitionValues
from storage.catalogs.names import TableName
from storage.errors import CatalogError

BETWEEN_MOVES = crashpoints.declare(
    "insert.move.between", "a committed INSERT INTO: some of its files are in the table, the next one is not yet")
MOVED = crashpoints.declare(
    "insert.move.moved", "a committed INSERT INTO: every file is in the table; its new partitions are not registered")


def _values(raw: Any) -> PartitionValues:
    return tuple((str(column), str(value)) for column, value in raw)


@attrs.frozen
class MoveFilesPayload:
    """The plan (:class:`~storage.catalogs.file_moves.MovePlan`): the table's directory, every file with where it
    goes, the work table's partitions."""

    plan: MovePlan

    def to_wire(self) -> dict[str, Any]:
        return {"location": self.plan.location,
                "moves": [[m.source, m.target, [list(p) for p in m.partition]] for m in self.plan.moves],
                "partitions": [[list(p) for p in partition] for partition in self.plan.partitions]}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> MoveFilesPayload:
        moves = tuple(FileMove(str(source), str(target), _values(partition))
                      for source, target, partition in require(data, "moves", "MOVE_FILES"))
        partitions = tuple(_values(p) for p in require(data, "partitions", "MOVE_FILES"))
        return cls(MovePlan(str(require(data, "location", "MOVE_FILES")), moves, partitions))


def log_move_files(log: DDLLog, chain: int, name: TableName, identity: str | None, plan: MovePlan) -> ActionEntry:
    return log.add_action(chain, ActionType.MOVE_FILES, name=name, tag=identity, payload=MoveFilesPayload(plan))


def forward_move_files(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    plan = payload_of(action, MoveFilesPayload).plan
    mover = ctx.catalog.data.file_mover()
    identity = ctx.catalog.names.identity(name)
    if identity != action.tag:
        raise CatalogError(f"{name} is not the table the committed INSERT INTO added rows to (identity "
                           f"{action.tag}, now {identity}): none of its {len(plan.moves)} files goes into it",
                           str(name))
    for index, move in enumerate(plan.moves):
        if index:
            BETWEEN_MOVES()
        mover.move_file(move)
    MOVED()
    mover.moves_done(name, plan)


def describe(action: ActionEntry) -> str:
    plan = payload_of(action, MoveFilesPayload).plan
    return (f"move the {len(plan.moves)} files of a committed INSERT INTO into {action.name} ({plan.location}) if it "
            f"still has identity {action.tag}, then register the partitions it lacks of {len(plan.partitions)}")


KIND = ActionKind(ActionType.MOVE_FILES, ("MOVE",), MoveFilesPayload, forward_move_files, describe, "object",
                  log_move_files)
