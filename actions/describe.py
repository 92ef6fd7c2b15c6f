"""What replaying an action would do, in words: ``ddl-log status`` shows it for abandoned chains so that an operator
can decide whether ``ddl-log recover --retry-abandoned`` is safe once the cause is fixed."""

from __future__ import annotations

from collections.abc import Callable

from chains.entries import ActionEntry, ActionType
from chains.payloads import (
    AddColumnsChange,
    AlterTablePayload,
    CreateTablePayload,
    PartitionChange,
    RestoreColumnComment,
    RestoreProperties,
)


def _alter(action: ActionEntry) -> str:
    change = action.payload.change if isinstance(action.payload, AlterTablePayload) else None
    if isinstance(change, RestoreProperties):
        what = f"restore properties {', '.join(key for key, _ in change.old)}"
    elif isinstance(change, RestoreColumnComment):
        what = f"restore the comment of column {change.column}"
    elif isinstance(change, AddColumnsChange):
        what = f"add columns {', '.join(c.name for c in change.columns)}"
    elif isinstance(change, PartitionChange):
        what = f"{'add' if change.add else 'drop'} partition {dict(change.spec)}"
    else:
        what = "change"
    return f"{what} on table {action.name} if it still has identity {action.tag}"


def _create_table(action: ActionEntry) -> str:
    payload = action.payload
    moved = (f"move the data of a cut rename back to {payload.renamed_from}, then "
             if isinstance(payload, CreateTablePayload) and payload.renamed_from is not None else "")
    return f"{moved}drop table {action.name} if it still has identity {action.tag} (and its leftover files)"


_DESCRIBE: dict[ActionType, Callable[[ActionEntry], str]] = {
    ActionType.CREATE_TABLE: _create_table,
    ActionType.RENAME_TABLE: lambda a: f"rename table {a.name} back to {a.from_name} if it has identity {a.tag}",
    ActionType.DROP_INIT: lambda a: "binlog the statement (only what was dropped)",
    ActionType.DROP_TABLE: lambda a: f"drop table {a.name} if it still has identity {a.tag} (and its files)",
    ActionType.DROP_VIEW: lambda a: f"drop view {a.name} if it still has identity {a.tag} and the logged text",
    ActionType.DROP_FUNCTION: lambda a: f"drop function {a.name} if it still has the logged definition",
    ActionType.DROP_DB: lambda a: f"drop database {a.name.db if a.name else '?'} if it still has tag {a.tag}",
    ActionType.CREATE_VIEW: lambda a: f"put the old definition of view {a.name} back while it holds the new one",
    ActionType.RENAME_VIEW: lambda a: f"rename view {a.name} back to {a.from_name} if it has identity {a.tag}",
    ActionType.CREATE_FUNCTION: lambda a: f"put the old definition of function {a.name} back while it holds the new",
    ActionType.ALTER_TABLE: _alter,
    ActionType.CREATE_DB: lambda a: f"drop database {a.name.db if a.name else '?'} if it has tag {a.tag} and is empty",
    ActionType.SWAP_TABLE: lambda a: (f"put the old definition of table {a.name}, held by {a.from_name}, back while "
                                      f"{a.name} has the new one; then remove {a.from_name} without its files"),
    ActionType.FORGET_TABLE: lambda a: f"remove table {a.name} from the catalog, not its files, if it has identity "
                                       f"{a.tag}",
    ActionType.DELETE_DATA: lambda a: (f"delete the old directory of table {a.name} "
                                       f"({getattr(a.payload, 'location', '?')}) unless a table uses it"),
}


def describe(action: ActionEntry) -> str:
    return _DESCRIBE[action.type](action)
