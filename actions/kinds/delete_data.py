"""DELETE_DATA: a table version's directory (a replace's old version, a dropped table's files, a dropped database's
directory), deleted once its grace period is over, and only when the catalog proves nothing uses it; else kept, and
why is noted in the log. Until it is due its chain is *waiting* (:mod:`actions.deletions`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import CatalogError

DELETE_BEFORE = crashpoints.declare("forward.delete_data.before_delete", "an old table version's files are due")


@attrs.frozen
class DeleteDataPayload:
    """``location`` is deleted once ``due`` (seconds since the epoch) has come."""

    location: str
    due: float

    def to_wire(self) -> dict[str, Any]:
        return {"location": self.location, "due": self.due}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DeleteDataPayload:
        return cls(str(require(data, "location", "DELETE_DATA")), float(require(data, "due", "DELETE_DATA")))


def log_delete_data(log: DDLLog, chain: int, owner: TableName, location: str, due: float) -> ActionEntry:
    return log.add_action(chain, ActionType.DELETE_DATA, name=owner, payload=DeleteDataPayload(location, due))


def forward_delete_data(action: ActionEntry, ctx: ActionContext) -> None:
    """Delete the directory (run only once due), unless the catalog finds it in use: then it is kept, and why is
    noted in the log (``ddl-log status`` shows it)."""
    if action.name is None:
        raise CatalogError(f"delete action {action.id} lacks its table name")
    payload = payload_of(action, DeleteDataPayload)
    DELETE_BEFORE()
    kept = ctx.catalog.delete_data(payload.location, action.name)
    if kept is not None:  # something uses the directory now (another table took it over): it is not ours any more
        ctx.log.note(action.id, f"kept {payload.location}: {kept}")


def describe(action: ActionEntry) -> str:
    location = payload_of(action, DeleteDataPayload).location
    return f"delete the old directory of table {action.name} ({location}) unless something uses it"


KIND = ActionKind(ActionType.DELETE_DATA, ("FILES",), DeleteDataPayload, forward_delete_data, describe, "object",
                  log_delete_data)
