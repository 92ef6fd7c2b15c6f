"""RENAME TABLE (all or none, undone in reverse order), DROP TABLE (checked first, then rolled forward) and DROP
DATABASE (every object, or nothing before the log write), on the DDL log. Seeds: mysql-wl7743 F-1, F-3; MariaDB's
DROP_INIT / DROP_TABLE / DROP_DB actions."""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from chains.binlog import BinlogEvent
from chains.deletions import pending_deletions
from chains.entries import ActionType
from chains.payloads import (
    CreateDatabasePayload,
    DropFunctionPayload,
    DropInitPayload,
    DropPayload,
    DropViewPayload,
)
from ddl_log.statements.driver import Parts, StatementPoints, UndoStatement, run_forward_chain
from storage.catalogs.interface import TAG_PROPERTY, new_database_tag
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName
from storage.errors import CatalogError, InvalidNameError, LeftoverFilesError, NoSuchObjectError, ObjectExistsError

RENAME_POINTS = StatementPoints.declare("rename")
DROP_TABLES_POINTS = StatementPoints.declare("drop_tables")
DROP_DATABASE_POINTS = StatementPoints.declare("drop_database")
CREATE_DATABASE_POINTS = StatementPoints.declare("create_database")


def plan_renames(parts: Parts, pairs: list[tuple[TableName, TableName]]) -> list[tuple[TableName, TableName, str]]:
    """Check every rename against the state the earlier ones leave (so swaps through a third name work), before
    anything is logged. Returns (old, new, identity of the moved table)."""
    identities: dict[TableName, str | None] = {}

    def identity(name: TableName) -> str | None:
        if name not in identities:
            identities[name] = parts.catalog.identity(name)
        return identities[name]

    plan = []
    for old, new in pairs:
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: tables cannot move between databases", str(new))
        tag = identity(old)
        if tag is None:
            if parts.catalog.view_definition(old) is not None:
                raise CatalogError(f"{old} is a view; use ALTER VIEW ... RENAME TO", str(old))
            raise NoSuchObjectError(f"table {old} does not exist", str(old))
        if identity(new) is not None or parts.catalog.view_definition(new) is not None:
            raise ObjectExistsError(f"table {new} already exists", str(new))
        identities[new], identities[old] = tag, None
        plan.append((old, new, tag))
    return plan


def rename_tables(parts: Parts, pairs: list[tuple[TableName, TableName]], statement: str) -> BinlogEvent | None:
    """The checks' lookups serve the whole statement (:func:`reuse_lookups`): a target found free is not looked up
    again as a view."""
    with reuse_lookups():
        return _rename_tables(parts, pairs, statement)


def _rename_tables(parts: Parts, pairs: list[tuple[TableName, TableName]], statement: str) -> BinlogEvent | None:
    plan = plan_renames(parts, pairs)
    subject = ", ".join(f"{old} TO {new}" for old, new, _ in plan)

    def body(run: UndoStatement) -> tuple[str, ...]:
        for old, new, tag in plan:
            run.logged(ActionType.RENAME_TABLE, partial(rename_table, parts, old, new),
                       from_name=old, name=new, tag=tag)
        return tuple(str(name) for old, new, _ in plan for name in (old, new))

    return UndoStatement(parts, "RENAME TABLE", subject, statement, RENAME_POINTS).run(body)


def rename_table(parts: Parts, old: TableName, new: TableName) -> None:
    """One rename of a RENAME TABLE statement. Refused as Spark refuses it when ``new``'s default directory exists;
    when that directory is a replaced version this log keeps for its readers, the error says so and until when
    (not "left by a failed operation": it is neither garbage nor to be removed by hand)."""
    try:
        parts.catalog.rename(old, new)
    except LeftoverFilesError as exc:
        held = [deletion for deletion in pending_deletions(parts.log)
                if exc.location is not None and deletion.location.rstrip("/") == exc.location.rstrip("/")]
        if not held:
            raise
        due = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(held[0].due))
        raise LeftoverFilesError(
            f"cannot rename {old} to {new}: its directory {exc.location} holds a replaced version of "
            f"{held[0].table or new} kept for readers until {due} (grace_seconds); rename after that or to another "
            "name", str(new), exc.location) from None


def drop_tables(parts: Parts, names: list[TableName], *, if_exists: bool, statement: str,
                purge: bool = False) -> list[TableName]:
    """Check every name first: a missing table without IF EXISTS is an error and nothing is dropped. Returns the
    names dropped. Once logged, the drop rolls forward (recovery finishes it and binlogs it as generated); the live
    drop reuses the check's lookup of each table (:func:`reuse_lookups`) to compare identities.

    A managed table's files stay for the grace period, their deletion a chain of their own: the name goes first, so
    a reader that resolved the table just before reads its rows whole, never an empty directory. ``purge`` (``DROP
    TABLE ... PURGE``): the files go with the table."""
    with reuse_lookups():
        return _drop_tables(parts, names, if_exists=if_exists, statement=statement, purge=purge)


def _drop_tables(parts: Parts, names: list[TableName], *, if_exists: bool, statement: str,
                 purge: bool) -> list[TableName]:
    targets: list[tuple[TableName, str]] = []
    for name in dict.fromkeys(names):
        identity = parts.catalog.identity(name)
        if identity is None:
            if parts.catalog.view_definition(name) is not None:
                raise CatalogError(f"{name} is a view; use DROP VIEW", str(name))
            if not if_exists:
                raise NoSuchObjectError(f"table {name} does not exist", str(name))
            continue
        targets.append((name, identity))
    if not targets:
        return []
    objects = tuple(str(name) for name, _ in targets)
    actions: list[tuple[ActionType, dict[str, Any]]] = [
        (ActionType.DROP_INIT, {"payload": DropInitPayload(statement, objects)})
    ]
    keep = not purge
    actions += [(ActionType.DROP_TABLE, {"name": name, "tag": identity, "payload": DropPayload(keep)})
                for name, identity in targets]
    run_forward_chain(parts, statement, actions, DROP_TABLES_POINTS, verb="DROP TABLE",
                      kept_files=kept_table_files(parts, [name for name, _ in targets]) if keep else ())
    return [name for name, _ in targets]


def kept_table_files(parts: Parts, names: list[TableName]) -> list[tuple[TableName, str]]:
    """(table, directory) of the managed ones of ``names``: the files a drop that keeps them leaves for readers."""
    located = [(name, parts.catalog.table_location(name)) for name in names]
    return [(name, location) for name, location in located if location is not None]


def drop_database(parts: Parts, db: str, *, if_exists: bool, cascade: bool, statement: str) -> bool:
    """DROP DATABASE: checked first (missing, non-empty without CASCADE), then one roll-forward chain drops every
    function, view and table in it, then the database. Returns whether a database was dropped. Each table's lookup
    serves its logged identity and its drop (:func:`reuse_lookups`)."""
    with reuse_lookups():
        return _drop_database(parts, db, if_exists=if_exists, cascade=cascade, statement=statement)


def _drop_database(parts: Parts, db: str, *, if_exists: bool, cascade: bool, statement: str) -> bool:
    catalog = parts.catalog
    if not catalog.database_exists(db):
        if if_exists:
            return False
        raise NoSuchObjectError(f"database {db} does not exist", db)
    if db == "default":
        raise CatalogError("the default database cannot be dropped", db)
    objects = catalog.list_objects(db)
    if not objects.empty and not cascade:
        raise CatalogError(f"database {db} is not empty ({len(objects.tables)} tables, {len(objects.views)} views, "
                           f"{len(objects.functions)} functions); use CASCADE", db)
    actions: list[tuple[ActionType, dict[str, Any]]] = [
        (ActionType.DROP_INIT, {"payload": DropInitPayload(statement, (db,))})
    ]
    for name in objects.functions:
        function = catalog.function_definition(name)
        if function is not None:
            actions.append((ActionType.DROP_FUNCTION, {"name": name, "payload": DropFunctionPayload(function)}))
    for name in objects.views:
        view = catalog.view_definition(name)
        if view is not None:
            actions.append((ActionType.DROP_VIEW, {"name": name, "tag": catalog.view_identity(name),
                                                   "payload": DropViewPayload(view)}))
    actions += [(ActionType.DROP_TABLE, {"name": name, "tag": catalog.identity(name), "payload": DropPayload(True)})
                for name in objects.tables]
    # The database's identity: recovery drops this database, never one created anew under the name. Its directory
    # stays with its tables' files for their readers, deleted after the grace period once nothing uses it.
    database = TableName(db, "*")
    actions.append((ActionType.DROP_DB, {"name": database, "tag": catalog.tag_database(db),
                                         "payload": DropPayload(True)}))
    kept = kept_table_files(parts, list(objects.tables))
    location = catalog.database_location(db)
    if location is not None and db != "default":
        kept.append((database, location))
    run_forward_chain(parts, statement, actions, DROP_DATABASE_POINTS, verb="DROP DATABASE", kept_files=kept)
    return True


def create_database(parts: Parts, db: str, *, if_not_exists: bool, comment: str | None,
                    properties: tuple[tuple[str, str], ...], statement: str) -> bool:
    """CREATE DATABASE: logged so that a crash before the binlog write drops it again. Returns whether created."""
    if parts.catalog.database_exists(db):
        if if_not_exists:
            return False
        raise ObjectExistsError(f"database {db} already exists", db)

    owns_location = not parts.catalog.database_leftovers_exist(db)  # else undo must leave that directory alone
    if any(key == TAG_PROPERTY for key, _ in properties):
        raise InvalidNameError(f"database property {TAG_PROPERTY!r} is reserved for the DDL log", TAG_PROPERTY)
    tag = new_database_tag()  # the database's identity: undo drops this database, never one created anew

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(ActionType.CREATE_DB,
                   partial(parts.catalog.create_database, db, comment=comment,
                           properties=(*properties, (TAG_PROPERTY, tag))),
                   name=TableName(db, "*"), tag=tag, payload=CreateDatabasePayload(owns_location))
        return (db,)

    UndoStatement(parts, "CREATE DATABASE", db, statement, CREATE_DATABASE_POINTS).run(body)
    return True
