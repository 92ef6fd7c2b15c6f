"""RESTORE TABLE and UNDROP TABLE: a kept version (:mod:`actions.versions`) made the table again, each an atomic,
binlogged statement; DESCRIBE HISTORY and SHOW TABLES DROPPED read what is kept.

Both are one catalog call between log writes. Chain C (undo) logs INSTALL_VERSION (undo: the previous definition
back in one call, or the undropped table removed without its files); in the same durable write, linked to C, chain D
logs CLAIM_VERSION (after the commit the restored version's deletion is cancelled: its files are the table's again)
and, for RESTORE, chain E keeps the replaced current version (DELETE_DATA with its definition), so a RESTORE can be
undone by another. Then the install, the commit (binlog), D."""

from __future__ import annotations

import contextlib
import secrets
import time
from datetime import datetime
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.kinds.claim_version import log_claim_version
from actions.kinds.delete_data import log_delete_data
from actions.kinds.install_version import log_install_version
from actions.locking import LockKeys
from actions.replay import replay_chain
from actions.results import StatementResult
from actions.versions import Version, dropped_tables, keep_version, kept_versions, retention_of, time_text
from chains.entries import ChainKind
from ddl_log.engine.driver import StatementPoints, UndoStatement
from ddl_log.engine.lookups import missing_table
from ddl_log.engine.typed import Statement
from ddl_log.errors import NoSuchVersionError
from replace_table.versions import installed_version
from storage.catalogs.interface import TableVersion
from storage.catalogs.names import TableName, check_identifier
from storage.errors import CatalogError, DDLLogError, NoSuchObjectError, NotAtomicError, ObjectExistsError

RESTORE_POINTS = StatementPoints.declare("restore")
UNDROP_POINTS = StatementPoints.declare("undrop")


@attrs.frozen(kw_only=True)
class VersionResult(StatementResult):
    """RESTORE / UNDROP: ``version`` the kept version brought back; ``kept``: the number the replaced current
    version is kept under (RESTORE; None when none is kept)."""

    version: int
    kept: int | None = None


def parse_timestamp(value: str | float) -> float:
    """Seconds since the epoch of ``'2026-11-25 08:30:00'`` (ISO 8601; local time unless it names a zone)."""
    if isinstance(value, int | float):
        return float(value)
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise CatalogError(f"not a timestamp: {value!r} (write it as 'YYYY-MM-DD HH:MM:SS')", value) from None


def version_as_of(ctx: ActionContext, name: TableName, number: int | None, timestamp: float | None) -> Version:
    """The kept version of ``name`` numbered ``number``, or the one that was current at ``timestamp``: the
    oldest kept version retired after it."""
    versions = kept_versions(ctx.log, name)
    if number is not None:
        found = [version for version in versions if version.number == number]
        if not found:
            raise NoSuchVersionError(f"table {name} has no kept version {number} (DESCRIBE HISTORY lists them)",
                                     str(name))
        return found[0]
    assert timestamp is not None
    later = [version for version in versions if version.kept.kept_at > timestamp]
    if not later:
        raise NoSuchVersionError(f"no kept version of table {name} was current at {timestamp_text(timestamp)} (the "
                                 "current version was, or the versions of that time are gone)", str(name))
    return later[0]


def timestamp_text(seconds: float) -> str:
    return time_text(seconds)


def _install(ctx: ActionContext, name: TableName, version: Version, current: TableVersion | None,
             statement: Statement, points: StatementPoints) -> VersionResult:
    """Log, install ``version`` as ``name`` (over ``current``, or creating it when None), commit, claim."""
    tag = f"v{version.number}-{secrets.token_hex(8)}"
    linked: dict[str, int] = {}

    def log_all(chain: int) -> None:
        with ctx.log.batch():
            log_install_version(ctx.log, chain, name, tag, None if current is None else current.definition)
            linked["claim"] = ctx.log.new_chain(ChainKind.FORWARD, statement.binlog_text, master=chain)
            log_claim_version(ctx.log, linked["claim"], name, version.chain)
            if current is not None:
                linked["kept"] = ctx.log.new_chain(ChainKind.FORWARD, statement.binlog_text, master=chain)
                log_delete_data(ctx.log, linked["kept"], name, current.location,
                                time.time() + retention_of(ctx, current),
                                keep_version(current, statement.label, dropped=False))

    def body(run: UndoStatement) -> tuple[str, ...]:
        run.logged(log_all, lambda: ctx.catalog.install_version(name, version.kept.definition, tag,
                                                                create=current is None))
        run.version = installed_version(ctx, name)
        return (str(name),)

    event = UndoStatement(ctx, statement.label, str(name), statement.binlog_text, points).run(body)
    with contextlib.suppress(DDLLogError):  # committed; the claim chain stays active and recovery finishes it
        replay_chain(ctx, linked["claim"])
    return VersionResult(objects=(str(name),), event=event, version=version.number, kept=linked.get("kept"),
                         detail=f"version {version.number} of {name} restored")


@attrs.frozen(kw_only=True)
class RestoreTable(Statement):
    """RESTORE TABLE t TO VERSION AS OF n | TO TIMESTAMP AS OF '...': the kept version's definition, partitions
    and files become the table's in one catalog call; the version replaced is kept in turn (a RESTORE is undone
    by another)."""

    label: ClassVar[str] = "RESTORE TABLE"
    name: TableName
    version: int | None = None
    timestamp: str | float | None = None

    @classmethod
    def of(cls, name: str | TableName, *, version: int | None = None, timestamp: str | float | None = None,
           text: str | None = None) -> RestoreTable:
        if (version is None) == (timestamp is None):
            raise CatalogError("RESTORE TABLE needs a version or a timestamp, not both", str(name))
        return cls(name=TableName.of(name), version=version, timestamp=timestamp, text=text)

    def canonical_text(self) -> str:
        target = (f"VERSION AS OF {self.version}" if self.version is not None
                  else f"TIMESTAMP AS OF '{self.timestamp}'")
        return f"RESTORE TABLE {self.name.quoted} TO {target}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> VersionResult:
        when = None if self.timestamp is None else parse_timestamp(self.timestamp)
        if ctx.catalog.identity(self.name) is None:
            raise missing_table(ctx.catalog, self.name)
        version = version_as_of(ctx, self.name, self.version, when)
        current = ctx.catalog.version_of(self.name)
        if current is None:
            raise NotAtomicError(f"cannot restore {self.name}: its current definition cannot be kept whole "
                                 "(an external or Hive serde table, or no handle on the metastore)", str(self.name))
        refusal = ctx.catalog.install_refusal(self.name, version.kept.definition)
        if refusal is not None:
            raise NotAtomicError(f"cannot restore {self.name} to version {version.number} in one metastore call: "
                                 f"{refusal}; its files stay at {version.location} until "
                                 f"{timestamp_text(version.due)}", str(self.name))
        return _install(ctx, self.name, version, current, self, RESTORE_POINTS)


@attrs.frozen(kw_only=True)
class UndropTable(Statement):
    """UNDROP TABLE t: the newest dropped version of ``t`` is the table again (its definition, partitions and
    files), refused naming the table when the name is taken (rename that table first, as Snowflake asks)."""

    label: ClassVar[str] = "UNDROP TABLE"
    name: TableName

    @classmethod
    def of(cls, name: str | TableName, *, text: str | None = None) -> UndropTable:
        return cls(name=TableName.of(name), text=text)

    def canonical_text(self) -> str:
        return f"UNDROP TABLE {self.name.quoted}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> VersionResult:
        found = [version for version in dropped_tables(ctx.log, self.name.db) if version.table == self.name]
        if not found:
            raise NoSuchVersionError(f"no dropped table {self.name} is kept (SHOW TABLES DROPPED lists them)",
                                     str(self.name))
        if ctx.catalog.identity(self.name) is not None or ctx.catalog.view_definition(self.name) is not None:
            raise ObjectExistsError(f"cannot undrop {self.name}: an object named {self.name} exists; rename or drop "
                                    "it first", str(self.name))
        if not ctx.catalog.database_exists(self.name.db):
            raise NoSuchObjectError(f"cannot undrop {self.name}: database {self.name.db} does not exist (create "
                                    "it first)", self.name.db)
        return _install(ctx, self.name, found[-1], None, self, UNDROP_POINTS)


@attrs.frozen
class HistoryRow:
    """One kept version, as DESCRIBE HISTORY and SHOW TABLES DROPPED show it (Delta's columns where they fit)."""

    version: int
    table: str
    timestamp: str
    operation: str
    statement: str
    xid: int | None
    restorable_until: str
    location: str
    size: int | None
    dropped: bool


def history_rows(ctx: ActionContext, versions: list[Version]) -> list[HistoryRow]:
    return [HistoryRow(v.number, str(v.table), timestamp_text(v.kept.kept_at), v.kept.operation, v.statement,
                       v.kept.xid, timestamp_text(v.due), v.location, ctx.catalog.data_size(v.location), v.dropped)
            for v in versions]


@attrs.frozen(kw_only=True)
class HistoryResult(StatementResult):
    rows: tuple[HistoryRow, ...] = ()


@attrs.frozen(kw_only=True)
class DescribeHistory(Statement):
    """DESCRIBE HISTORY t: the kept versions of ``t``, newest first (a read: nothing logged or binlogged)."""

    label: ClassVar[str] = "DESCRIBE HISTORY"
    name: TableName

    @classmethod
    def of(cls, name: str | TableName, *, text: str | None = None) -> DescribeHistory:
        return cls(name=TableName.of(name), text=text)

    def canonical_text(self) -> str:
        return f"DESCRIBE HISTORY {self.name.quoted}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> HistoryResult:
        rows = history_rows(ctx, list(reversed(kept_versions(ctx.log, self.name))))
        return HistoryResult(done=True, objects=(str(self.name),), rows=tuple(rows),
                             detail=f"{len(rows)} kept versions of {self.name}")


@attrs.frozen(kw_only=True)
class ShowTablesDropped(Statement):
    """SHOW TABLES DROPPED [IN db]: the dropped tables UNDROP can bring back (a read)."""

    label: ClassVar[str] = "SHOW TABLES DROPPED"
    database: str | None = None

    @classmethod
    def of(cls, database: str | None = None, *, text: str | None = None) -> ShowTablesDropped:
        return cls(database=None if database is None else check_identifier(database), text=text)

    def canonical_text(self) -> str:
        return "SHOW TABLES DROPPED" + (f" IN `{self.database}`" if self.database is not None else "")

    def lock_keys(self) -> LockKeys:
        return LockKeys()

    def run(self, ctx: ActionContext) -> HistoryResult:
        rows = history_rows(ctx, dropped_tables(ctx.log, self.database))
        return HistoryResult(done=True, rows=tuple(rows), detail=f"{len(rows)} dropped tables kept")
