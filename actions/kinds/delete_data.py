"""DELETE_DATA: a table version's directory (a replace's old version, a dropped table's files, a dropped database's
directory), deleted once its grace period is over, and only when the catalog proves nothing uses it; else kept, and
why is noted in the log. Until it is due its chain is *waiting* (:mod:`actions.deletions`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

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
class KeptVersion:
    """What makes the files a restorable *version* of their table: its whole definition as the catalog stores it
    (``Versions.version_of``), when and by which statement (``operation``, ``xid`` when known) it stopped being
    current, and whether the table was dropped (UNDROP brings it back) or replaced (RESTORE)."""

    definition: str
    kept_at: float
    operation: str
    dropped: bool
    xid: int | None = None
    number: int | None = None
    """The version's number (:mod:`actions.version_tags`: the XID of the statement that made it), or, when not
    given, its deletion chain's position (a version made outside the log, or kept by a log written before
    versions were numbered so). A version moved out of the name's directory (:mod:`actions.kinds.relocate_version`)
    gets a new deletion chain and keeps its number. Optional on the wire, as the fields below."""
    made_at: float | None = None
    """When it last became current (the statement that made it current: ``made_by``, ``made_statement``)."""
    made_by: str | None = None
    made_statement: str | None = None
    periods: tuple[tuple[float, float, bool], ...] = ()
    """Earlier periods it was current (before a RESTORE or UNDROP made it current again): from, to, and whether a
    DROP ended it."""
    files: tuple[str, ...] | None = None
    """Its data files when it was kept (relative to its directory; None: not listed): RESTORE and UNDROP refuse a
    version some of whose files are gone."""

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"definition": self.definition, "kept_at": self.kept_at, "operation": self.operation,
                                "dropped": self.dropped, "xid": self.xid}
        optional = {"number": self.number, "made_at": self.made_at, "made_by": self.made_by,
                    "made_statement": self.made_statement, "periods": [list(p) for p in self.periods] or None,
                    "files": None if self.files is None else list(self.files)}
        wire.update({key: value for key, value in optional.items() if value is not None})
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> KeptVersion:
        xid, number = require(data, "xid", "DELETE_DATA version"), data.get("number")
        made_at, files = data.get("made_at"), data.get("files")
        return cls(str(require(data, "definition", "DELETE_DATA version")),
                   float(require(data, "kept_at", "DELETE_DATA version")),
                   str(require(data, "operation", "DELETE_DATA version")),
                   bool(require(data, "dropped", "DELETE_DATA version")), None if xid is None else int(xid),
                   None if number is None else int(number), None if made_at is None else float(made_at),
                   data.get("made_by"), data.get("made_statement"),
                   tuple((float(a), float(b), bool(d)) for a, b, d in data.get("periods") or ()),
                   None if files is None else tuple(str(f) for f in files))


@attrs.frozen
class DeleteDataPayload:
    """``location`` is deleted once ``due`` (seconds since the epoch) has come. ``version``: the files are a kept
    table version until then (None: only kept for readers, as a dropped database's directory)."""

    location: str
    due: float
    version: KeptVersion | None = None

    OPTIONAL: ClassVar[tuple[str, ...]] = ("version",)
    """Fields a log written before they existed lacks: absent means no version, which is what such a log meant."""

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"location": self.location, "due": self.due}
        if self.version is not None:
            wire["version"] = self.version.to_wire()
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DeleteDataPayload:
        version = data.get("version")  # absent: a deletion logged without a version (or before versions existed)
        return cls(str(require(data, "location", "DELETE_DATA")), float(require(data, "due", "DELETE_DATA")),
                   None if version is None else KeptVersion.from_wire(version))


def log_delete_data(log: DDLLog, chain: int, owner: TableName, location: str, due: float,
                    version: KeptVersion | None = None) -> ActionEntry:
    return log.add_action(chain, ActionType.DELETE_DATA, name=owner,
                          payload=DeleteDataPayload(location, due, version))


def forward_delete_data(action: ActionEntry, ctx: ActionContext) -> None:
    """Delete the directory (run only once due), unless the catalog finds it in use: then it is kept, and why is
    noted in the log (``ddl-log status`` shows it)."""
    if action.name is None:
        raise CatalogError(f"delete action {action.id} lacks its table name")
    payload = payload_of(action, DeleteDataPayload)
    DELETE_BEFORE()
    kept = ctx.catalog.directories.delete_data(payload.location, action.name)
    if kept is not None:  # something uses the directory now (another table took it over): it is not ours any more
        ctx.log.note(action.id, f"kept {payload.location}: {kept}")


def describe(action: ActionEntry) -> str:
    location = payload_of(action, DeleteDataPayload).location
    return f"delete the old directory of table {action.name} ({location}) unless something uses it"


KIND = ActionKind(ActionType.DELETE_DATA, ("FILES",), DeleteDataPayload, forward_delete_data, describe, "object",
                  log_delete_data)
