"""What the PostgreSQL stores share: a guarded connection, and the one-transaction commit of a write.

A home's record store (:mod:`storage.records.pg_store`) and the catalog binlog (:mod:`storage.records.pg_binlog`)
each keep one connection, used under a lock and re-established after a failure only when ``guard`` (the home's
check that it still holds its home) agrees; ``fence`` (the home's lease check) runs before every write. Their
writes commit the same way: one transaction between the ``record.*`` crash points, and a failed one poisons the
writer until it is reopened, as a failed fsync does in the file store. A write whose COMMIT got no answer is
decided only once it can no longer commit (:mod:`storage.records.pg_fate`); until then its session reads nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg

from storage.errors import LogWriteFailedError, StorageError
from storage.records.files import AFTER_SYNC, BEFORE_SYNC, BEFORE_WRITE, TORN_WRITE
from storage.records.pg_fate import Commit, Fate, current_xact, fate, lost
from storage.records.pg_schema import ensure_schema

Connection = psycopg.Connection[tuple[Any, ...]]
T = TypeVar("T")


class PgSession:
    """One connection to ``url`` (named ``application_name`` in ``pg_stat_activity``), used under :attr:`lock`."""

    def __init__(self, url: str, *, guard: Callable[[], None] | None = None,
                 fence: Callable[[], None] | None = None, application_name: str | None = None) -> None:
        self.url = url
        self.guard = guard
        self.fence = fence
        self.application_name = application_name
        self.lock = threading.RLock()
        self._connection: Connection | None = None
        self._unsettled: Commit | None = None
        """A write whose COMMIT got no answer and whose fate could not be learned yet: no read before it is."""

    @property
    def location(self) -> str:
        """Where this session's data lives, for messages."""
        raise NotImplementedError

    def connection(self) -> Connection:
        """The session's connection, (re)connected when there is none or it broke: only once a write of this
        session whose COMMIT got no answer can no longer commit, so that no read decides it too early."""
        if self._connection is not None and not self._connection.closed and not self._connection.broken:
            return self._connection
        pending = self._unsettled
        if pending is not None and not self.settle(pending).final:
            raise StorageError(f"{self.location}: a write whose COMMIT got no answer (transaction {pending.xact}) may "
                               "still commit and the server cannot tell yet; nothing is read until it can")
        if self.guard is not None:
            self.guard()
        try:
            named: dict[str, Any] = {} if self.application_name is None else {"application_name": self.application_name}
            connection: Connection = psycopg.connect(self.url, autocommit=True, **named)
            ensure_schema(connection)
        except psycopg.Error as exc:
            raise StorageError(f"{self.location}: cannot connect: {exc}") from exc
        self._connection = connection
        return connection

    def settle(self, commit: Commit) -> Fate:
        """The fate of ``commit`` (:func:`~storage.records.pg_fate.fate`); while it is not final, kept for
        :meth:`connection` to ask again."""
        found = fate(self.url, commit, application_name=self.application_name)
        self._unsettled = None if found.final else commit
        return found

    @contextmanager
    def transaction(self, what: str, *, write: bool = False) -> Iterator[Connection]:
        """One transaction on the session's connection; a database error becomes a :class:`StorageError`. A write
        is refused (:class:`~storage.errors.HomeFencedError`) once the home's claim may have ended; one whose COMMIT
        got no answer stands if it committed, else fails once it can no longer commit."""
        if write and self.fence is not None:
            self.fence()
        with self.lock:
            connection = self.connection()
            commit = None
            done = False
            try:
                with connection.transaction():
                    if write:
                        commit = Commit(current_xact(connection), connection.info.backend_pid)
                    yield connection
                    done = True
            except psycopg.Error as exc:
                if commit is None or not done or not lost(connection):
                    raise StorageError(f"{self.location}: {what} failed: {exc}") from exc
                found = self.settle(commit)
                if found is not Fate.COMMITTED:
                    raise StorageError(f"{self.location}: {what} failed: {exc}; the connection was lost during "
                                       f"COMMIT, and the transaction was {found.value}") from exc

    def close(self) -> None:
        with self.lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


class PgWriter:
    """A writer whose every write is one committed transaction on a :class:`PgSession` (:meth:`commit_write`)."""

    WRITTEN = "records"
    """What a write stores, for messages."""
    DECIDED_BY = "the next open"
    """What finds out whether a write whose COMMIT got no answer was committed."""

    _poisoned: LogWriteFailedError | None = None
    syncs: int = 0

    @property
    def location(self) -> str:
        raise NotImplementedError

    def _session(self) -> PgSession:
        raise NotImplementedError

    @property
    def failed(self) -> LogWriteFailedError | None:
        return self._poisoned

    def commit_write(self, write: Callable[[Connection], tuple[T, str]]) -> T:
        """Run ``write`` (which returns its result and :func:`~storage.records.pg_fate.current_xact`) in one
        transaction and COMMIT: ``record.before_write`` before it, ``record.torn_write`` and ``record.before_sync``
        before COMMIT (dying there leaves nothing), ``record.after_sync`` after it. A database error poisons the
        writer (:meth:`_fail`) unless the connection was lost during a COMMIT that turns out committed (the write
        stands); any other exception (a simulated crash, a fenced home) rolls back: a dying process never commits."""
        self.check_writable()
        session = self._session()
        if session.fence is not None:
            session.fence()
        BEFORE_WRITE()
        with session.lock:
            try:
                connection = session.connection()
            except StorageError as exc:
                raise self._poison(f"append failed: {exc}; nothing of it was kept") from exc
            pid = connection.info.backend_pid
            commit = None
            try:
                with connection.transaction():
                    result, xact = write(connection)
                    TORN_WRITE()
                    BEFORE_SYNC()
                    commit = Commit(xact, pid)
            except psycopg.Error as exc:
                found = session.settle(commit) if commit is not None and lost(connection) else Fate.ROLLED_BACK
                if found is not Fate.COMMITTED:
                    raise self._fail(exc, found) from exc
        self.syncs += 1
        AFTER_SYNC()
        return result

    def _fail(self, exc: psycopg.Error, found: Fate) -> LogWriteFailedError:
        """Poison the writer. Before COMMIT, or when the server answered COMMIT with an error, the transaction is
        rolled back: what it wrote is surely not there. A COMMIT whose connection was lost was decided once it
        could no longer commit (:mod:`storage.records.pg_fate`): rolled back, or (the server could not be asked, or
        has forgotten) unknown: :data:`DECIDED_BY` decides, and this session reads nothing before it can."""
        if found is Fate.ROLLED_BACK:
            return self._poison(f"append failed: {exc}; the transaction was rolled back, nothing of it was kept")
        return self._poison(f"append failed: {exc}; the connection was lost during COMMIT, so whether its "
                            f"{self.WRITTEN} were committed is unknown ({found.value}): {self.DECIDED_BY} decides",
                            fate_unknown=True)

    def _poison(self, reason: str, *, fate_unknown: bool = False) -> LogWriteFailedError:
        self._poisoned = LogWriteFailedError(self.location, reason, fate_unknown=fate_unknown)
        return self._poisoned

    def check_writable(self) -> None:
        if self._poisoned is not None:
            raise LogWriteFailedError(
                self.location, f"refusing to write after a failed write ({self._poisoned.reason}); reopen to go on")
