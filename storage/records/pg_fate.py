"""The fate of a write whose COMMIT got no answer, asked only once the write can no longer commit.

A lost connection does not stop the server: the backend may still be committing (a slow WAL flush, a synchronous
standby, a deferred trigger) or may not have read COMMIT yet, and it commits whenever it gets there. A new
connection that looked for the rows at once could see none, decide "not committed", undo the statement, and then
the rows would appear. So a writer notes its transaction's id (``pg_current_xact_id()``) inside the transaction, and
after a lost COMMIT asks ``pg_xact_status`` on a new connection, ending the old backend until the answer is no
longer 'in progress' (``pg_terminate_backend``, only while that backend still runs that transaction: a pid is
reused, a transaction id in progress is not). A backend ended before its commit record rolls back; one past it
finishes the commit first; either way the answer is then final. The same rule holds across processes: whoever takes
a home's lock (its opener, a taker) ends the unfinished writes left under its name (:func:`end_unfinished_writes`)
before it reads the home's log and binlog.
"""

from __future__ import annotations

import enum
import time
from typing import Any

import attrs
import psycopg

from storage.errors import StorageError

Connection = psycopg.Connection[tuple[Any, ...]]

SETTLE_SECONDS = 10.0
"""How long a writer tries to learn the fate of a lost COMMIT (the server may be restarting) before it leaves the
fate unknown; its session then reads nothing until the fate is known."""
POLL_SECONDS = 0.05
CURRENT_XACT = "SELECT pg_current_xact_id()::text"


class Fate(enum.Enum):
    COMMITTED = "committed"
    ROLLED_BACK = "rolled back"
    FORGOTTEN = "ended, its outcome no longer kept by the server"
    PENDING = "not known yet: the server could not be asked, so it may still commit"

    @property
    def final(self) -> bool:
        """Nothing can commit it any more: what a read sees now stays true."""
        return self is not Fate.PENDING


@attrs.frozen
class Commit:
    """A transaction whose COMMIT was sent: its id (``xid8`` as text) and its backend's pid."""

    xact: str
    pid: int


def current_xact(connection: Connection) -> str:
    """The id of the transaction open on ``connection`` (assigned now if it has none yet)."""
    row = connection.execute(CURRENT_XACT).fetchone()
    assert row is not None
    return str(row[0])


def lost(connection: Connection) -> bool:
    """Whether ``connection`` is gone (rather than the server having answered with an error)."""
    return connection.broken or connection.closed


def end_backend(connection: Connection, commit: Commit) -> None:
    """End ``commit``'s backend, if it still runs that transaction."""
    connection.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE pid = %s AND backend_xid = %s::xid8::xid", (commit.pid, commit.xact))


def fate(url: str, commit: Commit, *, application_name: str | None = None,
         wait_seconds: float = SETTLE_SECONDS) -> Fate:
    """What became of ``commit``, asked on a new connection once it can no longer commit (:data:`Fate.PENDING`
    when the server cannot be reached within ``wait_seconds``)."""
    deadline = time.monotonic() + wait_seconds
    named: dict[str, Any] = {} if application_name is None else {"application_name": application_name}
    while True:
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=max(2, round(wait_seconds)), **named) as ask:
                while True:
                    row = ask.execute("SELECT pg_xact_status(%s::xid8)", (commit.xact,)).fetchone()
                    status = "" if row is None or row[0] is None else str(row[0])  # NULL: too old to be kept
                    if status != "in progress":
                        return {"committed": Fate.COMMITTED, "aborted": Fate.ROLLED_BACK}.get(status, Fate.FORGOTTEN)
                    end_backend(ask, commit)
                    if time.monotonic() >= deadline:
                        return Fate.PENDING
                    time.sleep(POLL_SECONDS)
        except psycopg.Error:
            if time.monotonic() >= deadline:
                return Fate.PENDING
            time.sleep(POLL_SECONDS)


def end_unfinished_writes(connection: Connection, application_name: str, location: str,
                          wait_seconds: float = SETTLE_SECONDS) -> None:
    """End every other session named ``application_name`` that is inside a writing transaction, and wait until they
    are gone. Called by whoever has just taken a home's lock (its opener, a taker) before reading its log: such a
    session is a previous holder's, and its write may still commit although that holder never saw the answer.
    Sessions without a transaction id (an opener waiting for the lock) can commit nothing and are left alone."""
    query = ("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
             "WHERE application_name = %s AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()")
    deadline = time.monotonic() + wait_seconds
    while True:
        row = connection.execute(query, (application_name,)).fetchone()
        if row is None or not row[0]:
            return
        if time.monotonic() >= deadline:
            raise StorageError(f"{location}: {row[0]} unfinished write(s) of a previous holder of the home did not "
                               f"end within {wait_seconds:g} s; open the home again later")
        time.sleep(POLL_SECONDS)
