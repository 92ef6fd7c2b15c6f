"""RESTORE TABLE and UNDROP TABLE: a kept version (:mod:`actions.kept_versions`) made the table again, each an atomic,
binlogged statement, checked here and run as a plan (:mod:`replace_table.plans.restore`: one catalog call between log
writes): the version is current again under its own number, a new period begun (its identity tag says so,
:mod:`actions.version_tags`). A version some of whose listed files are gone is refused, never installed in part.
DESCRIBE HISTORY and SHOW TABLES DROPPED (:mod:`ddl_log.engine.history_statements`) read the history."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.kept_versions import Version, dropped_tables, time_text
from actions.version_history import Entry, current_at, table_history
from chains.lock_keys import LockKeys
from ddl_log.engine.lookups import missing_table
from ddl_log.engine.typed import Statement
from ddl_log.errors import NoSuchVersionError, VersionFilesMissingError
from replace_table.plans.restore import RESTORE, UNDROP, VersionResult, install_kept_version
from storage.catalogs.names import TableName
from storage.errors import CatalogError, NoSuchObjectError, NotAtomicError, ObjectExistsError


def parse_timestamp(value: str | float) -> float:
    """Seconds since the epoch of ``'2026-11-25 08:30:00'`` (ISO 8601; local time unless it names a zone)."""
    if isinstance(value, int | float):
        return float(value)
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise CatalogError(f"not a timestamp: {value!r} (write it as 'YYYY-MM-DD HH:MM:SS')", value) from None


def version_as_of(ctx: ActionContext, name: TableName, number: int | None, timestamp: float | None) -> Entry:
    """The version of ``name`` numbered ``number``, or the one whose period holds ``timestamp``
    (:mod:`actions.version_history`); the current one is returned too (RESTORE of it changes nothing). Raises
    :class:`NoSuchVersionError` naming why none is."""
    entries = table_history(ctx.log, name, (ctx.catalog.names.identity(name),
                                            ctx.catalog.definitions.table_location(name) or ""))
    if number is not None:
        found = [entry for entry in entries if entry.number == number]
        if not found:
            raise NoSuchVersionError(f"table {name} has no version {number} (DESCRIBE HISTORY lists them; a version "
                                     "is kept for its retention)", str(name), reason="unknown")
        return found[0]
    assert timestamp is not None
    found_at = current_at(entries, timestamp)
    if found_at.entry is None:
        raise NoSuchVersionError(f"no version of table {name} was current at {timestamp_text(timestamp)} that can "
                                 f"be restored: {found_at.why}", str(name), reason=found_at.reason)
    return found_at.entry


def timestamp_text(seconds: float) -> str:
    return time_text(seconds)


def check_files(ctx: ActionContext, name: TableName, version: Version) -> None:
    """Refuse a version some of whose data files (listed when it was kept) are gone: it is never installed in
    part (a replica checks a copied version's files alike)."""
    listed = version.kept.files
    present = None if listed is None else ctx.catalog.data.file_mover().data_files(version.location)
    missing = sorted(set(listed or ()) - set(present or ())) if present is not None else []
    if missing:
        raise VersionFilesMissingError(str(name), version.number, version.location, tuple(missing))


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
        if ctx.catalog.names.identity(self.name) is None:
            raise missing_table(ctx.catalog, self.name)
        found = version_as_of(ctx, self.name, self.version, when)
        if found.kept is None:  # the current version: installing it again changes nothing (nothing is binlogged)
            return VersionResult(done=True, objects=(str(self.name),), version=found.number,
                                 detail=f"version {found.number} of {self.name} is the current one already")
        version = found.kept
        current = ctx.catalog.versions.version_of(self.name)
        if current is None:
            raise NotAtomicError(f"cannot restore {self.name}: its current definition cannot be kept whole "
                                 "(an external or Hive serde table, or no handle on the metastore)", str(self.name))
        refusal = ctx.catalog.versions.install_refusal(self.name, version.kept.definition)
        if refusal is not None:
            raise NotAtomicError(f"cannot restore {self.name} to version {version.number} in one metastore call: "
                                 f"{refusal}; its files stay at {version.location} until "
                                 f"{timestamp_text(version.due)}", str(self.name))
        check_files(ctx, self.name, version)
        return install_kept_version(ctx, RESTORE, self.binlog_text, self.name, version, current, verb=self.label)


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
                                     str(self.name), reason="none_dropped")
        if (ctx.catalog.names.identity(self.name) is not None
                or ctx.catalog.views.view_definition(self.name) is not None):
            raise ObjectExistsError.relation(
                f"cannot undrop {self.name}: an object named {self.name} exists; rename or drop it first", self.name)
        if not ctx.catalog.databases.database_exists(self.name.db):
            raise NoSuchObjectError.database(
                f"cannot undrop {self.name}: database {self.name.db} does not exist (create it first)", self.name.db)
        check_files(ctx, self.name, found[-1])
        return install_kept_version(ctx, UNDROP, self.binlog_text, self.name, found[-1], None, verb=self.label)
