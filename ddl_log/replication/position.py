"""What a replica's binlog says beyond the applied position (:mod:`~ddl_log.replication.origin`): bootstraps and
resyncs begun and done, the tables a resync fenced, events skipped, a promotion. All of it lives in the replica's own
binlog events, each written in one durable append (or with the statement it belongs to), so no crash can make these
facts disagree with the catalog.

The texts, every one starting with a ``/* ddl-log ... */`` comment:

* ``/* ddl-log bootstrap O begin */`` (a note): a bootstrap from origin ``O`` began; until its done note the
  replica's catalog is part copied and the applier refuses to run.
* ``/* ddl-log bootstrap O at P */ SQL``: a statement of that bootstrap (copying an object as it was at source
  seq ``P``); it moves no position.
* ``/* ddl-log origin O seq P */ /* ddl-log bootstrap done ... */``: the bootstrap's snapshot is the source's state at
  ``P``; the applied position is ``P`` (an ordinary origin marker).
* ``/* ddl-log resync O begin db.t */``, ``/* ddl-log resync O at Q */ SQL``, ``/* ddl-log resync O done db.t at Q
  */``: one table re-copied as it was at source seq ``Q``: source events up to ``Q`` that touch it are skipped.
* ``/* ddl-log origin O seq N */ /* ddl-log skipped ... */``: source events up to ``N`` that were not applied, and why.
* ``/* ddl-log promoted from O at N */``: the replica stopped following ``O`` at ``N`` and became a source.

A *note* is an event whose text is such comments only: it never applies to a catalog (a downstream replica skips it
and records that it did).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, unquote

import attrs

from chains.binlog import BinlogEvent
from ddl_log.replication.origin import mark_of, marked
from storage.catalogs.names import TableName

COMMENT = re.compile(r"^\s*/\* ddl-log [^*]*\*/")
BOOTSTRAP_BEGIN = re.compile(r"^/\* ddl-log bootstrap (\S+) begin \*/")
BOOTSTRAP_AT = re.compile(r"^/\* ddl-log bootstrap (\S+) at (\d+)(?: (\w+) (\w+))? \*/ ")
BOOTSTRAP_DONE = "/* ddl-log bootstrap done"
RESYNC_BEGIN = re.compile(r"^/\* ddl-log resync (\S+) begin (\S+) \*/")
RESYNC_AT = re.compile(r"^/\* ddl-log resync (\S+) at (\d+) \*/ ")
RESYNC_DONE = re.compile(r"^/\* ddl-log resync (\S+) done (\S+) at (\d+) \*/")
PROMOTED = re.compile(r"^/\* ddl-log promoted from (\S+) at (\d+) \*/")


def table_word(name: TableName) -> str:
    """A table name as one word of a note (no blank, no comment end in it)."""
    return quote(str(name), safe="._")


def table_of_word(word: str) -> TableName:
    db, _, name = unquote(word).partition(".")
    return TableName(db, name)


def note_text(words: str) -> str:
    """The body of a note: a comment whose text cannot end it early."""
    return f"/* ddl-log {words.replace('*', '')} */"


def bootstrap_begin(origin: str, what: str) -> str:
    return f"/* ddl-log bootstrap {origin} begin */ {note_text('note: bootstrap of ' + what)}"


def bootstrap_statement(origin: str, at: int, kind: str, fingerprint: str, text: str) -> str:
    """A bootstrap's statement: it copies (or drops) one object (``kind``: table, view, function, database, drop) as
    it was at ``at``, from a definition of that ``fingerprint`` (what a restarted bootstrap keeps)."""
    return f"/* ddl-log bootstrap {origin} at {at} {kind} {fingerprint} */ {text}"


def bootstrap_done(origin: str, at: int, what: str, ident: str | None = None) -> str:
    """The note that ends a bootstrap: its snapshot is the source's state at ``at`` (the event of identity
    ``ident``)."""
    return marked(origin, at, note_text(f"bootstrap done: {what}"), ident)


def resync_begin(origin: str, table: TableName) -> str:
    return f"/* ddl-log resync {origin} begin {table_word(table)} */"


def resync_statement(origin: str, at: int, text: str) -> str:
    return f"/* ddl-log resync {origin} at {at} */ {text}"


def resync_done(origin: str, table: TableName, at: int) -> str:
    return f"/* ddl-log resync {origin} done {table_word(table)} at {at} */"


def promoted(origin: str, at: int) -> str:
    return f"/* ddl-log promoted from {origin} at {at} */"


def skipped(origin: str, at: int, why: str, ident: str | None = None) -> str:
    return marked(origin, at, note_text(f"skipped {why}"), ident)


def is_note(statement: str) -> bool:
    """Whether the event is comments of this project only: nothing to apply."""
    rest = statement
    while (match := COMMENT.match(rest)) is not None:
        rest = rest[match.end():]
    return not rest.strip()


def first_origin(statement: str) -> str | None:
    """The origin the event came from, by its first marker of any kind (None: the home's own statement)."""
    mark = mark_of(statement)
    if mark is not None:
        return mark.origin
    for pattern in (BOOTSTRAP_AT, BOOTSTRAP_BEGIN, RESYNC_AT, RESYNC_BEGIN, RESYNC_DONE):
        match = pattern.match(statement)
        if match is not None:
            return match.group(1)
    return None


def is_own(event: BinlogEvent) -> bool:
    """An event the home committed itself (a statement run on it, not applied from a source and not a note)."""
    return first_origin(event.statement) is None and PROMOTED.match(event.statement) is None \
        and not is_note(event.statement)


@attrs.frozen
class ReplicaPosition:
    """Where the replica is for one origin, read from its binlog."""

    applied: int = 0
    bootstrapping: bool = False
    resyncing: frozenset[TableName] = frozenset()
    fences: tuple[tuple[TableName, int], ...] = ()
    """Tables a resync copied as they were at a source seq: events up to it that touch them are skipped."""
    promoted_at: int | None = None

    def fence_of(self, table: TableName) -> int:
        return max((at for name, at in self.fences if name == table), default=0)

    @classmethod
    def read(cls, events: Iterable[BinlogEvent], origin: str) -> ReplicaPosition:
        applied = 0
        bootstrapping = False
        resyncing: set[TableName] = set()
        fences: dict[TableName, int] = {}
        promoted_at: int | None = None
        for event in events:
            text = event.statement
            mark = mark_of(text)
            if mark is not None:
                if mark.origin == origin:
                    applied = max(applied, mark.seq)
                    if text[text.index("*/") + 3:].startswith(BOOTSTRAP_DONE):
                        bootstrapping = False
                continue
            if (match := BOOTSTRAP_BEGIN.match(text)) is not None and match.group(1) == origin:
                bootstrapping = True
            elif (match := RESYNC_BEGIN.match(text)) is not None and match.group(1) == origin:
                resyncing.add(table_of_word(match.group(2)))
            elif (match := RESYNC_DONE.match(text)) is not None and match.group(1) == origin:
                table = table_of_word(match.group(2))
                resyncing.discard(table)
                fences[table] = max(fences.get(table, 0), int(match.group(3)))
            elif (match := PROMOTED.match(text)) is not None and match.group(1) == origin:
                promoted_at = int(match.group(2))
        return cls(applied, bootstrapping, frozenset(resyncing), tuple(sorted(fences.items())), promoted_at)
