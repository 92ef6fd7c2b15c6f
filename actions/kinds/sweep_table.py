"""SWEEP_TABLE: the work table (TMP) of an undone statement, removed once more when no task of that statement can
write any more. The undo removed TMP and its directory; on a cluster an executor that outlived its driver (or a task
of a cancelled job) may still be writing there, and its next file re-creates the directory. The undo therefore logs
this sweep first, due once the statement's orphan window is over (:meth:`actions.context.ActionContext.orphan_window`,
recorded in the TMP's CREATE_TABLE when the statement began): then TMP is dropped if it is there again with the
statement's tag, and whatever sits at its directory goes. Until it is due its chain is *waiting*, as a scheduled
deletion is (:mod:`actions.deletions`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from actions.leftovers import clean_leftovers_of
from chains.entries import ActionEntry, ActionType, ChainKind
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import NoSuchObjectError

SWEEP_BEFORE = crashpoints.declare("forward.sweep_table.before_sweep",
                                   "an undone statement's orphan window is over; its work table not swept yet")


@attrs.frozen
class SweepTablePayload:
    """``location``: the work table's directory (what ``ddl-log status`` shows); ``due``: seconds since the epoch
    when no task of the undone statement can write any more. ``job``: an undone INSERT INTO written in place: the
    sweep deletes the files named with that job id under ``location`` (the table's directory), nothing else
    (optional on the wire: sweeps logged before it have none)."""

    location: str
    due: float
    job: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"location": self.location, "due": self.due}
        if self.job is not None:
            wire["job"] = self.job
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SweepTablePayload:
        job = data.get("job")
        return cls(str(require(data, "location", "SWEEP_TABLE")), float(require(data, "due", "SWEEP_TABLE")),
                   None if job is None else str(job))


def log_sweep_table(log: DDLLog, chain: int, name: TableName, tag: str | None, location: str,
                    due: float, job: str | None = None) -> ActionEntry:
    return log.add_action(chain, ActionType.SWEEP_TABLE, name=name, tag=tag,
                          payload=SweepTablePayload(location, due, job))


def schedule_sweep(ctx: ActionContext, undone: ActionEntry, window: float, *, location: str | None = None,
                   job: str | None = None) -> bool:
    """Log the sweep of the work table ``undone`` created (or, with ``job``, of that job's files at ``location``):
    a chain of its own, due ``window`` seconds from now, unless one is logged already (an undo replayed again after
    a crash); True when this call logged it."""
    name = name_of(undone)
    location = location if job is not None else ctx.catalog.names.default_location(name)
    if location is None or any(action.type is ActionType.SWEEP_TABLE and action.name == name and not action.done
                               and payload_of(action, SweepTablePayload).job == job
                               for chain in ctx.log.active_chains() for action in ctx.log.actions_of(chain.position)):
        return False
    statement = ctx.log.chain(undone.chain).statement
    position = ctx.log.new_chain(ChainKind.FORWARD, f"sweep after undo: {statement}")
    log_sweep_table(ctx.log, position, name, undone.tag, location, time.time() + window, job)
    return True


def forward_sweep_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the work table if a late write made it again with the statement's tag (files included), then remove
    whatever a late task left at its directory while no table holds the name."""
    name = name_of(action)
    SWEEP_BEFORE()
    payload = payload_of(action, SweepTablePayload)
    if payload.job is not None:  # an INSERT INTO written in place: its job's files only, wherever they are
        ctx.catalog.data.file_mover().remove_job_files(name, payload.location, payload.job)
        return
    if action.tag is not None:
        with contextlib.suppress(NoSuchObjectError):
            ctx.catalog.names.drop(name, expect=action.tag)
    clean_leftovers_of(ctx, name)


def describe(action: ActionEntry) -> str:
    payload = payload_of(action, SweepTablePayload)
    location = payload.location
    if payload.job is not None:
        return (f"once no task of the undone INSERT INTO can write: delete the files of its job {payload.job} under "
                f"{location}")
    return (f"once no task of the undone statement can write: drop table {action.name} if it has identity "
            f"{action.tag}, and remove what late tasks wrote at {location}")


KIND = ActionKind(ActionType.SWEEP_TABLE, ("SWEEP",), SweepTablePayload, forward_sweep_table, describe, "object",
                  log_sweep_table)
