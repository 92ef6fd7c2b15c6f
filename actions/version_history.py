"""A table name's history as Delta shows one: every version the log knows, the current one first, each with its
number, how and when it became current, and every period it was current. RESTORE ... TO VERSION AS OF n installs the
version numbered n of this history; TO TIMESTAMP AS OF ts the one whose period holds ts, or is refused saying why.

Where it comes from: the kept versions (:func:`actions.kept_versions.kept_versions`, each carrying what it was when it
was
kept: :func:`kept_version`), and the current table's identity tag (:mod:`actions.version_tags`). A *version* is a
table's definition and its directory: CREATE, CREATE OR REPLACE, TRUNCATE, INSERT OVERWRITE and ALTER TABLE rebuilds
make a new one (numbered by the XID of the statement), RESTORE and UNDROP make a kept one current again (its number
kept, a new period begun), INSERT INTO adds rows to the current one (no new version: a version's rows are those of
its directory when it stops being current)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import attrs

from actions.context import ActionContext
from actions.kept_versions import Version, kept_versions
from actions.kinds.delete_data import KeptVersion
from actions.version_tags import Period, tag_version
from chains.log import DDLLog
from storage.catalogs.interface import TableVersion, tag_in
from storage.catalogs.names import TableName


@attrs.frozen
class Entry:
    """One version of a table name: ``kept`` the kept version (None: the current table, ``location`` its
    directory). ``made_at``/``made_by``/``statement``: when, by which kind of statement and which text it last became
    current (None: unknown, made outside the log or before it recorded it); ``periods`` the earlier ones."""

    number: int | None
    made_at: float | None
    made_by: str | None
    statement: str | None
    periods: tuple[Period, ...]
    retired_at: float | None
    retired_by: str | None
    dropped: bool
    location: str
    kept: Version | None = None

    @property
    def current(self) -> bool:
        return self.kept is None

    def all_periods(self) -> tuple[Period, ...]:
        """Every period it was current: the earlier ones, then the last (open while it is current)."""
        end = math.inf if self.retired_at is None else self.retired_at
        return (*self.periods, (-math.inf if self.made_at is None else self.made_at, end, self.dropped))


def kept_version(ctx: ActionContext, version: TableVersion, owner: TableName, operation: str, *, dropped: bool,
                 xid: int | None = None) -> KeptVersion:
    """``version`` of ``owner`` (the table as it is now) as it is kept when ``operation`` (XID ``xid``) retires it:
    its definition, its number and how it became current (its tag, or the version its making statement retired,
    which knows the instant exactly), and its data files (one listing of its directory)."""
    tagged = tag_version(tag_in(dict(version.properties)))
    made = _made(ctx.log, owner, tagged)
    files = ctx.catalog.data.file_mover().data_files(version.location)
    return KeptVersion(version.definition, time.time(), operation, dropped, xid,
                       None if tagged is None else tagged.number, made.made_at, made.made_by, made.statement,
                       made.periods, files)


@attrs.frozen
class _Made:
    made_at: float | None = None
    made_by: str | None = None
    statement: str | None = None
    periods: tuple[Period, ...] = ()


def _made(log: DDLLog, name: TableName, tagged: object) -> _Made:
    """How the version a tag describes became current: the kept version its statement retired gives the instant
    and the text; else the tag's own (the statement's start)."""
    from actions.version_tags import TagVersion

    if not isinstance(tagged, TagVersion) or tagged.xid is None:
        return _Made()
    retired = next((v for v in kept_versions(log, name) if v.kept.xid == tagged.xid and not v.dropped), None)
    if retired is not None:
        return _Made(retired.kept.kept_at, retired.kept.operation, retired.statement, tagged.periods)
    return _Made(tagged.made_at, tagged.operation, None, tagged.periods)


def table_history(log: DDLLog, name: TableName, current: tuple[str | None, str] | None) -> list[Entry]:
    """Every version of ``name`` the log knows, newest period first: the current table's (``current``: its
    identity tag and directory; None when no table has the name) and the kept ones."""
    kept = kept_versions(log, name)
    entries = [kept_entry(version) for version in kept]
    if current is not None:
        tag, location = current
        tagged = tag_version(tag)
        made = _made(log, name, tagged)
        entries.append(Entry(None if tagged is None else tagged.number, made.made_at, made.made_by, made.statement,
                             made.periods, None, None, False, location))
    return sorted(entries, key=lambda e: (e.retired_at is None, e.retired_at or 0.0), reverse=True)


def kept_entry(version: Version) -> Entry:
    kept = version.kept
    return Entry(version.number, kept.made_at, kept.made_by, kept.made_statement, kept.periods, kept.kept_at,
                 kept.operation, kept.dropped, version.location, version)


@attrs.frozen
class AsOf:
    """What was current at an instant: ``entry`` (None: nothing the log keeps), else ``why`` not, ``reason`` its
    kind: ``dropped`` (no table had the name then), ``not_created`` (before the oldest version the log knows, and
    none known ended before: the table did not exist yet, or what did is past its retention), ``expired`` (the
    version of that time is no longer kept)."""

    entry: Entry | None
    why: str = ""
    reason: str = ""


def current_at(entries: Sequence[Entry], at: float) -> AsOf:
    """The version whose period holds ``at``, or why none the log keeps does."""
    from actions.kept_versions import time_text

    for entry in entries:
        if any(start <= at < end for start, end, _ in entry.all_periods()):
            return AsOf(entry)
    ended = [(end, dropped) for entry in entries for _, end, dropped in entry.all_periods() if end <= at]
    if ended:
        end, dropped = max(ended)
        if dropped:
            return AsOf(None, f"no table had the name then: it was dropped at {time_text(end)}", "dropped")
    first = min((start for entry in entries for start, _, _ in entry.all_periods() if start > at), default=None)
    if first is not None and not ended:
        return AsOf(None, f"the table did not exist yet as far as the log knows: its oldest version kept became "
                    f"current at {time_text(first)} (any older one is past its retention)", "not_created")
    return AsOf(None, "the version current then is no longer kept: its retention is over", "expired")
