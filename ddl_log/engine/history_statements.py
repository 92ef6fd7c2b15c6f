"""DESCRIBE HISTORY and SHOW TABLES DROPPED: reads of a table name's history (:mod:`actions.version_history`),
nothing logged or binlogged. Rows in Delta's shape where it fits: the version, when and by which operation it
became current, then what this project adds (the statement, when it stopped being current and why, until when it
can be restored, its directory and size)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.kept_versions import dropped_tables, time_text
from actions.results import StatementResult
from actions.version_history import Entry, kept_entry, table_history
from chains.lock_keys import LockKeys
from ddl_log.engine.typed import Statement
from storage.catalogs.names import TableName, check_identifier


@attrs.frozen
class HistoryRow:
    """One version of a table. ``timestamp``, ``operation``, ``statement``: when, by which kind of statement and
    which text it last became current (None: unknown, a version made outside the log); ``current``: it is the
    table now; ``retired_at`` / ``retired_by``: when and by what it stopped being current (``dropped``: by a DROP);
    ``restorable_until``: when its retention ends (None for the current one); ``periods``: every period it was
    current (``from``, ``to``; ``to`` None while current)."""

    version: int | None
    timestamp: str | None
    operation: str | None
    table: str
    statement: str | None
    current: bool
    dropped: bool
    retired_at: str | None
    retired_by: str | None
    restorable_until: str | None
    periods: tuple[tuple[str | None, str | None], ...]
    location: str
    size: int | None


def history_row(ctx: ActionContext, table: TableName, entry: Entry) -> HistoryRow:
    def text(seconds: float | None) -> str | None:
        return None if seconds is None or abs(seconds) == float("inf") else time_text(seconds)

    return HistoryRow(entry.number, text(entry.made_at), entry.made_by, str(table), entry.statement, entry.current,
                      entry.dropped, text(entry.retired_at), entry.retired_by,
                      None if entry.kept is None else text(entry.kept.due),
                      tuple((text(start), text(end)) for start, end, _ in entry.all_periods()), entry.location,
                      data_size(ctx, entry.location))


def data_size(ctx: ActionContext, location: str | None) -> int | None:
    summary = ctx.catalog.versions.data_summary(location) if location else None
    return None if summary is None else summary.size


def history_rows(ctx: ActionContext, table: TableName, entries: Iterable[Entry]) -> list[HistoryRow]:
    return [history_row(ctx, table, entry) for entry in entries]


@attrs.frozen(kw_only=True)
class HistoryResult(StatementResult):
    rows: tuple[HistoryRow, ...] = ()


@attrs.frozen(kw_only=True)
class DescribeHistory(Statement):
    """DESCRIBE HISTORY t: every version of ``t`` the log knows, the current one first, then the kept ones, newest
    first (a read)."""

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
        identity = ctx.catalog.names.identity(self.name)
        current = None if identity is None else (identity, ctx.catalog.definitions.table_location(self.name) or "")
        rows = history_rows(ctx, self.name, table_history(ctx.log, self.name, current))
        return HistoryResult(done=True, objects=(str(self.name),), rows=tuple(rows),
                             detail=f"{len(rows)} versions of {self.name}")


@attrs.frozen(kw_only=True)
class ShowTablesDropped(Statement):
    """SHOW TABLES DROPPED [IN db]: the newest dropped version of each dropped table name, which UNDROP brings back
    (a read)."""

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
        rows = [history_row(ctx, version.table, kept_entry(version))
                for version in dropped_tables(ctx.log, self.database)]
        return HistoryResult(done=True, rows=tuple(rows), detail=f"{len(rows)} dropped tables kept")
