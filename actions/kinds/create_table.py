"""CREATE_TABLE: a table a statement creates (TMP, or ORIG in an atomic create); undo drops it while it is still the
statement's (its tag), then any files left at its default location that are the statement's. A work table whose
data job ran on executors that can outlive the driver (``late_writes``) gets a sweep first
(:mod:`actions.kinds.sweep_table`): what a late task writes after the undo goes too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from actions.kinds.sweep_table import schedule_sweep
from actions.leftovers import clean_leftovers_of, kept_by_this_log
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import NoSuchObjectError, WrongObjectKindError

UNDO_CREATE_BEFORE_DROP = crashpoints.declare("undo.create_table.before_drop", "undo found our table, not dropped yet")
UNDO_CREATE_SWEEP_LOGGED = crashpoints.declare(
    "undo.create_table.sweep_logged", "undo logged the sweep of a work table's late writes; the table is still there")


@attrs.frozen
class CreateTablePayload:
    """``owns_location``: files at the table's default location are the statement's (no table had the name).
    ``renamed_from``: the table arrived by a rename (TMP -> ORIG), which a kill may have cut. ``late_writes``: the
    seconds a task of the statement's data job may go on writing after its driver died or the job was cancelled
    (the orphan window when the statement began; None: tasks end with the driver)."""

    owns_location: bool = False
    renamed_from: TableName | None = None
    late_writes: float | None = None

    def to_wire(self) -> dict[str, Any]:
        renamed = None if self.renamed_from is None else [self.renamed_from.db, self.renamed_from.name]
        return {"owns_location": self.owns_location, "renamed_from": renamed, "late_writes": self.late_writes}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateTablePayload:
        renamed = require(data, "renamed_from", "CREATE_TABLE")
        late = require(data, "late_writes", "CREATE_TABLE")
        return cls(bool(require(data, "owns_location", "CREATE_TABLE")),
                   None if renamed is None else TableName(str(renamed[0]), str(renamed[1])),
                   None if late is None else float(late))


def log_create_table(log: DDLLog, chain: int, name: TableName, tag: str, *, owns_location: bool,
                     renamed_from: TableName | None = None, late_writes: float | None = None) -> ActionEntry:
    return log.add_action(chain, ActionType.CREATE_TABLE, name=name, tag=tag,
                          payload=CreateTablePayload(owns_location, renamed_from, late_writes))


def owns_location(action: ActionEntry) -> bool:
    """Files at the object's default location are ours to remove: a reserved name, or the log says so."""
    return name_of(action).is_reserved or payload_of(action, CreateTablePayload).owns_location


def undo_create_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the table this statement created, if it is there and still ours; then its leftover files."""
    catalog: Catalog = ctx.catalog
    name = name_of(action)
    payload = payload_of(action, CreateTablePayload)
    if payload.renamed_from is not None:
        # The table arrived by a rename (TMP -> ORIG) that a kill may have cut between the directory move and the
        # metastore update: put the data back under TMP, whose own undo then drops it (found by the soak).
        catalog.names.settle_rename(payload.renamed_from, name)
    if payload.late_writes is not None and owns_location(action):
        # Logged before anything is removed: a crash in between can leave no directory for a late task to re-create
        # unswept.
        schedule_sweep(ctx, action, payload.late_writes)
        UNDO_CREATE_SWEEP_LOGGED()
    if action.tag is not None:
        try:
            # Only the table we created (our tag) is dropped, files included; another table holding the name stays.
            catalog.names.drop(name, expect=action.tag, before=UNDO_CREATE_BEFORE_DROP, keep_files=kept(ctx, name))
            return
        except (NoSuchObjectError, WrongObjectKindError):
            pass  # not created, or already dropped: only files can be left
    if owns_location(action):
        clean_leftovers_of(ctx, name)


def kept(ctx: ActionContext, name: TableName) -> bool:
    """Whether the table's files are kept by a scheduled deletion: a replace's new version that readers may have
    seen before its undo (:func:`actions.kinds.install_version.keep_for_readers`) leaves them for the grace
    period."""
    location = ctx.catalog.definitions.table_location(name)
    return location is not None and kept_by_this_log(ctx.log, location)


def describe(action: ActionEntry) -> str:
    payload = payload_of(action, CreateTablePayload)
    moved = (f"move the data of a cut rename back to {payload.renamed_from}, then "
             if payload.renamed_from is not None else "")
    sweep = (f"; sweep its directory again after {payload.late_writes:.0f} s (tasks that outlive the driver)"
             if payload.late_writes is not None else "")
    return f"{moved}drop table {action.name} if it still has identity {action.tag} (and its leftover files){sweep}"


KIND = ActionKind(ActionType.CREATE_TABLE, ("INIT",), CreateTablePayload, undo_create_table, describe, "object",
                  log_create_table)
