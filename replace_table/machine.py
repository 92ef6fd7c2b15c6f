"""The statement machine: every atomic statement runs as a :class:`Plan` on it, "check, build a plan, run it".

A plan is a declared list of steps of four kinds, each a function of the statement's run state:

=========  =========================================================================================================
kind       what the step does
=========  =========================================================================================================
``log``    log actions (a kind's ``log_*`` helper, :mod:`actions.kinds`) on chain C, or on chains linked to it, in
           one durable write (:meth:`~replace_table.statement_log.StatementLog.batch`)
``act``    one catalog call (or a pre-flight that commits chains of its own before C exists)
``commit`` the commit point: the XID in C, the binlog event, C closed (a forward statement: its chain's one write)
``retire`` after the commit: replay the linked chains that finish the statement (the old version retired, the
           files moved in); a failure there is left to recovery
=========  =========================================================================================================

From the plan the machine builds its ``transitions`` machine: a state per step (the step done), a transition per
step from the steps it follows, guarded by the step's path condition (``when``: swap, rename, empty, create ...
are conditions on transitions, tried in the plan's order), with the step's work, bracketed by its crash points
``<plan>.<step>.before`` / ``.after``, as the transition's ``before`` callback (if it raises, the state does not
change). The crash points are declared when the plan is made (at import), so ``ddl-log crash-points`` lists them.

:meth:`StatementMachine.run` is ``prepare`` (every log and act step), ``commit``, ``retire``; on any error before the
commit point C is undone (its linked chains cancelled) and :class:`~actions.errors.StatementFailedError` raised;
after it, the statement stands and recovery finishes what is left (:attr:`Outcome.error`).

The commit is a step a caller can defer: a DDL transaction (:mod:`replace_table.transaction`) runs ``build`` on the
machines of its N statements as they arrive (each logging on its own chain C, all under one XID: every step before
the first one that ``publishes``, so the new versions are built aside and nobody sees them), then at COMMIT
``publish`` on each (the rest of its log and act steps), one commit for the group (every C given the XID, one binlog
write, every C closed), then ``retire`` on each; an error in any step before the commit point reverts the machines in
reverse order (:meth:`StatementMachine.revert`). A forward statement's commit is
its chain's own write, so inside a transaction its chain is logged linked to the transaction's anchor chain and runs
as a retire step of the group. :meth:`StatementMachine.run` hands a statement whose context has a transaction to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Generic, Literal, TypeVar

import attrs
from transitions import Machine, MachineError

from chains.binlog import BinlogEvent
from replace_table.statement_log import StatementLog
from storage import crashpoints
from storage.crashpoints import CrashPoint

R = TypeVar("R")
StepKind = Literal["log", "act", "commit", "retire"]
TRIGGERS: dict[StepKind, str] = {"log": "proceed", "act": "proceed", "commit": "pass_commit_point",
                                 "retire": "retire_step"}
"""The trigger of each step kind: ``prepare`` fires ``proceed`` (and ``publish``) until no step follows, then the
commit and retire phases fire theirs, so a caller can stop at the commit point."""
PROCEED = TRIGGERS["log"]
"""The trigger of every log and act step that does not publish."""
PUBLISH = "publish_step"
"""The trigger of a step that :attr:`Step.publishes`: ``build`` stops before it."""


@attrs.frozen
class Step(Generic[R]):
    """One step: ``work(run)`` does it. ``after``: the steps it may follow (``"start"``: it may come first; None:
    the step before it in the plan). ``when``: the path condition under which it is the next step. ``points``: whether
    the machine brackets it with its crash points (a commit whose own points bracket it, :mod:`chains.commit`,
    needs none of its own)."""

    name: str
    kind: StepKind
    work: Callable[[R], object]
    after: tuple[str, ...] | None = None
    when: Callable[[R], bool] | None = None
    points: bool = True
    publishes: bool = False
    """The step begins what others see of the statement (a name pointed at the new version, a view written, the
    logging of that change): a transaction builds each statement up to it and publishes the rest at COMMIT."""

    @property
    def trigger(self) -> str:
        return PUBLISH if self.publishes else TRIGGERS[self.kind]


class Plan(Generic[R]):
    """A declared list of steps (each named once, one of them the commit), its crash points
    ``<prefix>.<step>.before/after`` declared with it (described by ``describe``, formatted with ``when`` and
    ``step``)."""

    def __init__(self, prefix: str, steps: Sequence[Step[R]], *, describe: str = "{prefix}: {when} {step}",
                 joins_transaction: bool = True) -> None:
        self.prefix = prefix
        self.joins_transaction = joins_transaction
        """Whether a statement of the plan run inside a transaction defers its commit to the transaction's (a
        pre-flight that commits on its own, RELEASE of a name's kept files, does not)."""
        self.steps = tuple(steps)
        names = [step.name for step in self.steps]
        if len(set(names)) != len(names) or sum(step.kind == "commit" for step in self.steps) != 1:
            raise ValueError(f"plan {prefix}: each step named once, one commit step")
        self.sources = {step.name: step.after if step.after is not None else ("start",) if index == 0
                        else (names[index - 1],) for index, step in enumerate(self.steps)}
        self.leaving: dict[str, set[str]] = {}
        """The triggers that have a transition out of each state."""
        for step in self.steps:
            for source in self.sources[step.name]:
                self.leaving.setdefault(source, set()).add(step.trigger)

        def point(step: str, when: str) -> CrashPoint:
            return crashpoints.declare(f"{prefix}.{step}.{when}", describe.format(prefix=prefix, when=when, step=step))

        self.points = {step.name: (point(step.name, "before"), point(step.name, "after"))
                       for step in self.steps if step.points}

    @property
    def rolls_forward(self) -> bool:
        """A roll-forward plan: its first step is its commit (its chain's one write), the rest replays the chain."""
        return self.steps[0].kind == "commit"

    @property
    def states(self) -> list[str]:
        return ["start", *(step.name for step in self.steps), "rolled_back"]


@attrs.frozen
class Outcome:
    """How a statement ended: ``event`` its binlog event (None with the binlog off, or when its commit raised after
    the commit point); ``error``: what failed after the commit point in the commit step (closing C); ``retire_error``:
    what stopped a retire step's replay of a linked chain. Either way the statement stands, and recovery finishes
    what is left."""

    event: BinlogEvent | None
    error: Exception | None = None
    retire_error: Exception | None = None

    @property
    def pending(self) -> bool:
        return self.error is not None or self.retire_error is not None


class StatementMachine(Generic[R]):
    """One statement driven through ``plan``; ``state`` tells how far it got (the last step done)."""

    state: str
    trigger: Callable[..., bool]
    mark_rolled_back: Callable[[], bool]

    def __init__(self, plan: Plan[R], run: R, log: StatementLog, *, verb: str, subject: str) -> None:
        self.plan, self.run_state, self.log, self.verb, self.subject = plan, run, log, verb, subject
        transitions: list[dict[str, Any]] = [
            {"trigger": step.trigger, "source": list(plan.sources[step.name]), "dest": step.name,
             "conditions": [] if step.when is None else [partial(step.when, run)], "before": partial(self._do, step)}
            for step in plan.steps]
        transitions.append({"trigger": "mark_rolled_back", "source": "*", "dest": "rolled_back"})
        self.machine = Machine(model=self, states=plan.states, transitions=transitions, initial="start",
                               auto_transitions=False)

    def _do(self, step: Step[R]) -> None:
        """The crash-point bracket of every step of every statement: before; the work; after."""
        points = self.plan.points.get(step.name)
        if points is not None:
            points[0]()
        step.work(self.run_state)
        if points is not None:
            points[1]()

    def _fire(self, trigger: str) -> bool:
        """The next step of ``trigger``, if one follows this state and its path condition holds."""
        return trigger in self.plan.leaving.get(self.state, ()) and self.trigger(trigger)

    # ------------------------------------------------------------------ the phases (a transaction runs them apart)

    def prepare(self) -> None:
        """Every log and act step, as the path conditions choose them, up to the commit point."""
        while self._fire(PROCEED) or self._fire(PUBLISH):
            pass

    def build(self) -> None:
        """The log and act steps before the first that publishes: the statement's new version built aside."""
        while self._fire(PROCEED):
            pass

    def publish(self) -> None:
        """The rest of the log and act steps after :meth:`build`, up to the commit point."""
        self.prepare()

    def commit(self) -> BinlogEvent | None:
        if not self._fire(TRIGGERS["commit"]):
            raise MachineError(f"plan {self.plan.prefix}: no commit step after {self.state}")
        return self.log.event

    def retire(self) -> None:
        while self._fire(TRIGGERS["retire"]):
            pass

    def revert(self, cause: Exception) -> None:
        """After ``cause`` broke the statement: return when it committed already; else undo C and raise
        :class:`~actions.errors.StatementFailedError`. ``cause`` itself when the statement has no undo chain: before
        its first log step nothing of it is logged (a pre-flight commits chains of its own), and a forward chain
        whose write failed changed nothing."""
        if not self.log.undoable:
            raise cause
        error = self.log.revert(cause, verb=self.verb, subject=self.subject)
        if error is None:
            return
        if error.rollback_error is None:
            self.mark_rolled_back()
        raise error from cause

    def run(self) -> Outcome:
        """The statement, whole: prepare, commit, retire; undone on any error before the commit point. Inside a
        transaction, prepared only: the transaction commits it with the others (no event yet)."""
        transaction = self.log.transaction
        if transaction is not None and self.plan.joins_transaction:
            transaction.enlist(self)
            return Outcome(None)
        try:
            self.prepare()
            self.commit()
        except Exception as exc:  # noqa: BLE001 - revert raises it unless the statement committed
            self.revert(exc)
            return Outcome(self.log.event, exc)
        self.retire()
        return Outcome(self.log.event, retire_error=self.log.retire_error)


def run_plan(plan: Plan[R], run: R, log: StatementLog, *, verb: str, subject: str) -> Outcome:
    """Run one statement's ``plan`` on its state ``run`` (:meth:`StatementMachine.run`)."""
    return StatementMachine(plan, run, log, verb=verb, subject=subject).run()
