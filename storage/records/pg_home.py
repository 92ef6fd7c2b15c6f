"""A DDL log home in a PostgreSQL database: ``postgresql://host:port/db?home=ID``.

Each driver keeps its own log and binlog under its own home id in the shared database, so any other driver can
read them after it dies. There is no default id: a driver names its home (two drivers guessing the same default
would lock each other out, and a replacement machine must find the dead one's log by name). The home is locked by a
session-level advisory lock, held on a connection of its own for the home's lifetime; PostgreSQL releases it when
that session ends, which includes the holder's process or machine dying (once the server notices the lost
connection; TCP keepalives bound that time).
"""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import attrs
import psycopg

from storage import crashpoints
from storage.errors import HomeLockedError, HomeLockLostError, InvalidHomeError, NoLocalDirectoryError
from storage.records.fileops import FileOps
from storage.records.pg_binlog import PgBinlog
from storage.records.pg_fate import end_unfinished_writes
from storage.records.pg_lease import DEFAULT_LEASE_SECONDS, Claim, Lease, application_name, claim
from storage.records.pg_locks import ClusterLocks
from storage.records.pg_schema import HOME_LOCK_CLASS, ensure_schema, home_number
from storage.records.pg_store import PgRecordStore, redact

HOME_PARAMETER = "home"
HOME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
LOG_SPACE = "ddl_log"
BINLOG_SPACE = "binlog"
POLL_SECONDS = 0.05
KEEPALIVES = "keepalives=1 keepalives_idle=10 keepalives_interval=5 keepalives_count=3"
"""libpq TCP keepalives on the lock connection: the server notices a vanished holder in about 25 s, not hours."""


def split_home_url(location: str, home_id: str | None = None) -> tuple[str, str]:
    """``(libpq URL without the home parameter, home id)``; refuses a missing, malformed or contradictory id."""
    parts = urlsplit(location)
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = [value for key, value in query if key == HOME_PARAMETER]
    url = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query if k != HOME_PARAMETER])))
    shown = redact(location)
    if len(given) > 1 or (given and home_id is not None and given[0] != home_id):
        raise InvalidHomeError(shown, f"names more than one home id ({', '.join([*given, home_id or ''])}); give one")
    chosen = given[0] if given else home_id
    if chosen is None:
        raise InvalidHomeError(shown, "a database home needs its home id: add ?home=ID (one per driver)")
    if not HOME_ID.match(chosen):
        raise InvalidHomeError(shown, f"home id {chosen!r} must be 1-128 letters, digits, '.', '_' or '-'")
    return url, chosen


def with_options(url: str, options: str) -> str:
    """``url`` with libpq ``options`` (``key=value ...``) added to its query, unless it sets them itself."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = {key for key, _ in query}
    extra = [tuple(item.split("=", 1)) for item in options.split()]
    return urlunsplit(parts._replace(query=urlencode(query + [(k, v) for k, v in extra if k not in given])))


@attrs.define
class DatabaseHome:
    """An open, locked database home: the stores of its log and binlog, and the connection holding its lock."""

    url: str
    home_id: str
    lock_connection: psycopg.Connection[tuple[object, ...]] | None = None
    stores: list[PgRecordStore | PgBinlog] = attrs.Factory(list)
    lock_key: tuple[int, int] = (0, 0)
    lease: Lease | None = None
    claimed: Claim | None = None
    """What the open found: the epoch, and the takeover since the last holder (if any)."""
    cluster: list[ClusterLocks] = attrs.Factory(list)

    @property
    def location(self) -> str:
        return f"{redact(self.url)}?home={self.home_id}"

    @property
    def application_name(self) -> str:
        """Every connection of this home says so in ``pg_stat_activity``: ``ddl-log:<home id>``."""
        return application_name(self.home_id)

    def cluster_locks(self, wait_seconds: float) -> ClusterLocks:
        """Metadata locks shared with every driver on this database (closed with the home)."""
        locks = ClusterLocks(with_options(self.url, KEEPALIVES), self.application_name, wait_seconds=wait_seconds,
                             location=self.location, guard=self.check_held)
        self.cluster.append(locks)
        return locks

    @classmethod
    def open(cls, location: str, *, home_id: str | None = None, wait_seconds: float = 0.0,
             lease_seconds: float = DEFAULT_LEASE_SECONDS) -> DatabaseHome:
        """Take the home's advisory lock on a connection of its own (waits up to ``wait_seconds`` for its holder),
        then claim it: a new epoch and a lease, renewed by a heartbeat until :meth:`release`."""
        url, chosen = split_home_url(location, home_id)
        home = cls(url, chosen)
        try:
            connection: psycopg.Connection[tuple[object, ...]] = psycopg.connect(
                with_options(url, KEEPALIVES), autocommit=True, application_name=home.application_name)
        except psycopg.Error as exc:
            raise InvalidHomeError(home.location, f"cannot connect: {exc}") from exc
        try:
            ensure_schema(connection)
            key = (HOME_LOCK_CLASS, home_number(connection, chosen))
            deadline = time.monotonic() + wait_seconds
            while True:
                row = connection.execute("SELECT pg_try_advisory_lock(%s, %s)", key).fetchone()
                if row is not None and row[0]:
                    home.lock_key = key
                    break
                if time.monotonic() >= deadline:
                    raise HomeLockedError(home.location)
                time.sleep(POLL_SECONDS)
            end_unfinished_writes(connection, home.application_name, home.location)  # before recovery reads
            sent = time.monotonic()
            home.claimed = claim(connection, chosen, lease_seconds)
        except BaseException:
            connection.close()
            raise
        home.lock_connection = connection
        home.lease = Lease(connection, home.location, chosen, home.claimed.epoch, lease_seconds, sent)
        home.lease.start()
        _fenced_homes.append(home)
        crashpoints.set_step_guard(_check_every_home)
        return home

    def check_fence(self) -> None:
        """Raise :class:`~storage.errors.HomeFencedError` when this process's claim on the home may have ended
        (local and cheap: called before every log write and every catalog step)."""
        if self.lease is not None:
            self.lease.check()

    def check_held(self) -> None:
        """Refuse to go on when the lock's session is gone (a server restart ends it, and another driver may have
        taken the home since): called before a store reconnects."""
        connection = self.lock_connection
        if connection is None or connection.closed:
            raise HomeLockLostError(self.location, "the home was released")
        try:
            connection.execute("SELECT 1")
        except psycopg.Error as exc:
            raise HomeLockLostError(self.location, f"its connection failed: {exc}") from exc

    def log_store(self, ops: FileOps | None = None) -> PgRecordStore:
        """The DDL log's streams (``ops`` is for files and is ignored here)."""
        return self._store(LOG_SPACE)

    def binlog_store(self, ops: FileOps | None = None) -> PgRecordStore:
        return self._store(BINLOG_SPACE)

    def _store(self, space: str) -> PgRecordStore:
        store = PgRecordStore(self.url, self.home_id, space, guard=self.check_held, fence=self.check_fence,
                              application_name=self.application_name)
        self.stores.append(store)
        return store

    def catalog_binlog(self) -> PgBinlog:
        """The catalog's one binlog, shared by every home in this database; this home's events name it."""
        table = PgBinlog(self.url, self.home_id, guard=self.check_held, fence=self.check_fence,
                         session_name=self.application_name,
                         epoch=None if self.claimed is None else self.claimed.epoch)
        self.stores.append(table)
        return table

    def spark_directory(self) -> str:
        raise NoLocalDirectoryError(self.location, "an embedded Spark session and metastore")

    def release(self) -> None:
        """Stop the heartbeat, close the stores' connections, then the lock's: PostgreSQL drops the session's
        advisory lock with it."""
        if self.lease is not None:
            self.lease.stop()
        if self in _fenced_homes:
            _fenced_homes.remove(self)
            crashpoints.set_step_guard(_check_every_home if _fenced_homes else None)
        for store in self.stores:
            store.close()
        self.stores.clear()
        for locks in self.cluster:
            locks.close()
        self.cluster.clear()
        connection, self.lock_connection = self.lock_connection, None
        if connection is None:
            return
        try:
            # Unlock first: a closed connection's backend lets go of its locks only when it has exited, a moment
            # after close() returns, and an opener in that moment would be refused.
            connection.execute("SELECT pg_advisory_unlock(%s, %s)", self.lock_key)
        except psycopg.Error:
            pass  # the session is gone, and its lock with it
        finally:
            connection.close()


_fenced_homes: list[DatabaseHome] = []
"""The open database homes of this process: every crash point (before every catalog step) checks their fences."""


def _check_every_home() -> None:
    for home in list(_fenced_homes):
        home.check_fence()


def read_only_stores(location: str, home_id: str | None = None) -> tuple[PgRecordStore, PgRecordStore]:
    """The log and binlog stores of a database home without its lock (``ddl-log status``/``dump``/``binlog``)."""
    url, chosen = split_home_url(location, home_id)
    return PgRecordStore(url, chosen, LOG_SPACE), PgRecordStore(url, chosen, BINLOG_SPACE)


def read_only_binlog(location: str, home_id: str | None = None) -> PgBinlog:
    """The catalog's binlog, read without the home's lock (``ddl-log binlog``)."""
    url, chosen = split_home_url(location, home_id)
    return PgBinlog(url, chosen, session_name="ddl-log-reader")  # never a home's name (those are ddl-log:...)
