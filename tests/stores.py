"""Both record stores behind one fixture, so the same proofs run on the file store and on PostgreSQL.

``store`` is a :class:`StoreKit` for the file store (a temporary directory) or the PostgreSQL store (a database of
the test's own on the session's cluster; that variant is marked ``servers``). A kit names homes, opens their
streams, and damages them the way a crash or a bad disk would: offsets are the same in both stores (the PostgreSQL
store numbers records as a file would lay them out), so a test says "cut at offset n" or "flip the bit at byte n"
once. A cut inside a record of the PostgreSQL store removes that record whole: a transaction has no torn state.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from chains.binlog import Binlog, BinlogEvent, events_in
from chains.log import DDLLog
from storage.records.file_store import FileRecordStore
from storage.records.home import BINLOG_DIR, LOG_DIR
from storage.records.pg_home import BINLOG_SPACE, LOG_SPACE
from storage.records.pg_store import PgRecordStore
from storage.records.store import RecordStore

STORES = ["file", pytest.param("postgres", marks=pytest.mark.servers)]


class StoreKit:
    """Homes of one store kind for a test; ``name`` is a directory under the test's one, or a home id."""

    def __init__(self, kind: str, root: Path, url: str | None) -> None:
        self.kind = kind
        self.root = root
        self.url = url
        self._stores: dict[tuple[str, str], PgRecordStore] = {}
        self._admin: psycopg.Connection[tuple[Any, ...]] | None = None

    @property
    def is_postgres(self) -> bool:
        return self.kind == "postgres"

    def home(self, name: str = "home") -> str:
        """A location AtomicDDL opens (a directory, or the database URL with ``?home=name``)."""
        return f"{self.url}?home={name}" if self.is_postgres else str(self.root / name)

    def _store(self, name: str, space: str, directory: str) -> RecordStore:
        if self.is_postgres:
            assert self.url is not None
            if (name, space) not in self._stores:  # one connection per stream space, however often it is opened
                self._stores[name, space] = PgRecordStore(self.url, name, space)
            return self._stores[name, space]
        return FileRecordStore(str(self.root / name / directory))

    def log_store(self, name: str = "home") -> RecordStore:
        return self._store(name, LOG_SPACE, LOG_DIR)

    def binlog_store(self, name: str = "home") -> RecordStore:
        return self._store(name, BINLOG_SPACE, BINLOG_DIR)

    def open_log(self, name: str = "home", **options: Any) -> DDLLog:
        return DDLLog(self.log_store(name), **options)

    def open_binlog(self, name: str = "home", **options: Any) -> Binlog:
        return Binlog(self.binlog_store(name), **options)

    def events(self, name: str = "home", since_seq: int = 0) -> list[BinlogEvent]:
        return list(events_in(self.binlog_store(name), since_seq))

    # ----------------------------------------------------------------- what a crash or a bad disk does

    def admin(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self._admin is None:
            assert self.url is not None
            self._admin = psycopg.connect(self.url, autocommit=True)
        return self._admin

    def _rows(self, store: RecordStore, stream: str) -> list[tuple[int, int, bytes]]:
        assert isinstance(store, PgRecordStore)
        return [(int(i), int(p), bytes(d)) for i, p, d in self.admin().execute(
            "SELECT s.id, r.pos, r.data FROM ddl_log_streams s JOIN ddl_log_records r ON r.stream = s.id "
            "WHERE s.home = %s AND s.space = %s AND s.name = %s ORDER BY r.pos",
            (store.home, store.space, stream)).fetchall()]

    def end(self, store: RecordStore, stream: str) -> int:
        """Where the stream ends (a file's size)."""
        if not self.is_postgres:
            return os.path.getsize(store.location_of(stream))
        rows = self._rows(store, stream)
        return rows[-1][1] + len(rows[-1][2]) if rows else 16

    def cut(self, store: RecordStore, stream: str, size: int) -> None:
        """Cut the stream at byte ``size`` as a crash would: a file keeps a torn tail; in PostgreSQL every record
        not wholly before ``size`` is not there."""
        if not self.is_postgres:
            with open(store.location_of(stream), "r+b") as handle:
                handle.truncate(size)
            return
        for stream_id, pos, data in self._rows(store, stream):
            if pos + len(data) > size:
                self.admin().execute("DELETE FROM ddl_log_records WHERE stream = %s AND pos = %s", (stream_id, pos))

    def flip(self, store: RecordStore, stream: str, position: int, bit: int) -> None:
        """Flip ``bit`` of the byte at offset ``position`` (a file's byte, or a byte of the row holding it)."""
        if not self.is_postgres:
            path = Path(store.location_of(stream))
            data = bytearray(path.read_bytes())
            data[position] ^= bit
            path.write_bytes(bytes(data))
            return
        for stream_id, pos, data in self._rows(store, stream):
            if pos <= position < pos + len(data):
                damaged = bytearray(data)
                damaged[position - pos] ^= bit
                self.admin().execute("UPDATE ddl_log_records SET data = %s WHERE stream = %s AND pos = %s",
                                     (bytes(damaged), stream_id, pos))
                return
        raise AssertionError(f"no record holds offset {position}")

    def copy(self, source: RecordStore, target: RecordStore, stream: str, size: int | None = None) -> None:
        """Copy a stream to another home's store, cut at ``size`` (see :meth:`cut`)."""
        if not self.is_postgres:
            os.makedirs(os.path.dirname(target.location_of(stream)), exist_ok=True)
            data = Path(source.location_of(stream)).read_bytes()
            Path(target.location_of(stream)).write_bytes(data if size is None else data[:size])
            return
        assert isinstance(source, PgRecordStore) and isinstance(target, PgRecordStore)
        admin = self.admin()
        with admin.transaction():
            row = admin.execute("INSERT INTO ddl_log_streams (home, space, name, header) SELECT %s, %s, name, header "
                                "FROM ddl_log_streams WHERE home = %s AND space = %s AND name = %s RETURNING id",
                                (target.home, target.space, source.home, source.space, stream)).fetchone()
            assert row is not None
            for _, pos, data in self._rows(source, stream):
                if size is None or pos + len(data) <= size:
                    admin.execute("INSERT INTO ddl_log_records (stream, pos, data) VALUES (%s, %s, %s)",
                                  (row[0], pos, data))

    def remove_home(self, name: str) -> None:
        if not self.is_postgres:
            shutil.rmtree(self.root / name, ignore_errors=True)
            return
        self.admin().execute("DELETE FROM ddl_log_streams WHERE home = %s", (name,))
        for space in (LOG_SPACE, BINLOG_SPACE):
            store = self._stores.pop((name, space), None)
            if store is not None:
                store.close()

    def close(self) -> None:
        for store in self._stores.values():
            store.close()
        if self._admin is not None:
            self._admin.close()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreKit]:
    """A :class:`StoreKit` of each record store (the PostgreSQL one on a fresh database)."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    kit = StoreKit(request.param, tmp_path, url)
    try:
        yield kit
    finally:
        kit.close()
