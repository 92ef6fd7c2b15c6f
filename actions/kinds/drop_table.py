"""DROP_TABLE: one table of a DROP TABLE or DROP DATABASE, rolled forward once logged (MariaDB's
DDL_LOG_DROP_TABLE_ACTION): dropped while it is the one the statement checked (its identity), its files kept for
readers (their deletion a DELETE_DATA chain of the same statement) or, with ``PURGE``, deleted with it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from actions.leftovers import clean_leftovers_of
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import NoSuchObjectError, WrongObjectKindError

DROP_BEFORE = crashpoints.declare("forward.drop_table.before_drop", "roll-forward is about to drop a table")
DROP_AFTER = crashpoints.declare("forward.drop_table.after_drop", "a table is dropped; leftovers not cleaned yet")


@attrs.frozen
class DropTablePayload:
    """``keep_files``: the table leaves the catalog, its files stay for readers that resolved it just before."""

    keep_files: bool

    def to_wire(self) -> dict[str, Any]:
        return {"keep_files": self.keep_files}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropTablePayload:
        return cls(bool(require(data, "keep_files", "DROP_TABLE")))


def log_drop_table(log: DDLLog, chain: int, name: TableName, tag: str | None, *, keep_files: bool) -> ActionEntry:
    return log.add_action(chain, ActionType.DROP_TABLE, name=name, tag=tag, payload=DropTablePayload(keep_files))


def forward_drop_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the table if it is the one logged (by identity, when one was recorded), then its leftover files; or,
    when its files are kept for readers, only the table (a DELETE_DATA chain of the statement deletes them)."""
    catalog = ctx.catalog
    name = name_of(action)
    keep_files = payload_of(action, DropTablePayload).keep_files
    try:
        dropped = catalog.names.drop(name, expect=action.tag, before=DROP_BEFORE, keep_files=keep_files)
    except (NoSuchObjectError, WrongObjectKindError):  # a view took the name since: our table is gone all the same
        clean_leftovers_of(ctx, name)  # the table is gone; a drop cut between metastore and files left them
        return
    if dropped:
        DROP_AFTER()


def describe(action: ActionEntry) -> str:
    return f"drop table {action.name} if it still has identity {action.tag} (and its files)"


KIND = ActionKind(ActionType.DROP_TABLE, ("TABLE", "FILES"), DropTablePayload, forward_drop_table, describe,
                  "object", log_drop_table)
