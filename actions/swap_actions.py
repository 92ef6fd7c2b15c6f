"""Executors of the definition swap (see :mod:`replace_table.machine`): SWAP_TABLE (undo: put the holder's definition
back on ORIG), FORGET_TABLE (forward: the holder leaves the catalog, its files stay) and DELETE_DATA (forward, once
due: ORIG's old directory is deleted). Each acts only on the identities the log recorded."""

from __future__ import annotations

from actions.context import ActionContext
from chains.entries import ActionEntry
from chains.payloads import DeleteDataPayload, SwapTablePayload, payload_of
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_SWAP_BEFORE_FORGET = crashpoints.declare(
    "undo.swap_table.before_forget", "undo put ORIG's old definition back; the holder is still in the catalog")
DELETE_BEFORE = crashpoints.declare("forward.delete_data.before_delete", "an old table version's files are due")


def _names(action: ActionEntry) -> tuple[TableName, TableName]:
    if action.name is None or action.from_name is None:
        raise CatalogError(f"{action.type.value} action {action.id} lacks a table name")
    return action.name, action.from_name


def undo_swap_table(action: ActionEntry, ctx: ActionContext) -> None:
    """ORIG has the new definition and TMP holds the old one: put the old one back on ORIG. Then, ORIG being itself
    again, TMP leaves the catalog without its files (they are ORIG's); TMP's own undo then removes the new files.

    ORIG with the new definition but no holder is refused (raised, so the chain stays for an operator): TMP's undo
    would otherwise remove the files ORIG reads. So is another table under ORIG's name while TMP holds the old
    definition: neither is touched."""
    orig, tmp = _names(action)
    payload = payload_of(action, SwapTablePayload)
    catalog = ctx.catalog
    if catalog.identity(orig) == payload.new_tag:
        if catalog.identity(tmp) != payload.holder_tag:
            raise CatalogError(f"cannot undo the swap of {orig}: its old definition is no longer held by {tmp}",
                               str(orig))
        catalog.restore_definition(orig, tmp, payload.orig_tag)
    if catalog.identity(orig) == action.tag:
        UNDO_SWAP_BEFORE_FORGET()
        catalog.forget_table(tmp, expect=payload.holder_tag)
    elif catalog.identity(tmp) == payload.holder_tag:
        # Another table took ORIG's name after the crash: it is left alone, and so is the old table's definition
        # in TMP (its only way to the old data), until an operator decides (the chain is retried, then abandoned).
        raise CatalogError(f"cannot undo the swap of {orig}: another table has that name now; the old table's "
                           f"definition stays in {tmp}", str(orig))


def forward_forget_table(action: ActionEntry, ctx: ActionContext) -> None:
    """After the commit: the holder (ORIG's old definition under TMP's name) leaves the catalog, never its files."""
    if action.name is None or action.tag is None:
        raise CatalogError(f"forget action {action.id} lacks its name or tag")
    ctx.catalog.forget_table(action.name, expect=action.tag)


def forward_delete_data(action: ActionEntry, ctx: ActionContext) -> None:
    """Delete an old table version's directory (run only once due), unless the catalog finds it in use: then it is
    kept, and why is noted in the log (``ddl-log status`` shows it)."""
    if action.name is None:
        raise CatalogError(f"delete action {action.id} lacks its table name")
    payload = payload_of(action, DeleteDataPayload)
    DELETE_BEFORE()
    kept = ctx.catalog.delete_data(payload.location, action.name)
    if kept is not None:  # something uses the directory now (another table took it over): it is not ours any more
        ctx.log.note(action.id, f"kept {payload.location}: {kept}")
