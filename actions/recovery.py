"""Recovery, run at every start (as a database server does): decide, for every active chain, whether its statement
committed (its XID is in the binlog) or must be undone / finished, and run what must run.

1. Chains whose XID is in the binlog are closed: their statement committed. Only the binlog's tail is read, from the
   earliest position an active chain noted when it stored its XID.
2. The remaining active chains run in position order, skipping a chain whose master chain is still active and a
   chain that a statement of this process is running (recover() may be called while statements run). Each chain
   runs under the metadata locks of its objects. Before a chain runs its retry counter is incremented durably; on
   the last try a roll-forward chain gives up on the objects it cannot drop (they stay, the binlog names what was
   dropped) instead of failing; an undo chain past ``MAX_RETRIES`` is abandoned: kept in the log and reported (here
   and by ``status``), never silently dropped, until ``retry_abandoned`` gives it new tries.
   A scheduled deletion (the old files of a swapped or dropped table, :mod:`actions.deletions`) waits until it is
   due: recovery skips it before, and runs it like any roll-forward chain after.
3. With no chain active any more, the log is compacted.

Each step is durable and each action idempotent, so a crash anywhere inside recovery and a second recovery converge.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import attrs

from actions.context import DEFAULT_GRACE_SECONDS, ActionContext
from actions.deletions import due_deletions, is_waiting
from actions.errors import ActionFailedError
from actions.replay import replay_chain
from chains.binlog import BinlogLike
from chains.commit import binlogged
from chains.entries import ActionEntry, ActionType, ChainKind, ChainState, ExecuteEntry
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog

MAX_RETRIES = 3

AFTER_CLOSING_BINLOGGED = crashpoints.declare(
    "recovery.after_closing_binlogged", "recovery closed the chains whose XID is in the binlog"
)
BEFORE_CHAIN = crashpoints.declare("recovery.before_chain", "recovery counted a retry; the chain has not run")
AFTER_CHAIN = crashpoints.declare("recovery.after_chain", "recovery ran a chain to its end")


@attrs.frozen
class ChainOutcome:
    position: int
    statement: str
    outcome: str
    """committed | undone | finished | skipped | failed | abandoned"""
    detail: str = ""

    def as_dict(self) -> dict[str, object]:
        return attrs.asdict(self)


@attrs.frozen
class RecoveryReport:
    outcomes: tuple[ChainOutcome, ...] = ()
    abandoned: tuple[ExecuteEntry, ...] = ()
    compacted: bool = False
    note: str | None = None
    """Set when the home was taken over by another driver since its last holder (``ddl_log.cluster.takeover``)."""

    @property
    def nothing_to_do(self) -> bool:
        return not self.outcomes and not self.abandoned

    def of(self, outcome: str) -> list[ChainOutcome]:
        return [item for item in self.outcomes if item.outcome == outcome]


LockChain = Callable[[list[ActionEntry]], AbstractContextManager[None]]
"""The locks to hold while a chain's statement is decided and replayed (the metadata locks of its objects)."""


def _no_lock(actions: list[ActionEntry]) -> AbstractContextManager[None]:
    return nullcontext()


def recover(log: DDLLog, binlog: BinlogLike | None, catalog: Callable[[], Catalog], *,
            write_binlog: bool = True, max_retries: int = MAX_RETRIES,
            lock_chain: LockChain = _no_lock,
            retry_abandoned: bool = False, grace_seconds: float = DEFAULT_GRACE_SECONDS) -> RecoveryReport:
    """Bring the catalog to a state where every statement is either fully done and binlogged, or left no trace.

    ``binlog`` is read for XIDs even when ``write_binlog`` is off (chains may carry XIDs from a run with the
    binlog on). ``catalog`` is called only when a chain has to run, so a no-op recovery never starts Spark.
    ``lock_chain`` gives the locks to hold while a chain's statement is decided and replayed. ``grace_seconds``: the
    home's, for what an undo keeps for readers.
    """
    outcomes: list[ChainOutcome] = []
    if retry_abandoned:
        for chain in log.abandoned_chains():
            if chain.master is None or log.chain(chain.master).state is not ChainState.ABANDONED:
                log.reopen(chain.position)
                outcomes.append(ChainOutcome(chain.position, chain.statement, "reopened",
                                             "abandoned chain given new tries"))
    owned = log.owned_positions()
    active = [chain for chain in log.active_chains() if chain.position not in owned]
    if binlog is not None:
        committed = binlogged(binlog, active)
        for chain in active:
            if chain.position in committed:
                log.close(chain.position)
                outcomes.append(ChainOutcome(chain.position, chain.statement, "committed",
                                             f"xid {chain.xid} is in the binlog"))
        AFTER_CLOSING_BINLOGGED()

    contexts: list[ActionContext] = []

    def context() -> ActionContext:
        if not contexts:
            contexts.append(ActionContext(catalog(), log, binlog if write_binlog else None, in_recovery=True,
                                          grace_seconds=grace_seconds))
        return contexts[0]

    outcomes += _run_chains(log, context, lock_chain, max_retries)

    compacted = False
    waiting = frozenset(c.position for c in log.active_chains() if is_waiting(log, c, time.time()))
    if (all(c.position in waiting for c in log.active_chains()) and not log.owned_positions()
            and any(not c.active and c.state is not ChainState.ABANDONED for c in log.chains())):
        compacted = log.maybe_compact(force=True, waiting=waiting)
    return RecoveryReport(tuple(outcomes), tuple(log.abandoned_chains()), compacted)


def _run_chains(log: DDLLog, context: Callable[[], ActionContext], lock_chain: LockChain,
                max_retries: int) -> list[ChainOutcome]:
    """Every active chain that is neither waiting nor this process's own, each under its locks. A chain an undo
    logs (the files of a version readers may have seen, kept for the grace period) is run in the same recovery once
    it is due: passes until no chain is new."""
    outcomes: list[ChainOutcome] = []
    seen: set[int] = set()
    while listed_now := [chain for chain in log.active_chains() if chain.position not in seen]:
        now = time.time()
        for listed in listed_now:
            seen.add(listed.position)
            if is_waiting(log, listed, now):
                continue
            if listed.position in log.owned_positions():
                outcomes.append(ChainOutcome(listed.position, listed.statement, "skipped",
                                             "a statement of this process is running it"))
                continue
            with lock_chain(log.actions_of(listed.position)):
                outcome = _recover_chain(log, context, listed.position, max_retries)
            if outcome is not None:
                outcomes.append(outcome)
    return outcomes


def run_due_deletions(ctx: ActionContext, lock_chain: LockChain = _no_lock,
                      dropped: frozenset[TableName] = frozenset()) -> list[ChainOutcome]:
    """Delete the old table directories whose grace period is over, and those of the ``dropped`` tables (each chain
    under its locks); a failure stays logged for the next try (recovery counts the tries)."""
    outcomes = []
    log = ctx.log
    for chain in due_deletions(log, time.time(), dropped):
        with lock_chain(log.actions_of(chain.position)):
            try:
                replay_chain(ctx, chain.position)
            except ActionFailedError as exc:
                outcomes.append(ChainOutcome(chain.position, chain.statement, "failed", str(exc)))
                continue
        swept = any(action.type is ActionType.SWEEP_TABLE for action in log.actions_of(chain.position))
        detail = "work table swept after its orphan window" if swept else "old table files deleted"
        outcomes.append(ChainOutcome(chain.position, chain.statement, "finished", detail))
    return outcomes


def _recover_chain(log: DDLLog, context: Callable[[], ActionContext], position: int,
                   max_retries: int) -> ChainOutcome | None:
    """Run one chain (its locks held); None when there is nothing to do any more."""
    chain = log.chain(position)
    if not chain.active or position in log.owned_positions():
        return None  # cancelled by a chain that ran before it, or taken by a statement meanwhile
    if chain.master is not None and log.chain(chain.master).active:
        return ChainOutcome(position, chain.statement, "skipped", f"master chain {chain.master} is still active")
    retries = log.bump_retry(position)
    if retries > max_retries:
        log.abandon(position)
        return ChainOutcome(position, chain.statement, "abandoned", f"gave up after {retries - 1} tries")
    BEFORE_CHAIN()
    try:
        replayed = replay_chain(context(), position, skip_failures=retries >= max_retries)
    except ActionFailedError as exc:
        return ChainOutcome(position, chain.statement, "failed", f"try {retries} of {max_retries}: {exc}")
    AFTER_CHAIN()
    verb = "undone" if chain.kind is ChainKind.UNDO else "finished"
    detail = ", ".join(f"{a.type.value} {a.name}" for a in replayed.ran)
    if replayed.skipped:
        detail += "; gave up on: " + "; ".join(str(failure) for failure in replayed.skipped)
    return ChainOutcome(position, chain.statement, verb, detail)
