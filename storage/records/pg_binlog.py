"""The catalog's one binlog in PostgreSQL: table ``ddl_binlog``, every driver's committed statements in commit order.

Why one table and not each home's segments: recovery of any driver (a takeover of another's home included) decides
"did it commit?" from one place, and ``seq`` is the catalog's commit order. An append is one transaction that first
takes the advisory transaction lock :data:`~storage.records.pg_schema.BINLOG_LOCK`, then numbers its rows from
``max(seq) + 1``: the next appender waits for the lock until this transaction has committed and then sees its rows,
so seqs have no gaps and follow commit order across drivers. A group is one transaction with consecutive seqs.
Each row holds the bytes :func:`~storage.records.format.encode_record` makes (length and CRC32C included): a damaged
row, a row whose columns disagree with its record, or a missing seq is :class:`CorruptLogError`.

Crash points keep their meaning of :mod:`storage.records.pg_store`: ``record.before_write`` before the transaction,
``record.torn_write`` and ``record.before_sync`` after the INSERT and before COMMIT (dying there leaves nothing),
``record.after_sync`` after it. A failed append refuses every later one until the binlog is opened again. When COMMIT
was sent and no answer came back, the append is decided once it can no longer commit (:mod:`storage.records.pg_fate`):
committed, it stands (the statement committed); rolled back, it failed; unknown (the server cannot be asked), the
error says so and nothing is read from the binlog before it can be.

XIDs come from the sequence ``ddl_xid_seq``, unique across drivers. A value handed out is made durable by the next
commit in the cluster (its WAL record precedes it), and the chain that stores the XID is such a commit, so a server
crash never hands out again an XID a chain holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import psycopg

from storage.errors import CorruptLogError, HomeFencedError, LogWriteFailedError, StorageError
from storage.records.format import decode_record, encode_record
from storage.records.pg_lease import application_name
from storage.records.pg_schema import BINLOG_LOCK
from storage.records.pg_session import Connection, PgSession, PgWriter
from storage.records.pg_store import redact


def column_xid(record: Mapping[str, Any]) -> Any:
    """The row's ``xid`` column of an event record (unique): its XID, but for the events after the first of a DDL
    transaction's group (``txn`` index above 1), which share the first one's XID and leave the column NULL."""
    place = record.get("txn")
    return None if place is not None and place[0] > 1 else record.get("xid")


_INSERT = """INSERT INTO ddl_binlog (seq, xid, home, data)
             SELECT unnest(%s::int8[]), unnest(%s::int8[]), %s, unnest(%s::bytea[])"""
_ROWS = "SELECT seq, xid, home, data FROM ddl_binlog WHERE seq >= %s ORDER BY seq"


class BinlogWriter(PgWriter):
    """The binlog's appends: each one committed transaction on the binlog's own session."""

    WRITTEN = "events"

    def __init__(self, binlog: PgBinlog) -> None:
        self.binlog = binlog

    @property
    def location(self) -> str:
        return self.binlog.location

    def _session(self) -> PgSession:
        return self.binlog


class PgBinlog(PgSession):
    """``ddl_binlog`` as seen by one home: its appends name the home; its reads see every home's events.

    One connection, used under a lock; re-established after a failure only when ``guard`` (the home's check that it
    still holds its home) agrees. Its writes go through its :class:`BinlogWriter` (poisoned by a failed one)."""

    def __init__(self, url: str, home: str, *, guard: Callable[[], None] | None = None,
                 session_name: str | None = None, fence: Callable[[], None] | None = None,
                 epoch: int | None = None) -> None:
        super().__init__(url, guard=guard, fence=fence, application_name=session_name or application_name(home))
        self.home = home
        self.epoch = epoch
        """The home's epoch when this process claimed it: an append commits only while it is still the home's, so a
        driver that was taken over can never commit a statement its taker has already decided (a fencing token
        checked in the committing transaction itself, under the home row's lock)."""
        self.writer = BinlogWriter(self)

    @property
    def location(self) -> str:
        return f"{redact(self.url)}#ddl_binlog"

    @property
    def syncs(self) -> int:
        """Appends committed."""
        return self.writer.syncs

    @property
    def failed(self) -> LogWriteFailedError | None:
        """The failed append that refuses every later one (None: none failed)."""
        return self.writer.failed

    # ----------------------------------------------------------------- writing

    def append(self, records: Sequence[Mapping[str, Any]]) -> list[int]:
        """Commit ``records`` (each with its ``xid``, None allowed) in one transaction; each is stored with the seq
        it gets (key ``seq``). Returns the seqs, consecutive."""
        self.writer.check_writable()
        if not records:
            return []

        def insert(connection: Connection) -> tuple[list[int], str]:
            connection.execute("SELECT pg_advisory_xact_lock(%s, %s)", BINLOG_LOCK)
            self._check_epoch(connection)
            row = connection.execute("SELECT coalesce(max(seq), 0), pg_current_xact_id()::text "
                                     "FROM ddl_binlog").fetchone()
            assert row is not None
            first = int(str(row[0])) + 1
            seqs = list(range(first, first + len(records)))
            wires = [{**record, "seq": seq} for seq, record in zip(seqs, records, strict=True)]
            connection.execute(_INSERT, (seqs, [column_xid(wire) for wire in wires], self.home,
                                         [encode_record(wire) for wire in wires]))
            return seqs, str(row[1])

        return self.writer.commit_write(insert)

    def _check_epoch(self, connection: Connection) -> None:
        """Refuse the commit when the home's epoch moved on (a takeover); ``FOR SHARE`` holds a taker's epoch
        compare-and-swap back until this transaction ends, so the taker sees this event or this event never was."""
        if self.epoch is None:
            return
        row = connection.execute("SELECT epoch FROM ddl_log_homes WHERE home = %s FOR SHARE", (self.home,)).fetchone()
        if row is None or int(row[0]) != self.epoch:
            found = "gone" if row is None else f"now {row[0]}"
            raise HomeFencedError(self.location, f"home {self.home} was taken over (its epoch was {self.epoch}, "
                                  f"{found}): this statement is not committed, its taker decides it")

    def new_xid(self) -> int:
        """A fresh XID, unique across every driver of the catalog."""
        with self.lock:  # one statement on the autocommit connection: one round trip, no BEGIN/COMMIT
            try:
                row = self.connection().execute("SELECT nextval('ddl_xid_seq')").fetchone()
            except psycopg.Error as exc:
                raise StorageError(f"{self.location}: allocating an XID failed: {exc}") from exc
        assert row is not None
        return int(str(row[0]))

    # ----------------------------------------------------------------- reading

    def maxima(self) -> tuple[int, int]:
        """``(max seq, max xid)``, 0 when there is none."""
        with self.transaction("reading the binlog's end") as connection:
            row = connection.execute("SELECT coalesce(max(seq), 0), coalesce(max(xid), 0) FROM ddl_binlog").fetchone()
        assert row is not None
        return int(str(row[0])), int(str(row[1]))

    def rows(self, since_seq: int = 1) -> list[tuple[str, Any]]:
        """``(home, record)`` of every event with ``seq >= since_seq``, in seq order; any damage raises."""
        with self.transaction("reading") as connection:
            rows = connection.execute(_ROWS, (since_seq,)).fetchall()
        expected = max(since_seq, 1)
        found: list[tuple[str, Any]] = []
        for seq, xid, home, data in rows:
            if seq != expected:
                raise CorruptLogError(self.location, expected, f"event {expected} is missing (the next is {seq})")
            record = decode_record(self.location, seq, bytes(data))
            if not isinstance(record, dict) or record.get("seq") != seq or column_xid(record) != xid:
                raise CorruptLogError(self.location, seq, "the row's seq or xid does not match its record")
            found.append((str(home), record))
            expected += 1
        return found
