"""The catalog's one binlog: every driver whose home is in the same database commits to ``ddl_binlog``
(:mod:`storage.records.pg_binlog`), so recovery of any driver, a takeover of another's home included, decides
"did it commit?" from one place, each event names its driver and XIDs are unique across drivers.

A position here is segment 0 and, as offset, a seq at or below the next event's: this process's last seen seq + 1
(every seq assigned later is larger). A chain whose position names a segment (1 and up) noted it in the home's own
segmented binlog before the home moved to the catalog's: its XID is looked for there (``legacy``), read-only.
psycopg is imported only by the table, which a database home gives: a file home never loads it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import attrs

from chains.binlog import Binlog, BinlogEvent, BinlogLike, events_from
from chains.entries import BinlogPosition
from chains.version_records import AddedFiles, VersionRecord
from storage.records.fileops import FileOps
from storage.records.home import AnyHome
from storage.records.store import RecordStore

if TYPE_CHECKING:
    from storage.records.pg_binlog import PgBinlog

CATALOG_SEGMENT = 0


class CatalogBinlog:
    """:class:`~chains.binlog.BinlogLike` on the catalog's binlog table, appending as the table's home."""

    def __init__(self, table: PgBinlog, *, legacy: RecordStore | None = None) -> None:
        self.table = table
        self.legacy = legacy
        self.driver = table.home
        self._lock = threading.Lock()
        self.last_seq, self.max_xid = table.maxima()

    def position(self) -> BinlogPosition:
        with self._lock:
            return BinlogPosition(CATALOG_SEGMENT, self.last_seq + 1)

    def append(self, statement: str, *, xid: int | None, objects: tuple[str, ...] = (),
               generated_by_recovery: bool = False, version: VersionRecord | None = None,
               added: AddedFiles | None = None) -> BinlogEvent:
        """Commit one event: its row's commit is the statement's commit point."""
        return self._append([BinlogEvent(0, xid, statement, tuple(objects), time.time(), generated_by_recovery,
                                         self.driver, version, added)])[0]

    def append_many(self, items: list[tuple[str, int | None, tuple[str, ...]]]) -> list[BinlogEvent]:
        """Group commit: one transaction, consecutive seqs."""
        now = time.time()
        return self._append([BinlogEvent(0, xid, statement, tuple(objects), now, driver=self.driver)
                             for statement, xid, objects in items])

    def append_group(self, events: list[BinlogEvent]) -> list[BinlogEvent]:
        """A transaction's events in one PostgreSQL transaction (all rows or none), each with its ``txn`` place."""
        count = len(events)
        return self._append([attrs.evolve(event, seq=0, timestamp=time.time(), driver=self.driver,
                                          txn=(index + 1, count)) for index, event in enumerate(events)])

    def _append(self, events: list[BinlogEvent]) -> list[BinlogEvent]:
        with self._lock:
            seqs = self.table.append([event.to_wire() for event in events])
            written = [attrs.evolve(event, seq=seq) for event, seq in zip(events, seqs, strict=True)]
            for event in written:
                self.last_seq = max(self.last_seq, event.seq)
                self.max_xid = max(self.max_xid, event.xid or 0)
        return written

    def new_xid(self) -> int:
        return self.table.new_xid()

    def xids_since(self, start: BinlogPosition) -> set[int]:
        return {event.xid for event in self.events_since(start) if event.xid is not None}

    def events_since(self, start: BinlogPosition) -> Iterator[BinlogEvent]:
        if start.segment != CATALOG_SEGMENT:
            if self.legacy is not None:
                yield from events_from(self.legacy, start)
            return
        yield from self._read(start.offset)

    def events(self, since_seq: int = 0) -> Iterator[BinlogEvent]:
        """Every driver's events with ``seq > since_seq``, in commit order."""
        yield from self._read(since_seq + 1)

    def _read(self, first_seq: int) -> Iterator[BinlogEvent]:
        rows = self.table.rows(first_seq)
        if rows:
            with self._lock:
                self.last_seq = max(self.last_seq, rows[-1][1]["seq"])
        for _, record in rows:
            yield BinlogEvent.from_wire(record)

    @property
    def syncs(self) -> int:
        return self.table.syncs

    def close(self) -> None:
        self.table.close()


def home_binlog(home: AnyHome, ids: Callable[[], int], ops: FileOps, **segment_options: Any) -> BinlogLike:
    """The binlog a driver on ``home`` commits to: the catalog's for a database home, else the home's own (whose
    XIDs come from ``ids``, the DDL log's counter)."""
    catalog_binlog = getattr(home, "catalog_binlog", None)
    if callable(catalog_binlog):
        return CatalogBinlog(catalog_binlog(), legacy=home.binlog_store(ops))
    return Binlog(home.binlog_store(ops), ids=ids, **segment_options)


def read_catalog_events(location: str, since_seq: int = 0) -> Iterator[BinlogEvent]:
    """Every driver's events of the catalog a database home location belongs to, read-only (``ddl-log binlog``)."""
    from storage.records.pg_home import read_only_binlog

    table = read_only_binlog(location)
    try:
        for _, record in table.rows(since_seq + 1):
            yield BinlogEvent.from_wire(record)
    finally:
        table.close()
