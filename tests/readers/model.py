"""The readers' model: which results a read of a table may return, given when the writer's statements ran.

Every table version the writer makes is recognisable by its content, a list of rows ``[p, count, min v, max v,
sum a]`` (one row per partition ``p``; ``p`` is None, and the single row is there even for 0 rows, for an
unpartitioned table). An *event* says that from some moment in ``[start, end]`` on the table holds ``content``: a
statement (installed somewhere between its start and end), the set-up, or a recovery. Version k is live from its
event's start at the earliest to the next event's end at the latest.

A read over ``[start, end]`` is classified as:

* ``good``: its result is the content of a version possibly live during the read;
* ``stale``: it is the content of an older version (committed before the read ended, superseded before it began):
  wrong for a reader in the writer's own session (the statement refreshes that session), allowed for a reader in
  another driver, which keeps its cached relation until it refreshes (the figure is reported beside);
* ``wrong``: no version ever had it (empty while no empty version was live, partial, mixed, a future version; "no
  such table" while the table was not dropped);
* ``failed``: the query raised (its error condition is kept), other than finding no table.

An empty version (column-list or LIKE replace, TRUNCATE) is a version like any other: the model expects it only
while it is live. So is a dropped table (:data:`ABSENT`): a read that finds no table is right only while the
table was dropped.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

Row = tuple[Any, ...]
Content = tuple[Row, ...]

GOOD, STALE, WRONG, FAILED = "good", "stale", "wrong", "failed"
IDLE = "between statements"
ABSENT: Content = (("absent",),)
"""The content of a table that is not there (after a DROP): a read that finds no table reads this."""
NOT_FOUND = "TABLE_OR_VIEW_NOT_FOUND"
HIVE_NOT_FOUND = "table not found)"
"""The Hive client's NoSuchObjectException for a table (Spark 4.0 reports it as _LEGACY_ERROR_TEMP_3065): a read
that resolved the name, then asked the metastore for its partitions after a DROP took the name, found no table."""


def normalise(rows: Iterable[Sequence[Any]]) -> Content:
    """Rows as a sorted tuple (partition None first), the form contents are compared in."""
    return tuple(sorted((tuple(row) for row in rows), key=lambda row: (row[0] is not None, str(row[0]))))


def unpartitioned(rows: int, v: int) -> Content:
    """``SELECT id AS a, v FROM range(rows)``."""
    if rows == 0:
        return ((None, 0, None, None, None),)
    return ((None, rows, v, v, rows * (rows - 1) // 2),)


def partitioned(parts: Mapping[int, tuple[int, int, int]]) -> Content:
    """Partition ``p`` -> (rows, v, sum of a); partitions without rows do not show in a GROUP BY."""
    return normalise((p, n, v, v, total) for p, (n, v, total) in parts.items() if n > 0)


@attrs.frozen
class Event:
    """From a moment in ``[start, end]`` on, ``table`` holds ``content``. ``kind``: the statement kind (or
    ``setup`` / ``recovery``). ``error``: the statement raised (the content is then the one before it)."""

    table: str
    kind: str
    start: float
    end: float
    content: Content
    error: str | None = None

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Event:
        return cls(record["table"], record["kind"], record["start"], record["end"],
                   normalise(record["content"]), record.get("error"))

    def as_json(self) -> dict[str, Any]:
        return {"type": "event", "table": self.table, "kind": self.kind, "start": self.start, "end": self.end,
                "content": [list(row) for row in self.content], "error": self.error}


@attrs.frozen
class Read:
    """One reader query: its interval, and its result or its error."""

    who: str
    table: str
    start: float
    end: float
    result: Content | None
    error: str | None = None

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Read:
        result = record.get("result")
        return cls(record["who"], record["table"], record["start"], record["end"],
                   None if result is None else normalise(result), record.get("error"))

    def as_json(self) -> dict[str, Any]:
        return {"type": "read", "who": self.who, "table": self.table, "start": self.start, "end": self.end,
                "result": None if self.result is None else [list(row) for row in self.result], "error": self.error}


@attrs.frozen
class Version:
    content: Content
    earliest: float
    latest: float
    kind: str


def versions(events: Iterable[Event]) -> dict[str, list[Version]]:
    """Per table, its versions in order (events sorted by start)."""
    by_table: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        by_table[event.table].append(event)
    result: dict[str, list[Version]] = {}
    for table, table_events in by_table.items():
        ordered = sorted(table_events, key=lambda e: (e.start, e.end))
        result[table] = [Version(e.content, e.start, ordered[i + 1].end if i + 1 < len(ordered) else math.inf,
                                 e.kind) for i, e in enumerate(ordered)]
    return result


def outcome(read: Read) -> Content | None:
    """What the read saw: its rows, :data:`ABSENT` when it found no table (a DROP's version), None when it failed."""
    if read.result is not None:
        return read.result
    if read.error is not None and read.error.removeprefix("REFRESH ").startswith(NOT_FOUND):
        return ABSENT
    if read.error is not None and HIVE_NOT_FOUND in read.error:  # looked up in the metastore once the name was gone
        return ABSENT
    return None


def classify(read: Read, table_versions: Sequence[Version]) -> str:
    seen = outcome(read)
    if seen is None:
        return FAILED
    if any(v.content == seen and v.earliest <= read.end and v.latest >= read.start for v in table_versions):
        return GOOD
    if any(v.content == seen and v.earliest <= read.end for v in table_versions):
        return STALE
    return WRONG


def tally(events: Iterable[Event], reads: Iterable[Read], *, stale_ok: bool, who: str | None = None
          ) -> tuple[dict[str, Counter[str]], Counter[str], list[dict[str, Any]]]:
    """Per kind: ``reads``, ``failed``, ``wrong``, ``stale`` and ``bad`` (failed + wrong, + stale unless
    ``stale_ok``); plus the error conditions seen and a few bad reads for the report. ``who``: only reads whose
    reader name starts with it."""
    events = list(events)
    table_versions = versions(events)
    statements: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        if event.kind not in ("setup",):
            statements[event.table].append(event)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    errors: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    for read in reads:
        if who is not None and not read.who.startswith(who):
            continue
        verdict = classify(read, table_versions.get(read.table, []))
        kinds = sorted({e.kind for e in statements.get(read.table, []) if e.start <= read.end and e.end >= read.start})
        bad = verdict in (FAILED, WRONG) or (verdict == STALE and not stale_ok)
        for kind in kinds or [IDLE]:
            counts[kind]["reads"] += 1
            if verdict != GOOD:
                counts[kind][verdict] += 1
            if bad:
                counts[kind]["bad"] += 1
        counts["all"]["reads"] += 1
        if verdict != GOOD:
            counts["all"][verdict] += 1
        if bad:
            counts["all"]["bad"] += 1
            if verdict == FAILED:
                errors[(read.error or "?").split(":")[0]] += 1
            if len(examples) < 8:
                examples.append({"verdict": verdict, "during": kinds, **read.as_json()})
    return dict(counts), errors, examples


def render(title: str, counts: Mapping[str, Counter[str]], errors: Counter[str], *, stale_ok: bool) -> str:
    """A table per kind: reads, failed, wrong (and stale), bad per 100 reads."""
    lines = [title, f"  {'statement kind':34}{'reads':>7}{'failed':>8}{'wrong':>7}{'stale':>7}{'bad/100':>9}"]
    for kind in sorted(counts, key=lambda k: (k == "all", k == IDLE, k)):
        c = counts[kind]
        per100 = 100.0 * c["bad"] / c["reads"] if c["reads"] else 0.0
        stale = f"{c['stale']}" + ("" if stale_ok else "!")
        lines.append(f"  {kind:34}{c['reads']:>7}{c['failed']:>8}{c['wrong']:>7}{stale:>7}{per100:>9.1f}")
    if errors:
        lines.append("  errors: " + ", ".join(f"{k} x{v}" for k, v in errors.most_common()))
    if not stale_ok:
        lines.append("  (stale! = an older version in the writer's own session: counted bad)")
    return "\n".join(lines)
