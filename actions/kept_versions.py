"""Table versions: the bookkeeping of what RESTORE and UNDROP can bring back.

A *version* is a table's previous definition and files, kept when a statement replaces the table as a whole
(CREATE OR REPLACE, TRUNCATE, INSERT OVERWRITE, ALTER rebuilds, RESTORE) or drops it (DROP TABLE, DROP DATABASE
CASCADE; ``PURGE`` keeps nothing). It is the DELETE_DATA chain that deletes those files once due, carrying the
definition (:class:`~actions.kinds.delete_data.KeptVersion`): no second record to keep in step, and expiry is that
chain running, proving ownership first as every scheduled deletion does. Its number is the XID of the statement
that made it (:mod:`actions.version_tags`; a version made outside the log: its chain's position): unique in the
home, increasing with time, not consecutive per table, and kept when the version moves out of its table name's
directory (:mod:`actions.kinds.relocate_version`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import datetime

import attrs

from actions.context import ActionContext
from actions.kinds.delete_data import DeleteDataPayload, KeptVersion
from actions.kinds.kind import payload_of
from chains.entries import ActionEntry, ActionType, ExecuteEntry
from chains.log import DDLLog
from chains.retention import RETENTION_PROPERTY, version_retention
from storage.catalogs.interface import TableVersion
from storage.catalogs.names import TableName


@attrs.frozen
class Version:
    """A kept version of ``table``: RESTORE ``number`` (or UNDROP, when ``dropped``) brings it back until ``due``."""

    number: int
    table: TableName
    location: str
    due: float
    kept: KeptVersion
    statement: str
    chain: int
    """The position of the DELETE_DATA chain that keeps it (RESTORE and UNDROP cancel it): its number, unless it
    was moved out of the name's directory (:attr:`KeptVersion.number`)."""

    @property
    def dropped(self) -> bool:
        return self.kept.dropped


def kept_versions(log: DDLLog, table: TableName | None = None, *, now: float | None = None) -> list[Version]:
    """Every restorable version (of ``table``), oldest first; those already due are gone for all purposes."""
    return versions_in(log.active_chains(), log.actions_of, lambda master: log.chain(master).active, table, now=now)


def versions_in(chains: Iterable[ExecuteEntry], actions_of: Callable[[int], list[ActionEntry]],
                is_active: Callable[[int], bool], table: TableName | None = None, *,
                now: float | None = None) -> list[Version]:
    """:func:`kept_versions` over any reading of a log (``ddl-log status`` and ``history`` read it unlocked)."""
    now = time.time() if now is None else now
    found = []
    for chain in chains:
        if not chain.active:
            continue
        for action in actions_of(chain.position):
            if action.type is not ActionType.DELETE_DATA or action.done or action.name is None:
                continue
            payload = payload_of(action, DeleteDataPayload)
            if payload.version is None or payload.due <= now or (table is not None and action.name != table):
                continue
            if chain.master is not None and is_active(chain.master):
                continue  # its statement has not committed (or is being undone): not a version yet
            number = chain.position if payload.version.number is None else payload.version.number
            found.append(Version(number, action.name, payload.location, payload.due, payload.version,
                                 chain.statement, chain.position))
    return sorted(found, key=lambda version: (version.kept.kept_at, version.number))


def version_retired_by(log: DDLLog, xid: int) -> Version | None:
    """The version the statement with binlog XID ``xid`` replaced (its definition, files, retention), if kept: how
    a replica finds, from a binlog event, the version that event retired."""
    return next((version for version in kept_versions(log) if version.kept.xid == xid), None)


def dropped_tables(log: DDLLog, db: str | None = None) -> list[Version]:
    """The newest dropped version of every dropped table name (of database ``db``), by name."""
    newest: dict[TableName, Version] = {}
    for version in kept_versions(log):
        if version.dropped and (db is None or version.table.db == db):
            newest[version.table] = version
    return [newest[name] for name in sorted(newest)]


def retention_of(ctx: ActionContext, version: TableVersion) -> float:
    """How long ``version`` stays restorable (:func:`~chains.retention.version_retention`: its table's property,
    else the home's setting, within the grace period and the name's default directory's rule)."""
    return version_retention(grace=ctx.grace_seconds, default=ctx.retention_seconds,
                             at_default_location=version.at_default_location,
                             stored=dict(version.properties).get(RETENTION_PROPERTY))


def time_text(seconds: float) -> str:
    """``seconds`` since the epoch as local time (``YYYY-MM-DD HH:MM:SS``); ``never`` for a time no calendar date
    shows (a due time of infinity, written by a log before the retention was bounded)."""
    try:
        return datetime.fromtimestamp(seconds).isoformat(sep=" ", timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return "never" if seconds > 0 else "the beginning"

