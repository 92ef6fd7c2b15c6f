"""The executor of each action type, in one table (as MariaDB's one switch in ddl_log.cc). Every executor is
idempotent: run twice, or after a crash inside it, it converges to the same end state, and it never touches an
object whose identity is not the one the log recorded. The executor modules know nothing of this table."""

from __future__ import annotations

from collections.abc import Callable

from actions.alter_actions import replay_alter_table
from actions.context import ActionContext
from actions.object_actions import (
    forward_drop_database,
    forward_drop_function,
    forward_drop_view,
    undo_create_database,
    undo_create_function,
    undo_create_view,
    undo_rename_view,
)
from actions.swap_actions import forward_delete_data, forward_forget_table, undo_swap_table
from actions.table_actions import forward_drop_init, forward_drop_table, undo_create_table, undo_rename_table
from chains.entries import ActionEntry, ActionType

Executor = Callable[[ActionEntry, ActionContext], None]

EXECUTORS: dict[ActionType, Executor] = {
    ActionType.CREATE_TABLE: undo_create_table,
    ActionType.RENAME_TABLE: undo_rename_table,
    ActionType.DROP_INIT: forward_drop_init,
    ActionType.DROP_TABLE: forward_drop_table,
    ActionType.DROP_VIEW: forward_drop_view,
    ActionType.DROP_FUNCTION: forward_drop_function,
    ActionType.DROP_DB: forward_drop_database,
    ActionType.CREATE_VIEW: undo_create_view,
    ActionType.RENAME_VIEW: undo_rename_view,
    ActionType.CREATE_FUNCTION: undo_create_function,
    ActionType.ALTER_TABLE: replay_alter_table,
    ActionType.CREATE_DB: undo_create_database,
    ActionType.SWAP_TABLE: undo_swap_table,
    ActionType.FORGET_TABLE: forward_forget_table,
    ActionType.DELETE_DATA: forward_delete_data,
}
"""What replaying each action type runs (a dict, so that a test can put a spy in front of one)."""


def executor_for(action_type: ActionType) -> Executor:
    return EXECUTORS[action_type]
