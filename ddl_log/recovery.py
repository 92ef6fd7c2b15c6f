"""Recovery, run at every start (as a database server does): decide, for every active chain, whether its statement
committed (its XID is in the binlog) or must be undone / finished, and run what must run.

1. Chains whose XID is in the binlog are closed: their statement committed. Only the binlog's tail is read, from the
   earliest position an active chain noted when it stored its XID.
2. The remaining active chains run in position order, skipping a chain whose master chain is still active. Before a
   chain runs its retry counter is incremented durably; past ``MAX_RETRIES`` it is abandoned: kept in the log and
   reported (here and by ``status``), never silently dropped.
3. With no chain active any more, the log is compacted.

Each step is durable and each action idempotent, so a crash anywhere inside recovery and a second recovery converge.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from actions.context import ActionContext
from actions.errors import ActionFailedError
from actions.replay import replay_chain
from chains.binlog import Binlog
from chains.entries import ChainKind, ChainState, ExecuteEntry
from chains.log import DDLLog
from storage import crashpoints
from storage.catalog import Catalog

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

    @property
    def nothing_to_do(self) -> bool:
        return not self.outcomes and not self.abandoned

    def of(self, outcome: str) -> list[ChainOutcome]:
        return [item for item in self.outcomes if item.outcome == outcome]


def recover(log: DDLLog, binlog: Binlog | None, catalog: Callable[[], Catalog], *,
            write_binlog: bool = True, max_retries: int = MAX_RETRIES) -> RecoveryReport:
    """Bring the catalog to a state where every statement is either fully done and binlogged, or left no trace.

    ``binlog`` is read for XIDs even when ``write_binlog`` is off (chains may carry XIDs from a run with the
    binlog on). ``catalog`` is called only when a chain has to run, so a no-op recovery never starts Spark.
    """
    outcomes: list[ChainOutcome] = []
    active = log.active_chains()
    if binlog is not None:
        noted = [chain for chain in active if chain.xid is not None and chain.binlog_pos is not None]
        if noted:
            start = min(chain.binlog_pos for chain in noted if chain.binlog_pos is not None)
            committed = binlog.xids_since(start)
            for chain in noted:
                if chain.xid in committed:
                    log.close(chain.position)
                    outcomes.append(ChainOutcome(chain.position, chain.statement, "committed",
                                                 f"xid {chain.xid} is in the binlog"))
        AFTER_CLOSING_BINLOGGED()

    context: ActionContext | None = None
    for listed in log.active_chains():
        chain = log.chain(listed.position)
        if not chain.active:
            continue  # cancelled by a chain that ran before it
        if chain.master is not None and log.chain(chain.master).active:
            outcomes.append(ChainOutcome(chain.position, chain.statement, "skipped",
                                         f"master chain {chain.master} is still active"))
            continue
        retries = log.bump_retry(chain.position)
        if retries > max_retries:
            log.abandon(chain.position)
            outcomes.append(ChainOutcome(chain.position, chain.statement, "abandoned",
                                         f"gave up after {retries - 1} tries"))
            continue
        if context is None:
            context = ActionContext(catalog(), log, binlog if write_binlog else None, in_recovery=True)
        BEFORE_CHAIN()
        try:
            ran = replay_chain(context, chain.position)
        except ActionFailedError as exc:
            outcomes.append(ChainOutcome(chain.position, chain.statement, "failed",
                                         f"try {retries} of {max_retries}: {exc}"))
            continue
        AFTER_CHAIN()
        verb = "undone" if chain.kind is ChainKind.UNDO else "finished"
        outcomes.append(ChainOutcome(chain.position, chain.statement, verb,
                                     ", ".join(f"{a.type.value} {a.name}" for a in ran)))

    compacted = False
    if not log.active_chains() and any(c.state not in (ChainState.ABANDONED,) for c in log.chains()):
        compacted = log.maybe_compact(force=True)
    return RecoveryReport(tuple(outcomes), tuple(log.abandoned_chains()), compacted)
