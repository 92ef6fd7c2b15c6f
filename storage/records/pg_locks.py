"""Cross-driver metadata locks: PostgreSQL session-level advisory locks on the database every driver's log is in.

Why advisory locks: PostgreSQL releases them when the holder's session ends (its process or machine dying included;
TCP keepalives bound how long a vanished machine's session lingers), so no heartbeat and no operator is needed, and
they need no table of their own. (Hive's lock API needs the metastore's ACID transaction tables and heartbeats; a
compare-and-swap on a table parameter needs a newer metastore than the Hive 2.3 client Spark ships.)

A key string (the in-process lock's, :mod:`ddl_log.cluster.locks`) becomes one bigint: the first 8 bytes of its BLAKE2b
digest. The single-bigint form of an advisory lock never meets the two-int form of the home locks. Each thread
locks on a connection of its own, so a thread waiting for one key never holds up another thread's lock calls; a
wait is bounded by ``lock_timeout`` and then names the holder, ``ddl-log:<home id>`` (read back from its
``application_name``, which holds a digest instead of the id's tail when the id is long).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import psycopg.errors

from storage.errors import MetadataLockTimeoutError, StorageError
from storage.records.pg_lease import driver_of

Connection = psycopg.Connection[tuple[Any, ...]]

FUNCTION_PREFIX = "function:"
"""How :func:`ddl_log.cluster.locks.function_key` marks a function's key; an object key is ``db NUL name``, a database's
key is its name."""

_HOLDERS = """SELECT DISTINCT coalesce(nullif(a.application_name, ''), 'pid ' || a.pid) FROM pg_locks l
              JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.pid <> pg_backend_pid()
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND l.classid::bigint = %s AND l.objid::bigint = %s
              ORDER BY 1"""


def lock_number(key: str) -> int:
    """The advisory lock's bigint for ``key``: the first 8 bytes of BLAKE2b, signed (PostgreSQL's bigint)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)


def object_name(key: str) -> str:
    """What a key locks, for messages: ``db.name``, ``function db.name`` or ``database db``."""
    is_function = key.startswith(FUNCTION_PREFIX)
    rest = key.removeprefix(FUNCTION_PREFIX)
    if "\x00" not in rest:
        return f"database {rest}"
    db, name = rest.split("\x00", 1)
    return f"function {db}.{name}" if is_function else f"{db}.{name}"


class ClusterLocks:
    """Shared and exclusive locks on key strings across every process using this database.

    ``acquire``/``release`` pair up per thread (PostgreSQL counts a session's holds of a key, so a thread may hold a
    key more than once); ``close`` closes every thread's connection, which lets go of every lock still held.
    ``guard`` is called before each (re)connect (the home's check that it still holds its own lock).
    """

    def __init__(self, url: str, application_name: str, *, wait_seconds: float, location: str = "",
                 guard: Callable[[], None] | None = None) -> None:
        self.url = url
        self.application_name = application_name
        self.wait_seconds = wait_seconds
        self.location = location or application_name
        self.guard = guard
        self._local = threading.local()
        self._guard = threading.Lock()
        self._connections: list[tuple[threading.Thread, Connection]] = []
        self._closed = False

    # ----------------------------------------------------------------- connections

    def _connection(self) -> Connection:
        """This thread's connection, made on first use (a broken one is replaced: its session's locks are gone)."""
        connection: Connection | None = getattr(self._local, "connection", None)
        if connection is not None and not connection.closed and not connection.broken:
            return connection
        if self._closed:
            raise StorageError(f"{self.location}: the metadata locks are closed")
        if self.guard is not None:
            self.guard()
        try:
            connection = psycopg.connect(self.url, autocommit=True, application_name=self.application_name)
            timeout_ms = max(1, round(self.wait_seconds * 1000))
            connection.execute(f"SET lock_timeout = {timeout_ms}")
        except psycopg.Error as exc:
            raise StorageError(f"{self.location}: cannot connect for metadata locks: {exc}") from exc
        with self._guard:
            me = threading.current_thread()
            dead = [c for thread, c in self._connections if not thread.is_alive()]
            self._connections = [(t, c) for t, c in self._connections if t.is_alive() and t is not me]
            self._connections.append((me, connection))
        for old in dead:  # threads that ended: their locks were released, their connections are idle
            old.close()
        self._local.connection = connection
        return connection

    def _drop_connection(self) -> None:
        """Close this thread's connection after an unclear failure: whatever it held is released with it."""
        connection: Connection | None = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            connection.close()

    def close(self) -> None:
        with self._guard:
            self._closed = True
            connections, self._connections = self._connections, []
        for _, connection in connections:
            connection.close()

    # ----------------------------------------------------------------- locks

    def acquire(self, key: str, exclusive: bool) -> None:
        """Take ``key`` (exclusive or shared), waiting up to ``wait_seconds`` for its holders, then
        :class:`MetadataLockTimeoutError` naming them (and nothing is held). The same error when PostgreSQL's deadlock
        check (after its ``deadlock_timeout``, 1 s by default) ends the wait sooner: two drivers whose transactions
        take two locks in opposite orders, where one must give up."""
        connection = self._connection()
        number = lock_number(key)
        began = time.monotonic()
        try:
            if self.wait_seconds <= 0:
                function = "pg_try_advisory_lock" if exclusive else "pg_try_advisory_lock_shared"
                row = connection.execute(f"SELECT {function}(%s)", (number,)).fetchone()
                if row is not None and row[0]:
                    return
            else:
                function = "pg_advisory_lock" if exclusive else "pg_advisory_lock_shared"
                connection.execute(f"SELECT {function}(%s)", (number,))
                return
        except (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected):
            pass  # the wait ended: its bound, or PostgreSQL's deadlock check (a driver taking locks the other way)
        except BaseException as exc:
            self._drop_connection()  # it may hold the lock now or not: a closed session holds nothing
            if isinstance(exc, psycopg.Error):
                raise StorageError(f"{self.location}: taking the metadata lock on {object_name(key)} failed: "
                                   f"{exc}") from exc
            raise
        waited = time.monotonic() - began
        raise MetadataLockTimeoutError(object_name(key), self._holders(connection, number), waited)

    def release(self, key: str, exclusive: bool) -> None:
        """Let go of one hold of ``key``; a lost connection has released it already."""
        connection: Connection | None = getattr(self._local, "connection", None)
        if connection is None or connection.closed or connection.broken:
            return
        function = "pg_advisory_unlock" if exclusive else "pg_advisory_unlock_shared"
        try:
            connection.execute(f"SELECT {function}(%s)", (lock_number(key),))
        except psycopg.Error:
            self._drop_connection()

    def _holders(self, connection: Connection, number: int) -> str:
        """Who holds the lock ``number`` now: a ``ddl-log:<home id>`` per driver (else a session's name or pid)."""
        high, low = (number >> 32) & 0xFFFFFFFF, number & 0xFFFFFFFF
        try:
            names = [driver_of(connection, str(row[0])) for row in connection.execute(_HOLDERS, (high, low))]
        except psycopg.Error:
            return "an unknown holder"
        return ", ".join(sorted(set(names))) or "a holder that has let go since"
