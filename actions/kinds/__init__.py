"""Every action type the DDL log can replay, one module each with all it is (:class:`~actions.kinds.kind.ActionKind`:
phases, payload, executor, description, lock scope, the helper that logs it)."""

from __future__ import annotations

from actions.kinds import (
    alter_table,
    change_kind,
    claim_version,
    create_db,
    create_function,
    create_table,
    create_view,
    delete_data,
    drop_db,
    drop_function,
    drop_init,
    drop_table,
    drop_view,
    forget_table,
    install_version,
    move_files,
    relocate_version,
    remove_job_files,
    remove_record,
    rename_table,
    rename_view,
    swap_table,
    sweep_table,
)
from actions.kinds.kind import ActionKind
from chains.entries import FINAL, SKIPPED, ActionEntry, ActionType

KINDS: dict[ActionType, ActionKind] = {
    module.KIND.type: module.KIND
    for module in (create_table, rename_table, drop_init, drop_table, drop_view, drop_function, drop_db, create_view,
                   rename_view, create_function, alter_table, create_db, swap_table, forget_table, delete_data,
                   sweep_table, install_version, claim_version, change_kind, move_files,
                   relocate_version, remove_record, remove_job_files)
}


def kind_of(action_type: ActionType) -> ActionKind:
    return KINDS[action_type]


def describe(action: ActionEntry) -> str:
    """What replaying ``action`` would do, in words (``ddl-log status`` shows it for abandoned chains)."""
    return KINDS[action.type].describe(action)


def phase_name(action: ActionEntry) -> str:
    """The action's phase in words (``FINAL`` when done, ``SKIPPED`` when given up on)."""
    if action.phase == SKIPPED:
        return "SKIPPED"
    if action.phase == FINAL:
        return "FINAL"
    phases = KINDS[action.type].phases
    return phases[action.phase] if 0 <= action.phase < len(phases) else str(action.phase)
