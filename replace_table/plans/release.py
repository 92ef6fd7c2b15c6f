"""RELEASE TABLE NAME: what this home keeps at a table name's default directory deleted now, the grace period of
that directory alone ended (:mod:`ddl_log.engine.release_name`).

====  ========  ================================================================================================
step  name      effect
====  ========  ================================================================================================
1     ``log``   the commit: a roll-forward chain deleting each directory, due at once, and the holds' own deletion
                chains cancelled, in one write (:func:`actions.deletions.release_now`): their versions leave the
                history at that instant, never half deleted
2     ``do``    replay it now; a failure stays logged, and the next statement or recovery deletes it
====  ========  ================================================================================================

Not binlogged: it changes no catalog object and no table's rows, only deletes files no table uses."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import attrs

from actions.context import ActionContext
from actions.deletions import NameHold, release_now
from actions.errors import ActionFailedError, CommittedWithPendingWorkWarning
from replace_table.machine import Plan, Step, run_plan
from replace_table.statement_log import StatementLog


@attrs.define
class ReleaseRun:
    log: StatementLog
    holds: Sequence[NameHold]
    location: str
    verb: str
    subject: str
    chain: int = -1
    kept: str | None = None
    """Why the directory stayed after all (something registered it meanwhile), else None."""


def log_release(run: ReleaseRun) -> None:
    run.chain = release_now(run.log.log, run.holds, run.log.statement)


def delete_now(run: ReleaseRun) -> None:
    log = run.log.log
    try:
        run.log.replay(run.chain)
    except ActionFailedError as error:  # logged: the next statement or recovery deletes it
        warnings.warn(CommittedWithPendingWorkWarning(
            f"{run.verb} {run.subject}: deleting {run.location} failed ({error}); the next statement or "
            "recovery deletes it"), stacklevel=2)
        return
    notes = [log.note_of(action.id) for action in log.actions_of(run.chain)]
    run.kept = next((note for note in notes if note), None)


RELEASE = Plan("release", [Step("log", "commit", log_release), Step("do", "retire", delete_now)],
               joins_transaction=False)


def release_holds(ctx: ActionContext, statement: str, holds: Sequence[NameHold], location: str, *, verb: str,
                  subject: str) -> str | None:
    """Delete the directories of the checked ``holds`` (at ``location``) now; why one stayed after all, if it did."""
    log = StatementLog(ctx, statement)
    run = ReleaseRun(log, holds, location, verb, subject)
    run_plan(RELEASE, run, log, verb=verb, subject=subject)
    return run.kept
