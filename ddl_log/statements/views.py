"""Views and persistent functions on the DDL log (seed mysql-wl9173): the old definition is kept in the log for
undo; DROP VIEW / DROP FUNCTION check every name first, then roll forward."""

from __future__ import annotations

from typing import Any

from chains.binlog import BinlogEvent
from chains.entries import ActionType
from chains.payloads import (
    CreateFunctionPayload,
    CreateViewPayload,
    DropFunctionPayload,
    DropInitPayload,
    DropViewPayload,
    RenameViewPayload,
)
from ddl_log.statements.driver import Parts, StatementPoints, UndoStatement, run_forward_chain
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName
from storage.errors import CatalogError, NoSuchObjectError, ObjectExistsError

CREATE_FUNCTION_POINTS = StatementPoints.declare("create_function")
CREATE_VIEW_POINTS = StatementPoints.declare("create_view")
DROP_FUNCTION_POINTS = StatementPoints.declare("drop_function")
RENAME_VIEW_POINTS = StatementPoints.declare("rename_view")
DROP_VIEWS_POINTS = StatementPoints.declare("drop_views")


def _not_a_table(parts: Parts, name: TableName) -> None:
    if parts.catalog.identity(name) is not None:
        raise ObjectExistsError(f"{name} is a table, not a view", str(name))


def create_view(parts: Parts, name: TableName, definition: ViewDefinition, *, or_replace: bool,
                statement: str, verb: str = "CREATE VIEW", if_not_exists: bool = False) -> BinlogEvent | None:
    """``if_not_exists``: a view or a table holding the name makes it do nothing (None), as in Spark."""
    if if_not_exists and (parts.catalog.view_definition(name) is not None or parts.catalog.identity(name)):
        return None
    _not_a_table(parts, name)
    old = parts.catalog.view_definition(name)
    if old is not None and not or_replace:
        raise ObjectExistsError(f"view {name} already exists", str(name))

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.CREATE_VIEW,
                   lambda: parts.catalog.create_view(name, definition, replace=old is not None),
                   name=name, payload=CreateViewPayload(old, definition))
        return (str(name),)

    return UndoStatement(parts, verb, str(name), statement, CREATE_VIEW_POINTS).run(body)


def alter_view(parts: Parts, name: TableName, query: str, *, statement: str) -> BinlogEvent | None:
    old = parts.catalog.view_definition(name)
    if old is None:
        raise NoSuchObjectError(f"view {name} does not exist", str(name))
    new = ViewDefinition(query, old.comment, ())
    return create_view(parts, name, new, or_replace=True, statement=statement, verb="ALTER VIEW")


def rename_view(parts: Parts, old: TableName, new: TableName, *, statement: str) -> BinlogEvent | None:
    definition = parts.catalog.view_definition(old)
    if definition is None:
        raise NoSuchObjectError(f"view {old} does not exist", str(old))
    if old.db != new.db:
        raise CatalogError(f"cannot rename {old} to {new}: views cannot move between databases", str(new))
    if parts.catalog.view_definition(new) is not None or parts.catalog.identity(new) is not None:
        raise ObjectExistsError(f"{new} already exists", str(new))
    identity = parts.catalog.view_identity(old)  # a rename keeps it: undo moves back only this view

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.RENAME_VIEW, lambda: parts.catalog.rename_view(old, new), from_name=old, name=new,
                   tag=identity, payload=RenameViewPayload(definition))
        return (str(old), str(new))

    return UndoStatement(parts, "ALTER VIEW RENAME", f"{old} TO {new}", statement, RENAME_VIEW_POINTS).run(body)


def drop_views(parts: Parts, names: list[TableName], *, if_exists: bool, statement: str) -> list[TableName]:
    """Every name is checked first: a missing view without IF EXISTS, or a table, is an error; nothing dropped."""
    targets: list[tuple[TableName, str | None, ViewDefinition]] = []
    for name in dict.fromkeys(names):
        if parts.catalog.identity(name) is not None:
            raise CatalogError(f"{name} is a table, not a view; use DROP TABLE", str(name))
        definition = parts.catalog.view_definition(name)
        if definition is None:
            if not if_exists:
                raise NoSuchObjectError(f"view {name} does not exist", str(name))
            continue
        targets.append((name, parts.catalog.view_identity(name), definition))
    if not targets:
        return []
    actions: list[tuple[ActionType, dict[str, Any]]] = [
        (ActionType.DROP_INIT, {"payload": DropInitPayload(statement, tuple(str(n) for n, _, _ in targets))})
    ]
    actions += [(ActionType.DROP_VIEW, {"name": name, "tag": identity, "payload": DropViewPayload(definition)})
                for name, identity, definition in targets]
    run_forward_chain(parts, statement, actions, DROP_VIEWS_POINTS, verb="DROP VIEW")
    return [name for name, _, _ in targets]


def create_function(parts: Parts, name: TableName, definition: FunctionDefinition, *, or_replace: bool,
                    statement: str, if_not_exists: bool = False) -> BinlogEvent | None:
    """``if_not_exists``: an existing function of that name makes it do nothing (None), as in Spark."""
    old = parts.catalog.function_definition(name)
    if old is not None and if_not_exists:
        return None
    if old is not None and not or_replace:
        raise ObjectExistsError(f"function {name} already exists", str(name))

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.CREATE_FUNCTION,
                   lambda: parts.catalog.create_function(name, definition, replace=old is not None),
                   name=name, payload=CreateFunctionPayload(old, definition))
        return (str(name),)

    return UndoStatement(parts, "CREATE FUNCTION", str(name), statement, CREATE_FUNCTION_POINTS).run(body)


def drop_function(parts: Parts, name: TableName, *, if_exists: bool, statement: str) -> bool:
    definition = parts.catalog.function_definition(name)
    if definition is None:
        if if_exists:
            return False
        raise NoSuchObjectError(f"function {name} does not exist", str(name))
    run_forward_chain(parts, statement, [
        (ActionType.DROP_INIT, {"payload": DropInitPayload(statement, (str(name),))}),
        (ActionType.DROP_FUNCTION, {"name": name, "payload": DropFunctionPayload(definition)}),
    ], DROP_FUNCTION_POINTS, verb="DROP FUNCTION")
    return True
