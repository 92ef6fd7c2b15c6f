"""Executors for views, functions and databases. Undo actions carry the old definition in their payload (as MariaDB's
CREATE_VIEW keeps a copy of the old .frm) and restore it only while the object still holds the new definition;
roll-forward drops touch an object only while it is the one the statement dropped (identity and definition)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from actions.context import ActionContext
from chains.entries import ActionEntry
from chains.payloads import (
    CreateDatabasePayload,
    CreateFunctionPayload,
    CreateViewPayload,
    DropFunctionPayload,
    DropPayload,
    DropViewPayload,
    RenameViewPayload,
    payload_of,
)
from storage import crashpoints
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName
from storage.errors import CatalogError

D = TypeVar("D", ViewDefinition, FunctionDefinition)

DROP_VIEW_BEFORE = crashpoints.declare("forward.drop_view.before_drop", "roll-forward is about to drop a view")
DROP_FUNCTION_BEFORE = crashpoints.declare("forward.drop_function.before_drop",
                                           "roll-forward is about to drop a function")
DROP_DB_BEFORE = crashpoints.declare("forward.drop_db.before_drop", "roll-forward is about to drop a database")


def _name(action: ActionEntry) -> TableName:
    if action.name is None:
        raise CatalogError(f"{action.type.value} action {action.id} has no object name")
    return action.name


def restore_definition(current: D | None, old: D | None, new: D | None, *, drop: Callable[[], None],
                       recreate: Callable[[D], None]) -> None:
    """Undo of CREATE [OR REPLACE] VIEW / FUNCTION: put ``old`` back (or drop the object when there was none) while
    the object still holds ``new``, the definition this statement made; someone else's object is never touched."""
    if current == old or (current is not None and current != new):
        return
    if old is None:
        drop()
    else:
        recreate(old)


def forward_drop_view(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the view while it is the one the statement dropped: same identity (``tag``) and definition. A view
    created anew under the name after a crash is someone else's and stays."""
    name = _name(action)
    payload = payload_of(action, DropViewPayload)
    if ctx.catalog.view_definition(name) != payload.definition or ctx.catalog.view_identity(name) != action.tag:
        return
    DROP_VIEW_BEFORE()
    ctx.catalog.drop_view(name)


def forward_drop_function(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the function while it has the definition the statement dropped (the metastore keeps no other identity
    of a function that Spark reports); a function created anew with another definition stays."""
    name = _name(action)
    payload = payload_of(action, DropFunctionPayload)
    if ctx.catalog.function_definition(name) != payload.definition:
        return
    DROP_FUNCTION_BEFORE()
    ctx.catalog.drop_function(name)


def forward_drop_database(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the database while it carries the tag the statement gave it; a database created anew under the name
    (with or without objects in it) is never touched, nor its directory."""
    db = _name(action).db
    if ctx.catalog.database_exists(db):
        if ctx.catalog.database_identity(db) != action.tag:
            return
        DROP_DB_BEFORE()
        # Its directory goes with it, unless kept for the readers of its dropped tables (deleted by a later chain).
        ctx.catalog.drop_database(db, keep_files=payload_of(action, DropPayload).keep_files)
    else:
        ctx.catalog.clean_database_leftovers(db)  # a drop cut between the metastore commit and the directory delete


def undo_create_view(action: ActionEntry, ctx: ActionContext) -> None:
    """Put the old definition back (or drop the new view) while the view still holds what this statement made."""
    name = _name(action)
    payload = payload_of(action, CreateViewPayload)
    restore_definition(
        ctx.catalog.view_definition(name),
        payload.old,
        payload.new,
        drop=lambda: ctx.catalog.drop_view(name),
        recreate=lambda old: ctx.catalog.create_view(name, old, replace=True),
    )


def undo_rename_view(action: ActionEntry, ctx: ActionContext) -> None:
    moved_to = _name(action)
    original = action.from_name
    if original is None:
        raise CatalogError(f"rename action {action.id} has no source name")
    payload = payload_of(action, RenameViewPayload)
    current = ctx.catalog.view_definition(moved_to)
    if current is None or current != payload.definition or ctx.catalog.view_identity(moved_to) != action.tag:
        return  # the rename never happened, was undone already, or the view there is someone else's
    ctx.catalog.rename_view(moved_to, original)


def undo_create_function(action: ActionEntry, ctx: ActionContext) -> None:
    name = _name(action)
    payload = payload_of(action, CreateFunctionPayload)
    restore_definition(
        ctx.catalog.function_definition(name),
        payload.old,
        payload.new,
        drop=lambda: ctx.catalog.drop_function(name),
        recreate=lambda old: ctx.catalog.create_function(name, old, replace=True),
    )


def undo_create_database(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the database this statement created (its tag), only while it is still empty (nothing of anyone else's
    in it); if the create was cut inside the metastore, remove the directory it made (only when there was none
    before). A database created anew under the name after a crash is never touched."""
    db = _name(action).db
    payload = payload_of(action, CreateDatabasePayload)
    if ctx.catalog.database_exists(db):
        if ctx.catalog.database_identity(db) == action.tag and ctx.catalog.list_objects(db).empty:
            ctx.catalog.drop_database(db)
        return
    if payload.owns_location:
        ctx.catalog.clean_database_leftovers(db)
