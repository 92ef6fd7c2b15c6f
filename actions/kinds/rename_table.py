"""RENAME_TABLE: one rename of a RENAME TABLE statement (or ORIG -> BACKUP of a replace); undo renames back, only
the table it moved (its tag), and repairs a rename a kill cut between the directory move and the metastore."""

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
from storage.catalogs.kept_directories import same_location
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_RENAME_BEFORE = crashpoints.declare("undo.rename_table.before_rename", "undo is about to rename a table back")


@attrs.frozen
class RenameTablePayload:
    """``owns_location``: files left at the source name's default location are ours."""

    owns_location: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"owns_location": self.owns_location}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> RenameTablePayload:
        return cls(bool(require(data, "owns_location", "RENAME_TABLE")))


def log_rename_table(log: DDLLog, chain: int, old: TableName, new: TableName, tag: str | None, *,
                     owns_location: bool = False) -> ActionEntry:
    return log.add_action(chain, ActionType.RENAME_TABLE, from_name=old, name=new, tag=tag,
                          payload=RenameTablePayload(owns_location))


def undo_rename_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Rename ``name`` back to ``from_name`` if the table we moved is there; only moves what exists."""
    catalog = ctx.catalog
    moved_to = name_of(action)
    original = action.from_name
    if original is None:
        raise CatalogError(f"rename action {action.id} has no source name")
    catalog.names.settle_rename(original, moved_to)
    identity = catalog.names.identity(moved_to)
    if identity is None or identity != action.tag:
        return  # the rename never happened, or was already undone
    if catalog.names.exists(original):
        raise CatalogError(f"cannot rename {moved_to} back: {original} exists", str(original))
    payload = payload_of(action, RenameTablePayload)
    if (original.is_reserved or payload.owns_location) and moves_back_into(ctx, moved_to, original):
        clean_leftovers_of(ctx, original)
    UNDO_RENAME_BEFORE()
    catalog.names.rename(moved_to, original)


def moves_back_into(ctx: ActionContext, moved_to: TableName, original: TableName) -> bool:
    """Whether renaming ``moved_to`` back moves its directory to ``original``'s default one, which must then be free:
    only a managed table at its own default directory moves (the metastore moved it there). Any other table keeps
    its directory, so nothing at ``original``'s is in the way, and nothing there is the statement's: a writer
    outside the log (plain Spark's CTAS, which writes its files before it makes its table) may have started there
    while the name was missing."""
    return same_location(ctx.catalog.definitions.table_location(moved_to), ctx.catalog.names.default_location(moved_to))


def describe(action: ActionEntry) -> str:
    return f"rename table {action.name} back to {action.from_name} if it has identity {action.tag}"


KIND = ActionKind(ActionType.RENAME_TABLE, ("TABLE",), RenameTablePayload, undo_rename_table, describe, "object",
                  log_rename_table)
