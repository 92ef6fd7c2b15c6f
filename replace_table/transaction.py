"""A DDL transaction: several statements, one commit point (issue 39), on the statement machine's commit seam.

Each statement runs its machine's ``build`` (:class:`~replace_table.machine.StatementMachine`) on its own chain C,
as it would alone up to its first publishing step: its new version is made aside (a replace's TMP table, built and
filled), logged to be undone, and nobody sees it; its publishing and its commit are deferred. A roll-forward statement
(DROP) logs its chain linked to the transaction's anchor (an empty undo chain written for it), so it runs only once
the anchor is closed and is cancelled when the anchor is undone; its kept files' deletions are linked likewise, and
it binlogs nothing of its own (its event is in the group).

COMMIT (:meth:`Transaction.commit`): each statement publishes, in statement order (the rest of its steps: a name
pointed at its new version, a view written, a rename; the first to the last of these is the publish window), every
deferred commit step runs (collecting its event instead of writing it), then the group commit: every C and the
anchor given the transaction's one XID in one durable log write, one binlog write holding every statement's event
(the commit point), every chain closed in one durable write; then each statement's ``retire``. A failing statement,
ROLLBACK, or an error anywhere before the commit point (a publishing step too) reverts the machines in reverse order
and undoes the anchor. Recovery needs nothing new: every chain of the group holds the one XID, so "is it in the
binlog?" has one answer for all of them (undo every C and the anchor, which cancels the linked chains; or close
them all and run the linked ones).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import attrs

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.errors import TransactionAbortedError, TransactionStateError
from chains.binlog import BinlogEvent, BinlogLike
from chains.entries import ChainKind
from chains.log import DDLLog
from chains.version_records import AddedFiles, VersionRecord
from storage import crashpoints

if TYPE_CHECKING:
    from replace_table.machine import StatementMachine
    from replace_table.statement_log import StatementLog

BEFORE_PUBLISH = crashpoints.declare("txn.commit.before_publish", "COMMIT began: every statement of the transaction "
                                     "is built aside, none published yet")
BEFORE_XID = crashpoints.declare("txn.commit.before_xid", "every statement of the transaction is prepared; no chain "
                                 "holds the transaction's XID yet")
BEFORE_BINLOG = crashpoints.declare("txn.commit.before_binlog", "every chain of the transaction holds its XID "
                                    "(one durable write); the group's binlog record is not written yet")
AFTER_BINLOG = crashpoints.declare("txn.commit.after_binlog", "the group's binlog record is durable: the "
                                   "transaction committed; its chains are not closed yet")
AFTER_CLOSE = crashpoints.declare("txn.commit.after_close", "every chain of the transaction is closed (one durable "
                                  "write); the statements' retire steps have not run")
AFTER_RETIRE = crashpoints.declare("txn.commit.after_retire", "one statement of the committed transaction retired "
                                   "(its old version dropped, its forward chain run)")
BEFORE_ROLLBACK = crashpoints.declare("txn.rollback.before", "the transaction is rolling back; no statement of it "
                                      "is undone yet")

ANCHOR_STATEMENT = "START TRANSACTION"

State = Literal["open", "committed", "rolled_back", "aborted"]


@attrs.define
class Member:
    """One statement's part of the group commit: its C (None for a roll-forward statement, whose chain hangs on the
    anchor) and the event it would have binlogged alone."""

    log: StatementLog
    order: int
    """The statement's place in the transaction: the group's events are in statement order."""
    position: int | None
    objects: tuple[str, ...]
    version: VersionRecord | None = None
    added: AddedFiles | None = None


@attrs.frozen
class Committed:
    """What COMMIT did: the group's events (empty with the binlog off or nothing inside), and the statements whose
    retire step failed after the commit point (recovery finishes them)."""

    events: tuple[BinlogEvent, ...]
    retire_errors: tuple[Exception, ...] = ()
    publish_seconds: float = 0.0
    """The publish window: from the first statement's publishing step to the end of the last one's (what a reader
    of two of the transaction's objects may see half done)."""


class Transaction:
    """An open DDL transaction on one log and binlog (``binlog`` None: off). Statements join it through their
    context (:attr:`ActionContext.transaction`); the caller holds their locks and the log's ownership until it ends."""

    def __init__(self, ctx: ActionContext) -> None:
        self.ctx = ctx
        self.log: DDLLog = ctx.log
        self.binlog: BinlogLike | None = ctx.binlog
        self.state: State = "open"
        self.machines: list[StatementMachine[Any]] = []
        self.members: list[Member] = []
        self.changed: dict[str, str] = {}
        """Every object key a statement of the transaction changed, to the statement that did (its label)."""
        self.abort_cause: BaseException | None = None
        self._xid: int | None = None
        self._anchor: int | None = None
        self._committing: StatementMachine[Any] | None = None
        self._at_commit_point = False
        self._published = 0
        """How many of :attr:`machines` published already (:meth:`publish_built`; the rest publish at COMMIT)."""

    @property
    def xid(self) -> int:
        """The one XID of every chain of the transaction (allocated on first use)."""
        if self._xid is None:
            self._xid = self.log.allocate_id() if self.binlog is None else self.binlog.new_xid()
        return self._xid

    def anchor(self) -> int:
        """The anchor chain (durable on first use): the master of the transaction's roll-forward chains."""
        if self._anchor is None:
            self._anchor = self.log.new_chain(ChainKind.UNDO, ANCHOR_STATEMENT)
            self.log.write_head(self._anchor)
        return self._anchor

    def check_open(self, what: str) -> None:
        if self.state == "aborted":
            raise TransactionAbortedError(what, self.abort_cause)
        if self.state != "open":
            raise TransactionStateError(what, f"the transaction is {self.state.replace('_', ' ')}")

    # ------------------------------------------------------------------ statements joining

    def enlist(self, machine: StatementMachine[Any]) -> None:
        """Build one statement inside the transaction, aside (a roll-forward one: its chain written, linked to the
        anchor); on an error the whole transaction rolls back and the statement's own error is raised."""
        self.check_open(machine.verb)
        try:
            machine.build()
            if machine.plan.rolls_forward:  # its chain is its commit, held by the anchor
                machine.commit()
                assert machine.log.chain_c is not None
                self.members.append(Member(machine.log, len(self.machines), None, machine.log.forward_objects))
        except Exception as exc:  # noqa: BLE001 - the statement's own error, raised after the rollback
            self.abort(exc, failing=machine)
        self.machines.append(machine)

    def deferred_commit(self, log: StatementLog, objects: tuple[str, ...], version: VersionRecord | None,
                        added: AddedFiles | None) -> None:
        """A statement's commit step, run by :meth:`commit`: its event collected for the group."""
        order = self.machines.index(self._committing) if self._committing is not None else len(self.machines)
        self.members.append(Member(log, order, log.undo_chain(), objects, version, added))

    # ------------------------------------------------------------------ the end

    def commit(self) -> Committed:
        """The group commit (see the module docstring); its events."""
        self.check_open("COMMIT")
        try:
            publish_seconds = self._publish()
            for machine in self.machines:
                if not machine.plan.rolls_forward:
                    self._committing = machine
                    machine.commit()
            self._committing = None
            members = sorted(self.members, key=lambda member: member.order)
            positions = [m.position for m in members if m.position is not None]
            if self._anchor is not None:
                positions.insert(0, self._anchor)
            events = self._commit_group(positions, [
                BinlogEvent(0, None, m.log.statement, m.objects, version=m.version, added=m.added) for m in members])
        except Exception as exc:  # before the commit point: every statement undone, then raised
            if not self._at_commit_point:
                self.abort(exc)
            raise
        self.state = "committed"
        for member, event in zip(members, events, strict=False):
            member.log.event = event
        errors: list[Exception] = []
        for machine in self.machines:
            try:
                machine.retire()
            except Exception as exc:  # noqa: BLE001 - committed: recovery finishes what a retire step left
                errors.append(exc)
            if machine.log.retire_error is not None:
                errors.append(machine.log.retire_error)
            AFTER_RETIRE()
        return Committed(tuple(events), tuple(errors), publish_seconds)

    def _publish(self) -> float:
        """Every statement's publishing steps not run yet, in statement order; the window's length (first to last)."""
        BEFORE_PUBLISH()
        began = time.perf_counter()
        return 0.0 if not self.publish_built() else time.perf_counter() - began

    def publish_built(self) -> int:
        """Publish every statement built so far and not yet published, in statement order (how many did). Still
        before the commit point: a rollback or a crash undoes them. Only where another statement must read them (a
        replica applying an earlier source's group that read its own changes): sessions see them before COMMIT."""
        count = 0
        for machine in self.machines[self._published:]:
            self._published += 1
            if not machine.plan.rolls_forward:
                machine.publish()
                count += 1
        return count

    def _commit_group(self, positions: list[int], events: list[BinlogEvent]) -> list[BinlogEvent]:
        """The commit of the transaction's chains ``positions``: with the binlog on, the XID in every chain (one
        durable write), ``events`` in one binlog write (the commit point), every chain closed (one durable write);
        with it off, closing them all in one write is the commit point. Returns the events as written."""
        written: list[BinlogEvent] = []
        BEFORE_XID()
        if self.binlog is not None and positions:
            with self.log.batch():
                at = self.binlog.position()
                for position in positions:
                    self.log.set_xid(position, self.xid, at)
            BEFORE_BINLOG()
            written = self.binlog.append_group([attrs.evolve(event, xid=self.xid) for event in events])
            self._at_commit_point = True
            AFTER_BINLOG()
        with self.log.batch():
            for position in positions:
                self.log.close(position)
        self._at_commit_point = True
        AFTER_CLOSE()
        return written

    def rollback(self) -> None:
        """ROLLBACK: every statement of the transaction undone, in reverse order (an aborted one: nothing left)."""
        if self.state == "aborted":
            self.state = "rolled_back"
            return
        self.check_open("ROLLBACK")
        self._undo_all(None)
        self.state = "rolled_back"

    def abort(self, cause: BaseException, *, failing: StatementMachine[Any] | None = None) -> NoReturn:
        """An error inside the transaction: the failing statement and every prepared one undone (reverse order),
        then ``cause`` raised (the failing statement's own typed error when its revert made one)."""
        self.state = "aborted"
        self.abort_cause = cause
        raised: BaseException = cause
        if failing is not None:
            try:
                failing.revert(cause if isinstance(cause, Exception) else Exception(str(cause)))
            except Exception as error:  # noqa: BLE001 - its typed error, raised once the others are undone
                raised = error
        self._undo_all(cause)
        raise raised

    def _undo_all(self, cause: BaseException | None) -> None:
        BEFORE_ROLLBACK()
        reason = cause if isinstance(cause, Exception) else Exception("ROLLBACK")
        for machine in reversed(self.machines):
            with contextlib.suppress(Exception):  # an undo that fails stays logged: recovery finishes it
                machine.revert(reason)
        if self._anchor is not None:
            with contextlib.suppress(Exception):
                undo_unless_committed(self.ctx, self._anchor, reason, verb="ROLLBACK", subject="the transaction")
        self.machines = []
        self.members = []


@contextlib.contextmanager
def joined(ctx: ActionContext, transaction: Transaction | None) -> Iterator[ActionContext]:
    """``ctx`` with ``transaction`` set: the statements run with it join the transaction."""
    previous = ctx.transaction
    ctx.transaction = transaction
    try:
        yield ctx
    finally:
        ctx.transaction = previous
