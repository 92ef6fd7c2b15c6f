"""Leases and fencing of a database home, and the SQL of a takeover.

Opening a home bumps its ``epoch`` and sets ``lease_until`` (in ``ddl_log_homes``); a heartbeat thread renews the
lease every third of its length, only while the epoch is still its own. A takeover (another driver recovering a dead
or paused driver's statements) bumps the epoch in a compare-and-swap, so the old holder's next renewal finds 0 rows.

The check that guards every write and catalog step is local and cheap: the monotonic time of the last successful
renewal's send, plus the lease, minus a margin. The server's ``lease_until`` (its ``now()`` at that renewal, plus the
lease) always ends later, so once a taker sees the lease over on the server, the old holder's own check refuses
already, even when it was paused and has not run a line since.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from datetime import datetime
from typing import Any

import attrs
import psycopg

from storage.errors import HomeFencedError
from storage.records.pg_schema import HOME_LOCK_CLASS

Connection = psycopg.Connection[tuple[Any, ...]]

DEFAULT_LEASE_SECONDS = 30.0
MARGIN_SHARE = 0.1
"""The local deadline ends this share of the lease before the server's ``lease_until``."""

_CLAIM = """UPDATE ddl_log_homes h SET epoch = h.epoch + 1, lease_until = now() + make_interval(secs => %s),
                taken_over_by = NULL, taken_over_at = NULL, quiet_until = NULL
            FROM (SELECT home, taken_over_by, taken_over_at FROM ddl_log_homes WHERE home = %s FOR UPDATE) old
            WHERE h.home = old.home RETURNING h.epoch, old.taken_over_by, old.taken_over_at"""
_RENEW = "UPDATE ddl_log_homes SET lease_until = now() + make_interval(secs => %s) WHERE home = %s AND epoch = %s"
_OTHERS = """SELECT h.home, h.id, h.epoch, coalesce(h.lease_until < now(), false), h.taken_over_by IS NOT NULL,
                    EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                            WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()
                              AND l.classid::int8 = %s AND l.objid::int8 = h.id AND l.objsubid = 2)
             FROM ddl_log_homes h WHERE h.home <> %s AND (h.quiet_until IS NULL OR h.quiet_until <= now())
             ORDER BY h.home"""
NEVER = "9999-12-31 00:00:00+00"
"""``quiet_until`` of a home with nothing scheduled (not 'infinity', which Python's datetime cannot hold)."""
_QUIET = """UPDATE ddl_log_homes SET quiet_until = coalesce(to_timestamp(%s::float8), %s::timestamptz)
            WHERE home = %s AND epoch = %s"""
_TAKE = """UPDATE ddl_log_homes SET epoch = epoch + 1, taken_over_by = %s, taken_over_at = now()
           WHERE home = %s AND epoch = %s RETURNING epoch, taken_over_at"""


NAME_PREFIX = "ddl-log:"
NAME_BYTES = 63
"""How much of an ``application_name`` PostgreSQL keeps (NAMEDATALEN - 1); it cuts the rest without a word."""
DIGEST_CHARS = 16


def application_name(home_id: str) -> str:
    """The ``application_name`` of every connection of ``home_id``'s driver: a taker finds its backends by it, so it
    must reach the server whole. ``ddl-log:<home id>`` when that fits in :data:`NAME_BYTES`; a longer id keeps its
    head, then ``~`` and 16 hex digits of its SHA-256: unique per home, and never another home's plain name (no home
    id holds a ``~``)."""
    name = driver_name(home_id)
    if len(name.encode()) <= NAME_BYTES:
        return name
    digest = hashlib.sha256(home_id.encode()).hexdigest()[:DIGEST_CHARS]
    return f"{NAME_PREFIX}{home_id[:NAME_BYTES - len(NAME_PREFIX) - DIGEST_CHARS - 1]}~{digest}"


def driver_name(home_id: str) -> str:
    """How messages name a home's driver: ``ddl-log:<home id>``, the id whole."""
    return f"{NAME_PREFIX}{home_id}"


def driver_of(connection: Connection, name: str) -> str:
    """The :func:`driver_name` of the home whose sessions are named ``name`` (``name`` itself for a plain name, or a
    session of no home this database knows)."""
    head, _, digest = name.removeprefix(NAME_PREFIX).partition("~")
    if not name.startswith(NAME_PREFIX) or not digest:
        return name
    try:
        rows = connection.execute("SELECT home FROM ddl_log_homes WHERE starts_with(home, %s)", (head,)).fetchall()
    except psycopg.Error:
        return name
    return next((driver_name(str(row[0])) for row in rows if application_name(str(row[0])) == name), name)


@attrs.frozen
class Claim:
    """What opening a home found: its new epoch, and who took it over since its last holder (if anyone)."""

    epoch: int
    taken_over_by: str | None = None
    taken_over_at: datetime | None = None


def claim(connection: Connection, home: str, lease_seconds: float) -> Claim:
    """Bump the epoch and start the lease, in one transaction (the caller holds the home's advisory lock)."""
    with connection.transaction():
        row = connection.execute(_CLAIM, (lease_seconds, home)).fetchone()
    assert row is not None, f"home {home} is registered before it is claimed"
    return Claim(int(row[0]), row[1], row[2])


class Lease:
    """A home's claim: renewed by a daemon heartbeat thread on the lock's connection; :meth:`check` is the fence."""

    def __init__(self, connection: Connection, location: str, home: str, epoch: int, lease_seconds: float,
                 sent: float) -> None:
        self.connection = connection
        self.location = location
        self.home = home
        self.epoch = epoch
        self.lease_seconds = lease_seconds
        self.deadline = sent + lease_seconds * (1 - MARGIN_SHARE)
        self.fenced: str | None = None
        self.renewals = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> None:
        """Raise :class:`HomeFencedError` once the claim may have ended: a renewal saw another epoch or failed, or
        the local deadline passed (this process was paused, or its renewals did not get through)."""
        if self.fenced is not None:
            raise HomeFencedError(self.location, self.fenced)
        late = time.monotonic() - self.deadline
        if late > 0:
            raise HomeFencedError(self.location, f"its lease of {self.lease_seconds:g} s ran out {late:.1f} s ago "
                                                 "without a renewal; another driver may have taken the home over")

    def renew(self) -> bool:
        """One renewal; False (and fenced for good) when the epoch moved on or the lock's connection failed."""
        sent = time.monotonic()
        try:
            rows = self.connection.execute(_RENEW, (self.lease_seconds, self.home, self.epoch)).rowcount
        except psycopg.Error as exc:
            self.fenced = f"its lease could not be renewed: {str(exc).strip()}"
            return False
        if rows != 1:
            self.fenced = f"taken over: its epoch {self.epoch} is no longer the home's"
            return False
        if self.fenced is None:
            self.deadline = sent + self.lease_seconds * (1 - MARGIN_SHARE)
            self.renewals += 1
        return True

    def leave_quiet(self, until: float | None) -> None:
        """Say, as this driver closes its home cleanly, that nothing in its log needs a taker before ``until``
        (seconds since the epoch; None: never), so takers skip it without reading its log. Best effort: a home
        without the mark is read, as after a crash."""
        mark_quiet(self.connection, self.home, self.epoch, until)

    def start(self) -> None:
        thread = threading.Thread(target=self._beat, name=f"ddl-log-lease-{self.home}", daemon=True)
        self._thread = thread
        thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(self.lease_seconds / 3):
            if not self.renew():
                return

    @property
    def beating(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """End the heartbeat (the home is being released); waits for a renewal under way."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()


# ---------------------------------------------------------------------- takeover SQL


@attrs.frozen
class OtherHome:
    """Another home of the database as a taker sees it."""

    home: str
    number: int
    epoch: int
    expired: bool
    """Its lease ended on the server's clock (never set: not expired)."""
    held: bool
    """Some session holds its advisory lock."""
    taken: bool = False
    """Another driver took it over (and may be recovering it now, its lock held, the old lease not yet over)."""

    @property
    def candidate(self) -> bool:
        """Dead (lock free) or stuck (lease over): its statements may be taken over."""
        return not self.held or self.expired


def other_homes(connection: Connection, me: str) -> list[OtherHome]:
    rows = connection.execute(_OTHERS, (HOME_LOCK_CLASS, me)).fetchall()
    return [OtherHome(str(r[0]), int(r[1]), int(r[2]), bool(r[3]), bool(r[5]), bool(r[4])) for r in rows]


def mark_quiet(connection: Connection, home: str, epoch: int, until: float | None) -> None:
    """``home`` (still at ``epoch``) needs no taker before ``until`` (seconds since the epoch; None: never). Best
    effort: an unmarked home is only read again by takers."""
    with contextlib.suppress(psycopg.Error):
        connection.execute(_QUIET, (until, NEVER, home, epoch))


def terminate_backends(connection: Connection, home: str, seen_epoch: int) -> int:
    """End every session of ``home``'s driver (its lock, its stores, its cross-driver locks): how many. Only while
    the home is still at ``seen_epoch`` with its lease over, checked in the same statement: a driver that has just
    (re)opened the home under that id has a new epoch and a fresh lease, and its sessions are left alone."""
    row = connection.execute(
        "SELECT count(pg_terminate_backend(a.pid)) FROM pg_stat_activity a WHERE a.application_name = %s "
        "AND a.pid <> pg_backend_pid() AND EXISTS (SELECT 1 FROM ddl_log_homes h WHERE h.home = %s "
        "AND h.epoch = %s AND h.lease_until < now())", (application_name(home), home, seen_epoch)).fetchone()
    return 0 if row is None else int(row[0])


def try_lock(connection: Connection, number: int, wait_seconds: float = 0.0) -> bool:
    """Try to take a home's advisory lock, polling up to ``wait_seconds`` (a terminated backend lets go a moment
    after it was told to)."""
    deadline = time.monotonic() + wait_seconds
    while True:
        row = connection.execute("SELECT pg_try_advisory_lock(%s, %s)", (HOME_LOCK_CLASS, number)).fetchone()
        if row is not None and row[0]:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def unlock(connection: Connection, number: int) -> None:
    connection.execute("SELECT pg_advisory_unlock(%s, %s)", (HOME_LOCK_CLASS, number))


def take(connection: Connection, home: str, seen_epoch: int, taker: str) -> datetime | None:
    """The compare-and-swap of a takeover: bump ``home``'s epoch if it is still ``seen_epoch``; when it was taken
    (None: another driver, or the home's owner, got there first)."""
    with connection.transaction():
        row = connection.execute(_TAKE, (driver_name(taker), home, seen_epoch)).fetchone()
    return None if row is None else row[1]  # type: ignore[no-any-return]


def lease_left(connection: Connection, home: str) -> float:
    """Seconds until ``home``'s lease ends on the server's clock (0 when it has ended or was never set)."""
    row = connection.execute("SELECT greatest(0, extract(epoch FROM lease_until - now()))::float8 "
                             "FROM ddl_log_homes WHERE home = %s", (home,)).fetchone()
    return 0.0 if row is None or row[0] is None else float(row[0])
