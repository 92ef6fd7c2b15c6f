"""Where a replica is in its source's binlog, kept where nothing can separate it from the change: in the replica's
own binlog event of each apply (as MySQL stores the applied GTID in the transaction it applies, WL#9175 FR2).

Each applied statement's binlog text starts with a marker ``/* ddl-log origin <origin> seq <n> id <identity> */``
(the identity of that source event, :func:`event_id`, so that a source that no longer holds it, or holds another
event at that seq, is found before anything more is applied: :mod:`~ddl_log.replication.source_identity`). The text
is also the statement's text in its log chain, so the event recovery writes when it finishes a roll-forward (a DROP
cut by a crash) carries the marker too. The applied position is the highest ``n`` of the origin among the replica's
events: after a crash it moved by exactly the statements that committed, and the catalog agrees with it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from urllib.parse import quote, urlsplit

import attrs

from chains.binlog import BinlogEvent
from storage.records.home import is_database_url

MARKER = re.compile(r"^\s*/\* ddl-log origin (\S+) seq (\d+)(?: id ([0-9a-f]+))? \*/\s")
COMMENT = re.compile(r"/\* ddl-log origin \S+ seq \d+(?: id [0-9a-f]+)? \*/")
"""The marker as a comment anywhere (before a statement of a script, after other comments)."""
ID_LENGTH = 16


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


def event_id(event: BinlogEvent) -> str:
    """The identity of a source event, beside its origin and seq (as the server UUID and number of a MySQL GTID):
    a digest of its seq, commit time, XID and statement. Another event at the same seq (a source restored from a
    backup and gone on, a home re-created at the same path) has another identity."""
    text = f"{event.seq}\x00{event.timestamp!r}\x00{event.xid}\x00{event.statement}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:ID_LENGTH]


def marked(origin: str, seq: int, statement: str, ident: str | None = None) -> str:
    """The replica's text for source event ``seq`` (of identity ``ident``, :func:`event_id`): the marker, then the
    source's statement."""
    named = "" if ident is None else f" id {ident}"
    return f"/* ddl-log origin {origin} seq {seq}{named} */ {statement}"


def marked_event(origin: str, event: BinlogEvent, statement: str | None = None) -> str:
    """:func:`marked` for ``event`` itself (its text unless ``statement`` is given)."""
    return marked(origin, event.seq, event.statement if statement is None else statement, event_id(event))


@attrs.frozen
class Mark:
    origin: str
    seq: int
    ident: str | None = None
    """The source event's identity (None: a marker written before markers named it)."""


def mark_of(statement: str) -> Mark | None:
    match = MARKER.match(statement)
    return None if match is None else Mark(match.group(1), int(match.group(2)), match.group(3))


@attrs.frozen
class AppliedPosition:
    """What a replica's binlog says it applied: the highest source seq per origin, its replica event, and the
    identity of every source event its markers name (``idents``, by origin and seq)."""

    seqs: dict[str, int] = attrs.field(factory=dict)
    last_event: dict[str, BinlogEvent] = attrs.field(factory=dict)
    idents: dict[tuple[str, int], str] = attrs.field(factory=dict)

    def of(self, origin: str) -> int:
        return self.seqs.get(origin, 0)

    def ident_of(self, origin: str, seq: int | None = None) -> str | None:
        """The identity of the source event at ``seq`` (default: the position) as applied (None: not named)."""
        return self.idents.get((origin, self.of(origin) if seq is None else seq))

    @classmethod
    def read(cls, events: Iterable[BinlogEvent]) -> AppliedPosition:
        seqs: dict[str, int] = {}
        last: dict[str, BinlogEvent] = {}
        idents: dict[tuple[str, int], str] = {}
        for event in events:
            mark = mark_of(event.statement)
            if mark is not None and mark.ident is not None:
                idents[(mark.origin, mark.seq)] = mark.ident
            if mark is not None and mark.seq >= seqs.get(mark.origin, 0):
                seqs[mark.origin] = mark.seq
                last[mark.origin] = event
        return cls(seqs, last, idents)
