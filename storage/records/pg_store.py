"""The PostgreSQL record store: a home's streams as rows of a shared database, so any driver can read a dead one's log.

Each record is one row holding exactly the bytes the file store would write (:func:`encode_record`: length, CRC32C,
msgpack), so a damaged row is detected as in a file. Offsets are those the stream would have as a file (the header's
16 bytes, then each record's length): opaque to callers, but ``size`` keeps meaning bytes, so the log's compaction
threshold and the binlog's segment size work unchanged.

Durability: every append is one committed transaction (``synchronous_commit`` decides when PostgreSQL calls it
durable; the default waits for the WAL flush), a batch is one transaction (group commit). A transaction is all or
nothing, so there is no torn tail: a record is there or not, and any damaged row is :class:`CorruptLogError`.
Creating and replacing a stream are one transaction each. Crash points keep their meaning: ``record.before_write``
before the transaction, ``record.before_sync`` after the INSERT and before COMMIT, ``record.after_sync`` after it.
``record.torn_write`` fires at the same instant as ``record.before_sync``: dying inside a transaction leaves nothing.

A failed append poisons its stream until it is reopened (as a failed fsync does in the file store). When COMMIT was
sent and no answer came back, the append is decided once it can no longer commit (:mod:`storage.records.pg_fate`):
committed, it stands; rolled back, it failed; unknown, the error says so and the store reads nothing (a reopen
neither) before it can be known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from storage.errors import CorruptLogError, StorageError
from storage.records.format import HEADER_SIZE, check_header, decode_record, encode_header, encode_record
from storage.records.pg_fate import current_xact
from storage.records.pg_session import Connection, PgSession, PgWriter
from storage.records.store import Records

_XACT = " RETURNING pg_current_xact_id()::text"
_INSERT_ONE = "INSERT INTO ddl_log_records (stream, pos, data) VALUES (%s, %s, %s)" + _XACT
_INSERT_MANY = ("INSERT INTO ddl_log_records (stream, pos, data) SELECT %s, unnest(%s::int8[]), unnest(%s::bytea[])"
                + _XACT)
_ROWS = """SELECT s.id, s.header, r.pos, r.data FROM ddl_log_streams s
           LEFT JOIN ddl_log_records r ON r.stream = s.id AND r.pos >= %s
           WHERE s.home = %s AND s.space = %s AND s.name = %s ORDER BY r.pos"""


def redact(url: str) -> str:
    """``url`` without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def offsets_of(start: int, encoded: Sequence[bytes]) -> tuple[list[int], int]:
    """Where each record goes when the stream ends at ``start``, and the new end."""
    offsets: list[int] = []
    for chunk in encoded:
        offsets.append(start)
        start += len(chunk)
    return offsets, start


class PgRecordStore(PgSession):
    """A :class:`~storage.records.store.RecordStore` of one home's space (``ddl_log`` or ``binlog``) in a database.

    One connection per store (:class:`~storage.records.pg_session.PgSession`), re-established when a stream is
    reopened after a failure, after ``guard`` agrees; ``fence`` runs before every write."""

    def __init__(self, url: str, home: str, space: str, *, guard: Callable[[], None] | None = None,
                 fence: Callable[[], None] | None = None, application_name: str | None = None) -> None:
        super().__init__(url, guard=guard, fence=fence, application_name=application_name)
        self.home = home
        self.space = space

    @property
    def location(self) -> str:
        return f"{redact(self.url)}?home={self.home}#{self.space}"

    def location_of(self, name: str) -> str:
        return f"{self.location}/{name}"

    # ----------------------------------------------------------------- the RecordStore protocol

    def names(self) -> list[str]:
        with self.transaction("listing streams") as connection:
            rows = connection.execute("SELECT name FROM ddl_log_streams WHERE home = %s AND space = %s",
                                      (self.home, self.space)).fetchall()
        return [str(row[0]) for row in rows]

    def exists(self, name: str) -> bool:
        return self._stream_id(name) is not None

    def _stream_id(self, name: str) -> int | None:
        with self.transaction("looking up a stream") as connection:
            row = connection.execute("SELECT id FROM ddl_log_streams WHERE home = %s AND space = %s AND name = %s",
                                     (self.home, self.space, name)).fetchone()
        return None if row is None else int(row[0])

    def open(self, name: str, magic: bytes) -> tuple[PgRecordStream, Records]:
        with self.transaction("creating a stream", write=True) as connection:
            connection.execute("INSERT INTO ddl_log_streams (home, space, name, header) VALUES (%s, %s, %s, %s) "
                               "ON CONFLICT (home, space, name) DO NOTHING",
                               (self.home, self.space, name, encode_header(magic)))
        stream_id, records, end = self._scan(name, magic, HEADER_SIZE)
        assert stream_id is not None
        return PgRecordStream(self, name, stream_id, end), records

    def read(self, name: str, magic: bytes, start: int | None = None) -> tuple[Records, int, int]:
        stream_id, records, end = self._scan(name, magic, HEADER_SIZE if start is None else max(start, HEADER_SIZE))
        if stream_id is None:
            raise StorageError(f"{self.location_of(name)}: no such stream")
        return records, end, end

    def _scan(self, name: str, magic: bytes, start: int) -> tuple[int | None, Records, int]:
        """The stream's id, its records from ``start`` and its end; any damaged or missing row is corruption."""
        location = self.location_of(name)
        with self.transaction("reading") as connection:
            rows = connection.execute(_ROWS, (start, self.home, self.space, name)).fetchall()
        if not rows:
            return None, [], start
        check_header(location, bytes(rows[0][1]), magic)
        records: Records = []
        expected = None
        end = start
        for _, _, pos, data in rows:
            if pos is None:
                break
            if expected is not None and pos != expected:
                raise CorruptLogError(location, expected, f"record missing (the next one is at offset {pos})")
            chunk = bytes(data)
            records.append((pos, decode_record(location, pos, chunk)))
            expected = end = pos + len(chunk)
        return int(rows[0][0]), records, end

    def create(self, name: str, magic: bytes, records: Iterable[Any] = (), *,
               before_publish: Callable[[], None] | None = None) -> None:
        encoded = [encode_record(record) for record in records]
        with self.transaction(f"creating {name}", write=True) as connection:
            row = connection.execute(
                "INSERT INTO ddl_log_streams (home, space, name, header) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (home, space, name) DO NOTHING RETURNING id",
                (self.home, self.space, name, encode_header(magic))).fetchone()
            if row is None:
                raise StorageError(f"{self.location_of(name)}: already exists; a new stream is never written over one")
            insert_records(connection, int(row[0]), offsets_of(HEADER_SIZE, encoded)[0], encoded)
            if before_publish is not None:
                before_publish()

    def replace(self, name: str, magic: bytes, records: Iterable[Any], *, keep_previous_as: str | None = None) -> None:
        encoded = [encode_record(record) for record in records]
        key = (self.home, self.space)
        with self.transaction(f"replacing {name}", write=True) as connection:
            if keep_previous_as is not None:
                connection.execute("DELETE FROM ddl_log_streams WHERE home = %s AND space = %s AND name = %s",
                                   (*key, keep_previous_as))
                connection.execute("UPDATE ddl_log_streams SET name = %s WHERE home = %s AND space = %s AND name = %s",
                                   (keep_previous_as, *key, name))
            else:
                connection.execute("DELETE FROM ddl_log_streams WHERE home = %s AND space = %s AND name = %s",
                                   (*key, name))
            row = connection.execute("INSERT INTO ddl_log_streams (home, space, name, header) VALUES (%s, %s, %s, %s) "
                                     "RETURNING id", (*key, name, encode_header(magic))).fetchone()
            assert row is not None
            insert_records(connection, int(row[0]), offsets_of(HEADER_SIZE, encoded)[0], encoded)

    def remove(self, name: str) -> None:
        with self.transaction(f"removing {name}", write=True) as connection:
            gone = connection.execute("DELETE FROM ddl_log_streams WHERE home = %s AND space = %s AND name = %s",
                                      (self.home, self.space, name)).rowcount
        if not gone:
            raise StorageError(f"{self.location_of(name)}: no such stream")


def insert_records(connection: Connection, stream_id: int, offsets: list[int], encoded: Sequence[bytes]) -> str:
    """One statement for any number of records (one round trip); returns the transaction's id, which decides the
    write's fate if its COMMIT gets no answer (:mod:`storage.records.pg_fate`)."""
    if not encoded:
        return current_xact(connection)
    if len(encoded) == 1:
        row = connection.execute(_INSERT_ONE, (stream_id, offsets[0], encoded[0])).fetchone()
    else:
        row = connection.execute(_INSERT_MANY, (stream_id, offsets, list(encoded))).fetchone()
    assert row is not None
    return str(row[0])


class PgRecordStream(PgWriter):
    """One open stream of a :class:`PgRecordStore`; every append is one committed transaction."""

    def __init__(self, store: PgRecordStore, name: str, stream_id: int, size: int) -> None:
        self.store = store
        self.name = name
        self.stream_id = stream_id
        self._size = size
        self._closed = False
        self.records_written = 0
        self.syncs = 0

    @property
    def location(self) -> str:
        return self.store.location_of(self.name)

    @property
    def size(self) -> int:
        return self._size

    def _session(self) -> PgSession:
        return self.store

    def append(self, record: Any) -> int:
        return self.append_batch([record])[0]

    def append_batch(self, records: Sequence[Any]) -> list[int]:
        return self.append_encoded([encode_record(record) for record in records])

    def append_encoded(self, encoded: Sequence[bytes]) -> list[int]:
        """INSERT the records and COMMIT, in one transaction (:meth:`~storage.records.pg_session.PgWriter.commit_write`:
        a database error poisons the stream, a dying process never commits)."""
        self.check_writable()
        if not encoded:
            return []
        offsets, end = offsets_of(self._size, encoded)
        self.commit_write(lambda connection: (None, insert_records(connection, self.stream_id, offsets, encoded)))
        self._size = end
        self.records_written += len(encoded)
        return offsets

    def truncate_to(self, offset: int) -> None:
        """Delete the records from ``offset`` on, in one transaction (never needed for a torn write here: a
        transaction is whole; kept for owners that drop an incomplete group of records)."""
        self.check_writable()
        if not HEADER_SIZE <= offset <= self._size:
            raise StorageError(f"{self.location}: cannot truncate to {offset}")
        if self.store.fence is not None:
            self.store.fence()
        try:
            with self.store.transaction("truncating", write=True) as connection:
                connection.execute("DELETE FROM ddl_log_records WHERE stream = %s AND pos >= %s",
                                   (self.stream_id, offset))
        except StorageError as exc:
            raise self._poison(f"truncate failed: {exc}; the next open cuts the same records again") from exc
        self._size = offset

    def check_writable(self) -> None:
        if self._closed:
            raise StorageError(f"{self.location}: the stream is closed")
        super().check_writable()

    def close(self) -> None:
        """Forget the stream (the store's connection stays with the store; nothing is written)."""
        self._closed = True
