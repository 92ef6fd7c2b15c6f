"""A source home's binlog, read without its lock (its drivers keep running): the events after a position, the head.
A directory home's own segments (:class:`SourceBinlog`), or a database home's catalog binlog (:class:`CatalogSource`:
every driver of the database, in commit order; any home id of the database names it).

Only committed statements are in a binlog (the event write is the commit point), so a statement the source rolled
back never reaches a replica, and one recovery finished (a roll-forward DROP) does, flagged as generated. A torn
record at the end of the newest segment is a write in progress, not damage: it is read once it is complete. Damage
anywhere else stops the reader where it is, with the offset (:class:`SourceDamagedError`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Protocol

import attrs

from chains.binlog import BINLOG_MAGIC, BinlogEvent, binlog_store, events_of, list_segments, segment_name
from ddl_log.replication.errors import (
    SourceDamagedError,
    SourceEventsMissingError,
    SourceMissingError,
    SourceUnavailableError,
)
from ddl_log.replication.origin import origin_for, origin_of
from storage.errors import CorruptLogError, DDLLogError, StorageError
from storage.records.home import BINLOG_DIR, is_database_url


@attrs.frozen
class SourceHead:
    seq: int
    timestamp: float


class Source(Protocol):
    """What the applier needs of a source: its origin id, where it is (no password), its events and head."""

    origin: str
    path: str

    def events_after(self, seq: int) -> Iterator[BinlogEvent]: ...

    def head(self) -> SourceHead: ...


def open_source(location: str) -> Source:
    """The source at ``location``: a directory home, or a database home's URL (``...?home=ID``)."""
    return CatalogSource(location) if is_database_url(location) else SourceBinlog(location)


class CatalogSource:
    """The catalog binlog of a database home: seqs have no gaps and are the catalog's commit order across drivers,
    and a missing or damaged event raises (:class:`~storage.errors.CorruptLogError`), never skipped. psycopg is
    imported here only."""

    def __init__(self, location: str) -> None:
        from storage.records.pg_home import split_home_url
        from storage.records.pg_store import redact

        self.location = location
        split_home_url(location)  # refuses a malformed URL or home id
        self.path = redact(location)
        self.origin = origin_for(location)
        try:
            self.head()
        except DDLLogError as error:
            raise SourceMissingError(self.path, f"its catalog binlog cannot be read ({error})") from error

    def _table(self) -> Any:
        from storage.records.pg_home import read_only_binlog

        return read_only_binlog(self.location)

    def events_after(self, seq: int) -> Iterator[BinlogEvent]:
        try:
            table = self._table()
            try:
                rows = table.rows(seq + 1)
            finally:
                table.close()
        except CorruptLogError:
            raise
        except StorageError as error:  # its PostgreSQL went away: a typed stop, between two events
            raise SourceUnavailableError(self.origin, error) from error
        yield from contiguous((BinlogEvent.from_wire(record) for _, record in rows), seq, self.path)

    def head(self) -> SourceHead:
        try:
            table = self._table()
            try:
                last, _ = table.maxima()
                rows = table.rows(last) if last else []
            finally:
                table.close()
        except CorruptLogError:
            raise
        except StorageError as error:
            raise SourceUnavailableError(self.origin, error) from error
        return SourceHead(last, rows[-1][1]["ts"] if rows else 0.0)


class SourceBinlog:
    """The binlog of the source home at ``path`` (a directory home)."""

    def __init__(self, path: str) -> None:
        if not os.path.isdir(os.path.join(path, BINLOG_DIR)):
            raise SourceMissingError(path, "not a ddl-log home with a binlog (no binlog directory)")
        self.path = path
        self.origin = origin_of(path)
        self.store = binlog_store(path)

    def events_after(self, seq: int) -> Iterator[BinlogEvent]:
        """Committed events with a seq above ``seq``, oldest first, up to the end or the first damage; a gap after
        ``seq`` (a deleted segment) is :class:`SourceEventsMissingError`, a directory gone
        :class:`SourceUnavailableError`."""
        try:
            yield from contiguous(self._events_after(seq), seq, self.path)
        except OSError as error:
            raise SourceUnavailableError(self.origin, error) from error

    def _events_after(self, seq: int) -> Iterator[BinlogEvent]:
        segments = list_segments(self.store)
        last_seq = seq
        for index, segment in enumerate(segments):
            name = segment_name(segment)
            if index + 1 < len(segments) and seq > 0 and self._ends_before(segments[index + 1], seq):
                continue
            records, valid_end, size = self.store.read(name, BINLOG_MAGIC)
            for _, record in records:
                for event in events_of(record):
                    if event.seq > seq:
                        last_seq = event.seq
                        yield event
            if valid_end < size and index + 1 < len(segments):
                raise SourceDamagedError(self.store.location_of(name), valid_end, last_seq)

    def _ends_before(self, following: int, seq: int) -> bool:
        records, _, _ = self.store.read(segment_name(following), BINLOG_MAGIC)
        return bool(records) and records[0][1]["op"] == "start" and records[0][1]["seq"] <= seq

    def head(self) -> SourceHead:
        """The newest committed event (0 when none)."""
        segments = list_segments(self.store)
        for segment in reversed(segments):
            records, _, _ = self.store.read(segment_name(segment), BINLOG_MAGIC)
            events = [event for _, r in records for event in events_of(r)]
            if events:
                return SourceHead(events[-1].seq, events[-1].timestamp)
            if records and records[0][1]["op"] == "start" and records[0][1]["seq"]:
                return SourceHead(records[0][1]["seq"], 0.0)
        return SourceHead(0, 0.0)


def contiguous(events: Iterator[BinlogEvent], after: int, location: str) -> Iterator[BinlogEvent]:
    """``events`` (seqs above ``after``, in order) as long as none is missing: a gap raises."""
    expected = after + 1
    for event in events:
        if event.seq != expected:
            raise SourceEventsMissingError(location, expected - 1, event.seq)
        expected += 1
        yield event
