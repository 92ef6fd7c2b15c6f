"""The shape every undo-protected statement shares: log an action, do it, repeat; commit; or, on any error before
the commit point, replay the undo chain and raise :class:`StatementFailedError` (no side effect remains). Whether an
error came before or after the commit point is decided in :mod:`actions.commit_or_undo`, for the replace machine
too."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.errors import CommittedWithPendingWorkWarning, StatementFailedError
from actions.kinds.delete_data import KeptVersion, log_delete_data
from actions.kinds.drop_init import dropped_object_name
from actions.replay import replay_chain
from chains.binlog import BinlogEvent
from chains.commit import commit_chain, committed_event
from chains.entries import ActionType, ChainKind
from chains.log import DDLLog
from chains.versions import VersionRecord
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.crashpoints import CrashPoint


def step_points(prefix: str, step: str) -> tuple[CrashPoint, CrashPoint]:
    return (crashpoints.declare(f"{prefix}.{step}.before", f"{prefix}: before {step}"),
            crashpoints.declare(f"{prefix}.{step}.after", f"{prefix}: after {step}"))


@attrs.frozen
class StatementPoints:
    """The crash points of one statement kind, declared at import so ``ddl-log crash-points`` lists them all:
    around each log write (``<prefix>.log.*``) and each catalog operation (``<prefix>.do.*``)."""

    log: tuple[CrashPoint, CrashPoint]
    do: tuple[CrashPoint, CrashPoint]

    @classmethod
    def declare(cls, prefix: str) -> StatementPoints:
        return cls(step_points(prefix, "log"), step_points(prefix, "do"))


class UndoStatement:
    """Drive one statement: ``logged(...)`` pairs a log write with the operation it protects."""

    def __init__(self, ctx: ActionContext, verb: str, subject: str, statement: str, points: StatementPoints) -> None:
        self.ctx = ctx
        self.verb = verb
        self.subject = subject
        self.statement = statement
        self.log_points = points.log
        self.do_points = points.do
        self.position = ctx.log.new_chain(ChainKind.UNDO, statement)
        self.version: VersionRecord | None = None
        """The table version the statement installed, for its binlog event (set by the body, before the commit)."""
        self.xid: int | None = None
        """The statement's XID when it took one before its commit (it numbers the table version it makes)."""

    def logged(self, log_action: Callable[[int], object], operation: Callable[[], Any]) -> None:
        """``log_action(chain)`` logs the action (a kind's helper, :mod:`actions.kinds`); ``operation`` does it."""
        before, after = self.log_points
        before()
        log_action(self.position)
        after()
        before, after = self.do_points
        before()
        operation()
        after()

    def commit(self, objects: tuple[str, ...]) -> BinlogEvent | None:
        return commit_chain(self.ctx.log, self.ctx.binlog, self.position, self.statement, objects,
                            version=self.version, xid=self.xid)

    def fail(self, cause: Exception) -> StatementFailedError | None:
        """Handle an error: None if the statement had already committed, else the error to raise after undo."""
        return undo_unless_committed(self.ctx, self.position, cause, verb=self.verb, subject=self.subject)

    def run(self, body: Callable[[UndoStatement], tuple[str, ...]]) -> BinlogEvent | None:
        """Run ``body`` (which returns the objects to binlog), then commit; undo on error. A failure after the
        commit point is reported as a :class:`CommittedWithPendingWorkWarning` (the statement succeeded; recovery
        closes the chain), and the statement's binlog event is returned."""
        try:
            objects = body(self)
            return self.commit(objects)
        except Exception as exc:
            error = self.fail(exc)
            if error is None:
                warnings.warn(CommittedWithPendingWorkWarning(
                    f"{self.verb} {self.subject} committed; closing its log chain failed ({exc}): recovery closes it"
                ), stacklevel=2)
                return committed_event(self.ctx.log, self.ctx.binlog, self.position)
            raise error from exc


@attrs.frozen
class KeptFiles:
    """Files a roll-forward chain leaves in place: ``owner``'s directory ``location``, deleted at ``due``; while
    ``version`` is set they are a restorable table version (UNDROP)."""

    owner: TableName
    location: str
    due: float
    version: KeptVersion | None = None


def run_forward_chain(ctx: ActionContext, statement: str, actions: Sequence[Callable[[DDLLog, int], object]],
                      points: StatementPoints, *, verb: str,
                      kept_files: Sequence[KeptFiles] = ()) -> BinlogEvent | None:
    """Log a roll-forward chain in one durable write (its commit point), then replay it live; its binlog event.

    ``actions``: ``log_action(log, chain)`` each (a kind's helper, :mod:`actions.kinds`), in replay order. Once
    logged the chain always completes: if the process dies, recovery finishes it and binlogs it as generated. An
    object the engine refuses to drop is given up on: the others are dropped, the binlog names only those, and
    :class:`StatementFailedError` (with ``completed``) tells the caller. ``kept_files``: (object, directory) whose
    files the chain leaves for readers; their deletion chains (DELETE_DATA, due when said, each
    proving when it runs that nothing uses the directory; a version when it is one) are logged in the same write.
    """
    before, after = points.log
    log = ctx.log
    position = log.new_chain(ChainKind.FORWARD, statement)
    before()
    with log.batch():
        for kept in kept_files:
            log_delete_data(log, log.new_chain(ChainKind.FORWARD, statement), kept.owner, kept.location, kept.due,
                            kept.version)
        for log_action in actions:
            log_action(log, position)
    after()
    written = len(ctx.events)
    outcome = replay_chain(ctx, position, skip_failures=True)
    if outcome.skipped:
        failed = ", ".join(dropped_object_name(f.action) for f in outcome.skipped)
        done = tuple(dropped_object_name(a) for a in outcome.ran if a.type is not ActionType.DROP_INIT)
        raise StatementFailedError(verb, failed, outcome.skipped[0].cause, completed=done) from outcome.skipped[0]
    return ctx.events[-1] if len(ctx.events) > written else None
