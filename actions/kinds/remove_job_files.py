"""REMOVE_JOB_FILES: the undo of an INSERT INTO written in place. Spark's own job writes the new rows straight into
the table (its files named with a job id the log chose and wrote first, :mod:`replace_table.plans.insert_into`), so
undoing the statement deletes every file named with that id under the table's directory, wherever Spark's commit
had got to (the table, a partition, a staging or ``_temporary`` directory), then drops the partitions the table did
not have before and that hold no row now (another writer's, a plain Spark job's, stays with its partition), while
the table is still the one the rows went into (its identity). Each part is idempotent: a
replay after a crash deletes what is left. On an engine whose tasks can outlive their driver, a sweep of the job's
files is logged first, due once the orphan window is over: what a late task commits after the undo goes too.

The files are found by name, not by the table that holds them: another table put under the name since (between a
crash and recovery) keeps its own files, since none carries the job's id, and keeps its partitions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from actions.kinds.sweep_table import schedule_sweep
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName

SWEEP_LOGGED = crashpoints.declare(
    "undo.remove_job_files.sweep_logged", "undo logged the sweep of an INSERT INTO job's late writes; its files are "
    "still in the table")
FILES_REMOVED = crashpoints.declare(
    "undo.remove_job_files.removed", "an uncommitted INSERT INTO's files are deleted; its new partitions are not")


@attrs.frozen
class RemoveJobFilesPayload:
    """``location``: the table's directory; ``job``: the id every file of the statement's job is named with;
    ``partitions``: the table's partitions before the statement (None: unpartitioned)."""

    location: str
    job: str
    partitions: tuple[tuple[tuple[str, str], ...], ...] | None
    late_writes: float | None = None
    """The seconds a task of the job may go on writing after its driver died or the job was cancelled (the orphan
    window when the statement began; None: tasks end with the driver): the undo then logs a sweep of the job's files,
    due once the window is over (:mod:`actions.kinds.sweep_table`)."""

    def to_wire(self) -> dict[str, Any]:
        partitions = None if self.partitions is None else [[list(pair) for pair in p] for p in self.partitions]
        return {"location": self.location, "job": self.job, "partitions": partitions, "late_writes": self.late_writes}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RemoveJobFilesPayload:
        raw, late = require(data, "partitions", "REMOVE_JOB_FILES"), require(data, "late_writes", "REMOVE_JOB_FILES")
        partitions = None if raw is None else tuple(tuple((str(c), str(v)) for c, v in p) for p in raw)
        return cls(str(require(data, "location", "REMOVE_JOB_FILES")), str(require(data, "job", "REMOVE_JOB_FILES")),
                   partitions, None if late is None else float(late))


def log_remove_job_files(log: DDLLog, chain: int, name: TableName, identity: str | None,
                         payload: RemoveJobFilesPayload) -> ActionEntry:
    return log.add_action(chain, ActionType.REMOVE_JOB_FILES, name=name, tag=identity, payload=payload)


def undo_job_files(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    payload = payload_of(action, RemoveJobFilesPayload)
    if payload.late_writes is not None:  # logged before anything is removed, as a work table's sweep
        schedule_sweep(ctx, action, payload.late_writes, location=payload.location, job=payload.job)
        SWEEP_LOGGED()
    ctx.catalog.data.file_mover().remove_job_files(name, payload.location, payload.job)
    FILES_REMOVED()
    if payload.partitions is None or ctx.catalog.names.identity(name) != action.tag:
        return
    before = {tuple(p) for p in payload.partitions}
    new = [p for p in ctx.catalog.definitions.list_partitions(name) if tuple(p.items()) not in before]
    if not new:
        return
    held = ctx.catalog.data.file_mover().partitions_holding_rows(name, payload.location,
                                                                  [tuple(p.items()) for p in new])
    for partition in new:  # another writer's rows in a partition new since (a plain Spark job) keep it
        if tuple(partition.items()) not in held:
            ctx.catalog.definitions.drop_partition(name, partition)


def describe(action: ActionEntry) -> str:
    payload = payload_of(action, RemoveJobFilesPayload)
    partitions = ("" if payload.partitions is None else
                  f", then drop the partitions beyond its {len(payload.partitions)} if it still has identity "
                  f"{action.tag}")
    return f"delete the files of INSERT INTO job {payload.job} under {payload.location} ({action.name}){partitions}"


KIND = ActionKind(ActionType.REMOVE_JOB_FILES, ("INIT",), RemoveJobFilesPayload, undo_job_files, describe, "object",
                  log_remove_job_files)
