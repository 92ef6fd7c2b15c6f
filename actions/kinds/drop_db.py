"""DROP_DB: the database of a DROP DATABASE, dropped (rolled forward) once its objects are, only while it carries
the tag the statement gave it (a database created anew under the name after a crash is never touched); its directory
stays for the readers of its dropped tables when their files are kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName

DROP_DB_BEFORE = crashpoints.declare("forward.drop_db.before_drop", "roll-forward is about to drop a database")


@attrs.frozen
class DropDatabasePayload:
    """``keep_files``: the directory stays (its dropped tables' kept files are in it); deleted after the grace
    period by a DELETE_DATA chain once nothing uses it."""

    keep_files: bool

    def to_wire(self) -> dict[str, Any]:
        return {"keep_files": self.keep_files}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropDatabasePayload:
        return cls(bool(require(data, "keep_files", "DROP_DB")))


def log_drop_database(log: DDLLog, chain: int, db: str, tag: str, *, keep_files: bool) -> ActionEntry:
    return log.add_action(chain, ActionType.DROP_DB, name=TableName(db, "*"), tag=tag,
                          payload=DropDatabasePayload(keep_files))


def forward_drop_database(action: ActionEntry, ctx: ActionContext) -> None:
    db = name_of(action).db
    databases = ctx.catalog.databases
    identity = databases.database_identity(db)  # first: where it is the statement's, the one call needed
    if identity == action.tag:
        DROP_DB_BEFORE()
        databases.drop_database(db, keep_files=payload_of(action, DropDatabasePayload).keep_files)
    elif identity is None and not databases.database_exists(db):
        # a drop cut between the metastore commit and the directory delete
        databases.clean_database_leftovers(db)


def describe(action: ActionEntry) -> str:
    return f"drop database {action.name.db if action.name else '?'} if it still has tag {action.tag}"


KIND = ActionKind(ActionType.DROP_DB, ("DATABASE",), DropDatabasePayload, forward_drop_database, describe,
                  "database", log_drop_database)
