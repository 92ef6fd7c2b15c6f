"""CREATE_DB: CREATE DATABASE; undo drops the database the statement created (its tag), only while it is empty, or
removes the directory a create cut inside the metastore left (only when there was none before)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage.catalogs.names import TableName


@attrs.frozen
class CreateDatabasePayload:
    """``owns_location``: no directory was there before, so a leftover one is ours."""

    owns_location: bool

    def to_wire(self) -> dict[str, Any]:
        return {"owns_location": self.owns_location}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CreateDatabasePayload:
        return cls(bool(require(data, "owns_location", "CREATE_DB")))


def log_create_database(log: DDLLog, chain: int, db: str, tag: str, *, owns_location: bool) -> ActionEntry:
    return log.add_action(chain, ActionType.CREATE_DB, name=TableName(db, "*"), tag=tag,
                          payload=CreateDatabasePayload(owns_location))


def undo_create_database(action: ActionEntry, ctx: ActionContext) -> None:
    db = name_of(action).db
    payload = payload_of(action, CreateDatabasePayload)
    if ctx.catalog.databases.database_exists(db):
        if ctx.catalog.databases.database_identity(db) == action.tag and ctx.catalog.databases.list_objects(db).empty:
            ctx.catalog.databases.drop_database(db)
        return
    if payload.owns_location:
        ctx.catalog.databases.clean_database_leftovers(db)


def describe(action: ActionEntry) -> str:
    return f"drop database {action.name.db if action.name else '?'} if it has tag {action.tag} and is empty"


KIND = ActionKind(ActionType.CREATE_DB, ("DATABASE",), CreateDatabasePayload, undo_create_database, describe,
                  "database", log_create_database)
