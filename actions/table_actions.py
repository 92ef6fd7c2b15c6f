"""Executors for table actions: CREATE_TABLE (undo: drop what we created), RENAME_TABLE (undo: rename back),
DROP_TABLE (forward: drop) and DROP_INIT (forward: binlog what the chain dropped, after the drops)."""

from __future__ import annotations

from actions.context import ActionContext
from chains.binlog import GENERATED_COMMENT
from chains.commit import binlog_once
from chains.entries import ActionEntry, ActionType
from chains.payloads import CreateTablePayload, DropInitPayload, DropPayload, RenameTablePayload, payload_of
from storage import crashpoints
from storage.catalogs.interface import Catalog
from storage.catalogs.names import TableName, quote_ident
from storage.errors import CatalogError, NoSuchObjectError

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
    payload = payload_of(action, CreateTablePayload)
    return _name(action).is_reserved or payload.owns_location


def undo_create_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the table this statement created, if it is there and still ours; then its leftover files."""
    catalog: Catalog = ctx.catalog
    name = _name(action)
    payload = payload_of(action, CreateTablePayload)
    if payload.renamed_from is not None:
        # The table arrived by a rename (TMP -> ORIG) that a kill may have cut between the directory move and the
        # metastore update: put the data back under TMP, whose own undo then drops it (found by the soak).
        catalog.settle_rename(payload.renamed_from, name)
    if action.tag is not None:
        try:
            # Only the table we created (our tag) is dropped, files included; another table holding the name stays.
            catalog.drop(name, expect=action.tag, before=UNDO_CREATE_BEFORE_DROP)
            return
        except NoSuchObjectError:
            pass  # not created, or already dropped: only files can be left
    if owns_location(action):
        catalog.clean_leftovers(name)


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
    payload = payload_of(action, RenameTablePayload)
    if original.is_reserved or payload.owns_location:
        catalog.clean_leftovers(original)
    UNDO_RENAME_BEFORE()
    catalog.rename(moved_to, original)


def forward_drop_table(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the table if it is the one logged (by identity, when one was recorded), then its leftover files; or,
    when its files are kept for readers, only the table (a DELETE_DATA chain of the statement deletes them)."""
    catalog = ctx.catalog
    name = _name(action)
    keep_files = payload_of(action, DropPayload).keep_files  # their deletion is a chain of its own, due later
    try:
        dropped = catalog.drop(name, expect=action.tag, before=DROP_BEFORE, keep_files=keep_files)
    except NoSuchObjectError:
        catalog.clean_leftovers(name)  # the table is gone; a drop cut between metastore and files left them
        return
    if dropped:
        DROP_AFTER()


def forward_drop_init(action: ActionEntry, ctx: ActionContext) -> None:
    """After the drops: binlog the statement once (marked as generated when recovery finished it). When some drop
    was given up on (SKIPPED), the event is a statement naming only what was dropped, as MariaDB binlogs the tables
    a failed DROP TABLE did drop; nothing dropped, nothing binlogged."""
    if ctx.binlog is None:
        return
    payload = payload_of(action, DropInitPayload)
    statement, objects = payload.statement, payload.objects
    drops = [a for a in ctx.log.actions_of(action.chain) if a.type in DROP_VERBS]
    if any(a.skipped for a in drops):
        done = [a for a in drops if not a.skipped]
        if not done:
            return
        statement = dropped_text(done)
        objects = tuple(dropped_object_name(a) for a in done)
    text = f"{statement} {GENERATED_COMMENT}" if ctx.in_recovery else statement
    binlog_once(ctx.log, ctx.binlog, action.chain, text, objects, generated_by_recovery=ctx.in_recovery)



DROP_VERBS = {ActionType.DROP_FUNCTION: "FUNCTION", ActionType.DROP_VIEW: "VIEW", ActionType.DROP_TABLE: "TABLE",
              ActionType.DROP_DB: "DATABASE"}
"""Roll-forward drop actions and the object kind each drops, in the order a DROP DATABASE drops them."""


def dropped_object_name(action: ActionEntry) -> str:
    name = _name(action)
    return name.db if action.type is ActionType.DROP_DB else str(name)


def dropped_text(actions: list[ActionEntry]) -> str:
    """``DROP <kind> a, b`` per kind, joined by ``; ``: the statement a partly failed drop binlogs."""
    parts = []
    for action_type, kind in DROP_VERBS.items():
        names = [quote_ident(_name(a).db) if a.type is ActionType.DROP_DB else _name(a).quoted
                 for a in actions if a.type is action_type]
        if names:
            parts.append(f"DROP {kind} {', '.join(names)}")
    return "; ".join(parts)
