"""INSTALL_VERSION: a statement makes a definition the table's in one catalog call, the previous definition logged
first: a replace's swap (the new version built under TMP), RESTORE and UNDROP (a kept version). Undo: while the table
is the one installed (its new identity), put the previous definition back in one call (a replace, RESTORE), or remove
the table from the catalog without its files (UNDROP: they are the dropped version's, still kept). A replace's new
version, undone after readers may have seen it, keeps its files for the grace period."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from actions.context import ActionContext
from actions.kinds.delete_data import DeleteDataPayload, KeptVersion, log_delete_data
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from actions.leftovers import kept_by_this_log
from chains.entries import ActionEntry, ActionType, ChainKind
from chains.log import DDLLog
from chains.retention import version_retention
from storage import crashpoints
from storage.catalogs.kept_directories import same_location
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_INSTALL_BEFORE = crashpoints.declare(
    "undo.install_version.before", "undo is about to put a table's previous definition back")


@attrs.frozen
class InstallVersionPayload:
    """``previous``: the table's definition before (``Versions.version_of``), None when the name was free.
    ``previous_identity`` and ``previous_location``: the table's identity and data location before, when the statement
    knew them (a replace). Undo then tells "not installed yet" (the old table is still there) from "another table
    took the name since" (a plain-Spark DROP + CREATE before recovery): that table is never touched, and the old
    version, whose files nothing reads any more, is kept as a dropped version (UNDROP, SHOW TABLES DROPPED) for the
    retention period. None (RESTORE, UNDROP, logs of earlier versions): any other table is only left alone."""

    previous: str | None
    previous_identity: str | None = None
    previous_location: str | None = None
    logged_at: float | None = None
    """When the action was logged (epoch seconds): a file at the previous location changed later is not the previous
    version's (:func:`keep_as_dropped`)."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("previous_identity", "previous_location", "logged_at")
    """Absent in logs written before replaces logged INSTALL_VERSION (or, ``logged_at``, before it was logged):
    absent means unknown."""

    def to_wire(self) -> dict[str, Any]:
        return {"previous": self.previous, "previous_identity": self.previous_identity,
                "previous_location": self.previous_location, "logged_at": self.logged_at}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> InstallVersionPayload:
        previous = require(data, "previous", "INSTALL_VERSION")
        identity, location, logged = data.get("previous_identity"), data.get("previous_location"), data.get("logged_at")
        return cls(None if previous is None else str(previous), None if identity is None else str(identity),
                   None if location is None else str(location), None if logged is None else float(logged))


def log_install_version(log: DDLLog, chain: int, name: TableName, new_tag: str, previous: str | None, *,
                        previous_identity: str | None = None, previous_location: str | None = None) -> ActionEntry:
    return log.add_action(chain, ActionType.INSTALL_VERSION, name=name, tag=new_tag,
                          payload=InstallVersionPayload(previous, previous_identity, previous_location, time.time()))


def undo_install_version(action: ActionEntry, ctx: ActionContext) -> None:
    """Only the table this statement installed (identity ``tag``) is touched: one made since is left alone."""
    name = name_of(action)
    if action.tag is None:
        raise CatalogError(f"install action {action.id} lacks its identity", str(name))
    payload = payload_of(action, InstallVersionPayload)
    identity = ctx.catalog.names.identity(name)
    if identity != action.tag:
        if payload.previous_identity is not None and identity != payload.previous_identity:
            keep_as_dropped(action, ctx, payload)
        if payload.previous is None:
            ctx.catalog.swaps.forget_table(name, expect=action.tag)  # a creation cut before the name was the table's
        return  # not installed yet, or undone already
    if payload.previous_identity is not None:
        keep_for_readers(action, ctx)
    UNDO_INSTALL_BEFORE()
    if payload.previous is None:
        ctx.catalog.swaps.forget_table(name, expect=action.tag)
    else:
        ctx.catalog.versions.install_version(name, payload.previous, None, create=False)


def keep_for_readers(action: ActionEntry, ctx: ActionContext) -> bool:
    """A replace's new version was the table's until this undo: a reader (another driver) may have resolved the
    name to its directory and be reading it. Its files are therefore kept for the grace period (a chain of its own,
    logged before the old definition goes back, once), as a replaced version's are, and the work table's undo then
    removes it from the catalog without its files (:func:`actions.kinds.create_table.undo_create_table`); True when
    this call logged it."""
    name = name_of(action)
    location = ctx.catalog.definitions.table_location(name)
    if location is None or kept_by_this_log(ctx.log, location):
        return False
    statement = ctx.log.chain(action.chain).statement
    position = ctx.log.new_chain(ChainKind.FORWARD, f"kept for readers after undo: {statement}")
    log_delete_data(ctx.log, position, name, location, time.time() + ctx.grace_seconds, None)
    return True


def keep_as_dropped(action: ActionEntry, ctx: ActionContext, payload: InstallVersionPayload) -> bool:
    """Someone else's table (or none) holds the name: keep the previous version, if its files are still there, as
    a dropped version of the name (a chain of its own, due after the retention; after the grace period only where
    it lives at the name's default directory, which would keep plain Spark from making a table of that name:
    :func:`~chains.retention.version_retention`, the rule of every kept version), once; True when this call logged
    it. Nothing where that table's directory is the previous version's (a managed table plain Spark made at the same
    default directory: the files there are its own now), nor where a data file there changed after the statement
    logged its install: plain Spark's CTAS at the name's default directory commits its files there before its table
    names the directory, and the version's files cannot be told from them (none is deleted; at worst the version's
    files stay as leftovers). Its deletion proves ownership first, as every scheduled deletion does."""
    location, previous, name = payload.previous_location, payload.previous, name_of(action)
    summary = None if location is None or previous is None else ctx.catalog.versions.data_summary(location)
    if location is None or previous is None or summary is None or not summary.files:
        return False  # nothing to keep: the files went with a DROP, or there never were any (or none can be seen)
    if payload.logged_at is not None and summary.newest > payload.logged_at:
        return False  # written since: a newcomer's (its table not made yet), or the version's mixed with one's
    holder = ctx.catalog.definitions.table_location(name)
    if same_location(holder, location):
        return False  # the files are the newcomer's: plain Spark made its managed table at the same directory
    if any(other.type is ActionType.DELETE_DATA and not other.done
           and payload_of(other, DeleteDataPayload).location == location
           for chain in ctx.log.active_chains() if chain.master != action.chain  # the statement's own: cancelled
           for other in ctx.log.actions_of(chain.position)):
        return False  # logged already, by an earlier run of this undo
    statement = ctx.log.chain(action.chain).statement
    position = ctx.log.new_chain(ChainKind.FORWARD, f"kept after undo, its name taken: {statement}")
    kept = KeptVersion(previous, time.time(), "DROP TABLE (its name taken outside the log)", True, None)
    default = ctx.catalog.names.default_location(name)
    at_default = same_location(default, location)
    retention = version_retention(grace=ctx.grace_seconds, default=ctx.retention_seconds,
                                  at_default_location=at_default, stored=None)  # its table's property is gone
    log_delete_data(ctx.log, position, name, location, time.time() + retention, kept)
    return True


def describe(action: ActionEntry) -> str:
    previous = payload_of(action, InstallVersionPayload).previous
    what = "put its previous definition back" if previous is not None else "remove it, not its files"
    return f"while table {action.name} has identity {action.tag} (a restored version): {what}"


KIND = ActionKind(ActionType.INSTALL_VERSION, ("DEFINITION",), InstallVersionPayload, undo_install_version,
                  describe, "object", log_install_version)
