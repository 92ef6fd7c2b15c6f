"""Executors for table actions: CREATE_TABLE (undo: drop what we created), RENAME_TABLE (undo: rename back),
DROP_TABLE (forward: drop) and DROP_INIT (forward: binlog what the chain dropped, after the drops)."""

from __future__ import annotations

from actions.context import ActionContext
from actions.registry import executor
from chains.binlog import GENERATED_COMMENT
from chains.commit import binlog_once
from chains.entries import ActionEntry, ActionType
from storage import crashpoints
from storage.catalog import Catalog
from storage.errors import CatalogError, NoSuchObjectError
from storage.names import TableName

UNDO_CREATE_BEFORE_DROP = crashpoints.declare("undo.create_table.before_drop", "undo found our table, not dropped yet")
UNDO_RENAME_BEFORE = crashpoints.declare("undo.rename_table.before_rename", "undo is about to rename a table back")
DROP_BEFORE = crashpoints.declare("forward.drop_table.before_drop", "roll-forward is about to drop a table")
DROP_AFTER = crashpoints.declare("forward.drop_table.after_drop", "a table is dropped; leftovers not cleaned yet")


def _name(action: ActionEntry) -> TableName:
    if action.name is None:
        raise CatalogError(f"{action.type.value} action {action.id} has no object name")
    return action.name


def owns_location(action: ActionEntry) -> bool:
    """Files at the object's default location are ours to remove: a reserved name, or the log says so."""
    name = _name(action)
    return name.is_reserved or bool(action.extra.get("owns_location"))


@executor(ActionType.CREATE_TABLE)
def undo_create_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the table this statement created, if it is there and still ours; then its leftover files."""
    catalog: Catalog = ctx.catalog
    name = _name(action)
    renamed_from = action.extra.get("renamed_from")
    if renamed_from:
        # The table arrived by a rename (TMP -> ORIG) that a kill may have cut between the directory move and the
        # metastore update: put the data back under TMP, whose own undo then drops it (found by the soak).
        catalog.settle_rename(TableName(str(renamed_from[0]), str(renamed_from[1])), name)
    if action.tag is not None:
        try:
            # Only the table we created (our tag) is dropped, files included; another table holding the name stays.
            catalog.drop(name, expect=action.tag, before=UNDO_CREATE_BEFORE_DROP)
            return
        except NoSuchObjectError:
            pass  # not created, or already dropped: only files can be left
    if owns_location(action):
        catalog.clean_leftovers(name)


@executor(ActionType.RENAME_TABLE)
def undo_rename_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Rename ``name`` back to ``from_name`` if the table we moved is there; only moves what exists."""
    catalog = ctx.catalog
    moved_to = _name(action)
    original = action.from_name
    if original is None:
        raise CatalogError(f"rename action {action.id} has no source name")
    catalog.settle_rename(original, moved_to)
    identity = catalog.identity(moved_to)
    if identity is None or identity != action.tag:
        return  # the rename never happened, or was already undone
    if catalog.exists(original):
        raise CatalogError(f"cannot rename {moved_to} back: {original} exists", str(original))
    if original.is_reserved or action.extra.get("owns_location"):
        catalog.clean_leftovers(original)
    UNDO_RENAME_BEFORE()
    catalog.rename(moved_to, original)


@executor(ActionType.DROP_TABLE)
def forward_drop_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the table if it is the one logged (by identity, when one was recorded), then its leftover files."""
    catalog = ctx.catalog
    name = _name(action)
    try:
        dropped = catalog.drop(name, expect=action.tag, before=DROP_BEFORE)  # removes the files too
    except NoSuchObjectError:
        catalog.clean_leftovers(name)  # the table is gone; a drop cut between metastore and files left them
        return
    if dropped:
        DROP_AFTER()


@executor(ActionType.DROP_INIT)
def forward_drop_init(action: ActionEntry, ctx: ActionContext) -> None:
    """After the drops: binlog the statement once (marked as generated when recovery finished it)."""
    statement = action.extra.get("binlog")
    if not statement or ctx.binlog is None:
        return
    objects = tuple(action.extra.get("objects", ()))
    text = f"{statement} {GENERATED_COMMENT}" if ctx.in_recovery else statement
    binlog_once(ctx.log, ctx.binlog, action.chain, text, objects, generated_by_recovery=ctx.in_recovery)

