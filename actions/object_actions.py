"""Executors for views, functions and databases. Undo actions carry the old definition in ``extra`` (as MariaDB's
CREATE_VIEW keeps a copy of the old .frm) and restore it only while the object still holds the new definition."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from actions.context import ActionContext
from actions.registry import executor
from chains.entries import ActionEntry, ActionType
from storage.catalog import FunctionDefinition, ViewDefinition
from storage.errors import CatalogError
from storage.names import TableName

D = TypeVar("D", ViewDefinition, FunctionDefinition)


def view_to_extra(definition: ViewDefinition | None) -> dict[str, Any] | None:
    return None if definition is None else {"query": definition.query, "comment": definition.comment,
                                            "columns": list(definition.columns)}


def view_from_extra(value: dict[str, Any] | None) -> ViewDefinition | None:
    if value is None:
        return None
    return ViewDefinition(value["query"], value.get("comment"), tuple(value.get("columns") or ()))


def function_to_extra(definition: FunctionDefinition | None) -> dict[str, Any] | None:
    if definition is None:
        return None
    data = attrs.asdict(definition)
    data["resources"] = [list(pair) for pair in definition.resources]
    return data


def function_from_extra(value: dict[str, Any] | None) -> FunctionDefinition | None:
    if value is None:
        return None
    fields = dict(value)
    fields["resources"] = tuple(tuple(pair) for pair in fields.get("resources") or ())
    return FunctionDefinition(**fields)


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


@executor(ActionType.DROP_VIEW)
def forward_drop_view(action: ActionEntry, ctx: ActionContext) -> None:
    name = _name(action)
    if ctx.catalog.view_definition(name) is not None:
        ctx.catalog.drop_view(name)


@executor(ActionType.DROP_FUNCTION)
def forward_drop_function(action: ActionEntry, ctx: ActionContext) -> None:
    name = _name(action)
    if ctx.catalog.function_definition(name) is not None:
        ctx.catalog.drop_function(name)


@executor(ActionType.DROP_DB)
def forward_drop_database(action: ActionEntry, ctx: ActionContext) -> None:
    db = _name(action).db
    if ctx.catalog.database_exists(db):
        ctx.catalog.drop_database(db)  # its directory goes with it
    else:
        ctx.catalog.clean_database_leftovers(db)  # a drop cut between the metastore commit and the directory delete


@executor(ActionType.CREATE_VIEW)
def undo_create_view(action: ActionEntry, ctx: ActionContext) -> None:
    """Put the old definition back (or drop the new view) while the view still holds what this statement made."""
    name = _name(action)
    restore_definition(
        ctx.catalog.view_definition(name),
        view_from_extra(action.extra.get("old")),
        view_from_extra(action.extra.get("new")),
        drop=lambda: ctx.catalog.drop_view(name),
        recreate=lambda old: ctx.catalog.create_view(name, old, replace=True),
    )


@executor(ActionType.RENAME_VIEW)
def undo_rename_view(action: ActionEntry, ctx: ActionContext) -> None:
    moved_to = _name(action)
    original = action.from_name
    if original is None:
        raise CatalogError(f"rename action {action.id} has no source name")
    expected = view_from_extra(action.extra.get("definition"))
    current = ctx.catalog.view_definition(moved_to)
    if current is None or current != expected:
        return
    ctx.catalog.rename_view(moved_to, original)


@executor(ActionType.CREATE_FUNCTION)
def undo_create_function(action: ActionEntry, ctx: ActionContext) -> None:
    name = _name(action)
    restore_definition(
        ctx.catalog.function_definition(name),
        function_from_extra(action.extra.get("old")),
        function_from_extra(action.extra.get("new")),
        drop=lambda: ctx.catalog.drop_function(name),
        recreate=lambda old: ctx.catalog.create_function(name, old, replace=True),
    )


@executor(ActionType.CREATE_DB)
def undo_create_database(action: ActionEntry, ctx: ActionContext) -> None:
    """Drop the database this statement created, only while it is still empty (nothing of anyone else's in it); if
    the create was cut inside the metastore, remove the directory it made (only when there was none before)."""
    db = _name(action).db
    if ctx.catalog.database_exists(db):
        if ctx.catalog.list_objects(db).empty:
            ctx.catalog.drop_database(db)
        return
    if action.extra.get("owns_location"):
        ctx.catalog.clean_database_leftovers(db)
