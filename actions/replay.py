"""Replaying a chain: its actions in chain order (LIFO for undo, FIFO for forward), each marked FINAL once done,
then the chain marked executed, which cancels the chains linked to it in the same durable write.

Only engine and catalog errors (:class:`CatalogError`, ``OSError``) count as an action failing; any other exception
is a bug and propagates as it is, never turned into a retry."""

from __future__ import annotations

import attrs

from actions.context import ActionContext
from actions.errors import ActionFailedError
from actions.kinds import kind_of
from chains.entries import FINAL, SKIPPED, ActionEntry, ActionType, ChainKind, ChainState
from chains.errors import PayloadError
from storage import crashpoints
from storage.errors import CatalogError

BEFORE_ACTION = crashpoints.declare("replay.before_action", "replay is about to run an action")
AFTER_ACTION = crashpoints.declare("replay.after_action", "an action ran; its FINAL phase is not logged yet")
AFTER_CHAIN = crashpoints.declare("replay.after_chain", "every action ran; the chain is not marked executed yet")

ACTION_ERRORS = (CatalogError, OSError, PayloadError)
"""What an executor raises when the engine or the catalog refuses, or the logged payload cannot be read: counted as
the action failing (retried, then abandoned and reported)."""


@attrs.frozen
class ReplayOutcome:
    ran: tuple[ActionEntry, ...] = ()
    skipped: tuple[ActionFailedError, ...] = ()
    """Roll-forward actions given up on (``skip_failures``): their objects stay; the binlog names only what ran."""


def replay_order(kind: ChainKind, actions: list[ActionEntry]) -> list[ActionEntry]:
    ordered = list(reversed(actions)) if kind is ChainKind.UNDO else list(actions)
    return ([a for a in ordered if not kind_of(a.type).runs_last]
            + [a for a in ordered if kind_of(a.type).runs_last])


def replay_chain(ctx: ActionContext, position: int, *, skip_failures: bool = False) -> ReplayOutcome:
    """Run the chain to its end. Raises :class:`ActionFailedError` on the first failure, leaving the chain active
    (with the actions done so far marked FINAL).

    ``skip_failures`` (roll-forward chains only): an action that fails is marked SKIPPED instead, durably, and the
    chain goes on; a committed DROP TABLE a, b whose b cannot be dropped still drops a and binlogs that.
    """
    log = ctx.log
    chain = log.chain(position)
    skip = skip_failures and chain.kind is ChainKind.FORWARD
    ran: list[ActionEntry] = []
    skipped: list[ActionFailedError] = []
    pending = [log.action(a.id) for a in replay_order(chain.kind, log.actions_of(position))]
    pending = [action for action in pending if not action.done]
    for index, action in enumerate(pending):
        BEFORE_ACTION()
        try:
            kind_of(action.type).execute(action, ctx)
        except ACTION_ERRORS as exc:
            failure = ActionFailedError(action, exc)
            if not skip or action.type is ActionType.DROP_INIT:
                raise failure from exc
            log.set_phase(action.id, SKIPPED)
            skipped.append(failure)
            continue
        AFTER_ACTION()
        ran.append(action)
        if index + 1 < len(pending):
            log.set_phase(action.id, FINAL)
    AFTER_CHAIN()
    with log.batch():  # the last action's FINAL phase and the chain's end share one durable write
        if ran and ran[-1] is pending[-1]:
            log.set_phase(pending[-1].id, FINAL)
        log.mark_executed(position)
    return ReplayOutcome(tuple(ran), tuple(skipped))


def roll_back(ctx: ActionContext, position: int, *, cancel: tuple[int, ...] = ()) -> None:
    """Undo a statement that failed before its commit: cancel its roll-forward chains (D), replay its undo chain (C).

    A chain that never reached the log has nothing to undo and is just forgotten. Raises if the undo itself fails;
    the chain then stays active and recovery finishes it.
    """
    log = ctx.log
    for linked in cancel:
        log.set_state(linked, ChainState.CANCELLED)
    if position < 0:
        return
    if log.is_written(position):
        replay_chain(ctx, position)
    else:
        log.set_state(position, ChainState.CLOSED)
