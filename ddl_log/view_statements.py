"""Views and persistent functions on the DDL log (seed mysql-wl9173): the old definition is kept in the log for
undo; DROP VIEW / DROP FUNCTION check every name first, then roll forward."""

from __future__ import annotations

from typing import Any

from actions.object_actions import function_to_extra, view_to_extra
from chains.binlog import BinlogEvent
from chains.entries import ActionType
from ddl_log.undo_statement import Parts, StatementPoints, UndoStatement, run_forward_chain
from storage.catalog import FunctionDefinition, ViewDefinition
from storage.errors import CatalogError, NoSuchObjectError, ObjectExistsError
from storage.names import TableName

CREATE_FUNCTION_POINTS = StatementPoints.declare("create_function")
CREATE_VIEW_POINTS = StatementPoints.declare("create_view")
DROP_FUNCTION_POINTS = StatementPoints.declare("drop_function")
RENAME_VIEW_POINTS = StatementPoints.declare("rename_view")
DROP_VIEWS_POINTS = StatementPoints.declare("drop_views")


def _not_a_table(parts: Parts, name: TableName) -> None:
    if parts.catalog.identity(name) is not None:
        raise ObjectExistsError(f"{name} is a table, not a view", str(name))


def create_view(parts: Parts, name: TableName, definition: ViewDefinition, *, or_replace: bool,
                statement: str, verb: str = "CREATE VIEW") -> BinlogEvent | None:
    _not_a_table(parts, name)
    old = parts.catalog.view_definition(name)
    if old is not None and not or_replace:
        raise ObjectExistsError(f"view {name} already exists", str(name))

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.CREATE_VIEW,
                   lambda: parts.catalog.create_view(name, definition, replace=old is not None),
                   name=name, extra={"old": view_to_extra(old), "new": view_to_extra(definition)})
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

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.RENAME_VIEW, lambda: parts.catalog.rename_view(old, new), from_name=old, name=new,
                   extra={"definition": view_to_extra(definition)})
        return (str(old), str(new))

    return UndoStatement(parts, "ALTER VIEW RENAME", f"{old} TO {new}", statement, RENAME_VIEW_POINTS).run(body)


def drop_views(parts: Parts, names: list[TableName], *, if_exists: bool, statement: str) -> list[TableName]:
    """Every name is checked first: a missing view without IF EXISTS, or a table, is an error; nothing dropped."""
    targets = []
    for name in dict.fromkeys(names):
        if parts.catalog.identity(name) is not None:
            raise CatalogError(f"{name} is a table, not a view; use DROP TABLE", str(name))
        if parts.catalog.view_definition(name) is None:
            if not if_exists:
                raise NoSuchObjectError(f"view {name} does not exist", str(name))
            continue
        targets.append(name)
    if not targets:
        return []
    actions: list[tuple[ActionType, dict[str, Any]]] = [
        (ActionType.DROP_INIT, {"extra": {"binlog": statement, "objects": [str(n) for n in targets]}})
    ]
    actions += [(ActionType.DROP_VIEW, {"name": name}) for name in targets]
    run_forward_chain(parts, statement, actions, DROP_VIEWS_POINTS)
    return targets


def create_function(parts: Parts, name: TableName, definition: FunctionDefinition, *, or_replace: bool,
                    statement: str) -> BinlogEvent | None:
    old = parts.catalog.function_definition(name)
    if old is not None and not or_replace:
        raise ObjectExistsError(f"function {name} already exists", str(name))

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.CREATE_FUNCTION,
                   lambda: parts.catalog.create_function(name, definition, replace=old is not None),
                   name=name, extra={"old": function_to_extra(old), "new": function_to_extra(definition)})
        return (str(name),)

    return UndoStatement(parts, "CREATE FUNCTION", str(name), statement, CREATE_FUNCTION_POINTS).run(body)


def drop_function(parts: Parts, name: TableName, *, if_exists: bool, statement: str) -> bool:
    if parts.catalog.function_definition(name) is None:
        if if_exists:
            return False
        raise NoSuchObjectError(f"function {name} does not exist", str(name))
    run_forward_chain(parts, statement, [
        (ActionType.DROP_INIT, {"extra": {"binlog": statement, "objects": [str(name)]}}),
        (ActionType.DROP_FUNCTION, {"name": name}),
    ], DROP_FUNCTION_POINTS)
    return True
