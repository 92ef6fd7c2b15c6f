"""Name holds: a scheduled deletion whose directory is a table name's default one (:class:`~actions.deletions.NameHold`)
holds that name, since a new table of the name needs the directory.

The pre-flight (:func:`free_directory_of_dropped`) is a step of the plans that make a table under a name (CREATE
[OR REPLACE], RENAME TABLE, a replica's copy: :mod:`replace_table.plans`): it writes chains of its own, each a
roll-forward chain that commits in its own write, before the statement's chain C exists, so that whatever happens
to the statement after it, the versions it moved stay where they are, restorable. And after a RESTORE or UNDROP,
which directories became a table's again (:func:`claimed_locations`: their notes go)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from actions.context import ActionContext
from actions.deletions import NameHold, due_deletions, is_waiting, name_holds, pending_deletions, release_now
from actions.kinds.claim_version import ClaimVersionPayload
from actions.kinds.delete_data import DeleteDataPayload
from actions.kinds.kind import payload_of
from actions.recovery import run_due_deletions
from actions.relocation import relocate_versions
from chains.entries import ActionType
from chains.log import DDLLog
from storage.catalogs.names import TableName


def free_directory_of_dropped(ctx: ActionContext, name: TableName) -> None:
    """Before a table is created under ``name``: when the table that had the name was dropped (by any driver, plain
    Spark included) while its old versions wait for their grace period, one of them may hold ``<database>/<name>``,
    which the new table needs. Its kept versions there move aside, still restorable (:mod:`actions.relocation`);
    what cannot move (no version, or a catalog that cannot move directories) is deleted now. The caller holds the
    name's lock. Nothing to do, and no catalog call, when no deletion of ``name`` is pending."""
    if any(pending.table == name for pending in pending_deletions(ctx.log)) and not ctx.catalog.names.exists(name):
        versions = [hold for hold in _early_holds(ctx.log, name) if hold.version]
        statement = f"move the kept versions of dropped table {name} out of its directory for a new {name}"
        release_versions_early(ctx.log, relocate_versions(ctx, versions, statement), name)
        run_due_deletions(ctx, dropped=frozenset({name}))


def _early_holds(log: DDLLog, name: TableName) -> list[NameHold]:
    """The waiting deletions of dropped ``name`` at its directory, which would run early for a new ``name``."""
    now = time.time()
    early = [chain.position for chain in due_deletions(log, now, frozenset({name})) if is_waiting(log, chain, now)]
    return name_holds(log, early)


def release_versions_early(log: DDLLog, versions: list[NameHold], name: TableName) -> None:
    """Before the waiting deletions of dropped ``name`` run early: the restorable ``versions`` among them first leave
    the history, durably, in one write (:func:`~actions.deletions.release_now`), so a crash in the middle of deleting
    their files never leaves a version listed as restorable over a partial directory (UNDROP would install it)."""
    if versions:
        release_now(log, versions, f"delete the versions of dropped table {name} at its directory before a new {name}")


def claimed_locations(ctx: ActionContext, positions: Sequence[int]) -> list[str]:
    """The directories of the versions CLAIM_VERSION actions of these chains made a table's again."""
    log = ctx.log
    found = []
    for position in positions:
        if not log.is_written(position):
            continue
        for claim in log.actions_of(position):
            if claim.type is not ActionType.CLAIM_VERSION:
                continue
            version = payload_of(claim, ClaimVersionPayload).chain
            found += [payload_of(action, DeleteDataPayload).location for action in log.actions_of(version)
                      if action.type is ActionType.DELETE_DATA]
    return found
