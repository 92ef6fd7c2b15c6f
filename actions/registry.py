"""The executor of each action type. Every executor is idempotent: run twice, or after a crash inside it, it
converges to the same end state, and it never touches an object whose identity is not the one the log recorded."""

from __future__ import annotations

from collections.abc import Callable

from actions.context import ActionContext
from chains.entries import ActionEntry, ActionType

Executor = Callable[[ActionEntry, ActionContext], None]

EXECUTORS: dict[ActionType, Executor] = {}


def executor(action_type: ActionType) -> Callable[[Executor], Executor]:
    def register(function: Executor) -> Executor:
        if action_type in EXECUTORS:
            raise ValueError(f"two executors for {action_type}")
        EXECUTORS[action_type] = function
        return function

    return register


def executor_for(action_type: ActionType) -> Executor:
    # Importing the modules registers their executors.
    from actions import alter_actions, object_actions, table_actions  # noqa: F401

    return EXECUTORS[action_type]
