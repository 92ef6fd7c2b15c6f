"""Where a replica is in its source's binlog, kept where nothing can separate it from the change: in the replica's
own binlog event of each apply (as MySQL stores the applied GTID in the transaction it applies, WL#9175 FR2).

Each applied statement's binlog text starts with a marker ``/* ddl-log origin <origin> seq <n> */``. The text is also
the statement's text in its log chain, so the event recovery writes when it finishes a roll-forward (a DROP cut by
a crash) carries the marker too. The applied position is the highest ``n`` of the origin among the replica's
events: after a crash it moved by exactly the statements that committed, and the catalog agrees with it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import quote, urlsplit

import attrs

from chains.binlog import BinlogEvent
from storage.records.home import is_database_url

MARKER = re.compile(r"^\s*/\* ddl-log origin (\S+) seq (\d+) \*/\s")
COMMENT = re.compile(r"/\* ddl-log origin \S+ seq \d+ \*/")
"""The marker as a comment anywhere (before a statement of a script, after other comments)."""


def origin_of(source: str) -> str:
    """The origin id of a source home: ``file:`` and its real path (quoted: no spaces or comment ends in it)."""
    return "file:" + quote(os.path.realpath(source), safe="/:._-")


def origin_for(location: str) -> str:
    """The origin id of any source: a directory home's (:func:`origin_of`), or a database home's, which names its
    catalog binlog (every driver of the database): ``pg:`` host, port and database, never a user or password."""
    if not is_database_url(location):
        return origin_of(location)
    parts = urlsplit(location)
    return "pg:" + quote(f"{parts.hostname or ''}:{parts.port or 5432}{parts.path}", safe="/:._-")


def marked(origin: str, seq: int, statement: str) -> str:
    """The replica's text for source event ``seq``: the marker, then the source's statement."""
    return f"/* ddl-log origin {origin} seq {seq} */ {statement}"


@attrs.frozen
class Mark:
    origin: str
    seq: int


def mark_of(statement: str) -> Mark | None:
    match = MARKER.match(statement)
    return None if match is None else Mark(match.group(1), int(match.group(2)))


@attrs.frozen
class AppliedPosition:
    """What a replica's binlog says it applied: the highest source seq per origin, and its replica event."""

    seqs: dict[str, int] = attrs.field(factory=dict)
    last_event: dict[str, BinlogEvent] = attrs.field(factory=dict)

    def of(self, origin: str) -> int:
        return self.seqs.get(origin, 0)

    def replayed(self, text: str) -> bool:
        """Whether ``text`` carries an origin marker this home applied before."""
        mark = mark_of(text)
        return mark is not None and mark.seq <= self.of(mark.origin)

    @classmethod
    def read(cls, events: Iterable[BinlogEvent]) -> AppliedPosition:
        seqs: dict[str, int] = {}
        last: dict[str, BinlogEvent] = {}
        for event in events:
            mark = mark_of(event.statement)
            if mark is not None and mark.seq >= seqs.get(mark.origin, 0):
                seqs[mark.origin] = mark.seq
                last[mark.origin] = event
        return cls(seqs, last)
