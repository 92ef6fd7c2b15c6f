"""Takeover: a live driver recovers the interrupted statements of a dead driver's database home.

A home is a candidate when its advisory lock is free (its driver died: PostgreSQL ended its session) or its lease
ran out on the server's clock (its driver is paused or cut off, its session may linger). Its log is read first,
without its lock: a home with nothing to run (no active chain, no deletion due) is skipped there. Otherwise the
taker ends every session named ``ddl-log:<home>`` (a lingering lock, store connections, cross-driver locks), takes the
home's advisory lock (try only: a busy home is someone else's), bumps its epoch in a compare-and-swap (exactly once:
the CAS and the lock), records who took it and when, and waits until the home's lease is over on the server's clock:
from then on the old holder's own fence check refuses every step, even one it resumes after a pause. Then it runs
:func:`actions.recovery.recover` on that home's log with the taker's catalog and locks, and releases the home.

PostgreSQL modules are imported only when a database home uses them (a file home never takes over anything).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import attrs

from actions.context import DEFAULT_GRACE_SECONDS
from actions.deletions import deletion_of, pending_deletions, waits
from actions.locking import chain_keys
from actions.recovery import RecoveryReport, recover
from chains.entries import ActionEntry
from chains.log import LOG_FILE, LOG_MAGIC, DDLLog
from ddl_log.errors import ObjectInRecoveryError
from storage.catalogs.ports import Catalog
from storage.errors import DDLLogError, HomeFencedError, StorageError

if TYPE_CHECKING:
    import psycopg

    from chains.binlog import BinlogLike
    from storage.records.pg_home import DatabaseHome
    from storage.records.pg_lease import OtherHome
    from storage.records.pg_store import PgRecordStore

LOCK_WAIT_SECONDS = 10.0
"""How long a taker waits for terminated sessions to let go of a home's lock."""
LockChain = Callable[[list[ActionEntry]], AbstractContextManager[None]]


@attrs.frozen
class HomeTakeover:
    """What a takeover did with one other home.

    ``outcome``: recovered | nothing to do | alive | busy | taken by another | interrupted | failed.
    ``seconds``: its parts (detect: reading the log; lock: sessions ended, lock and CAS; lease: waiting for the old
    holder's lease to end; recovery)."""

    home: str
    outcome: str
    detail: str = ""
    recovery: RecoveryReport | None = None
    seconds: tuple[tuple[str, float], ...] = ()


@attrs.frozen
class TakeoverReport:
    homes: tuple[HomeTakeover, ...] = ()

    @property
    def recovered(self) -> list[HomeTakeover]:
        return [item for item in self.homes if item.outcome == "recovered"]


def note_takeover(home: object, report: RecoveryReport) -> RecoveryReport:
    """The recovery report of a home's open, with a note when another driver had taken the home over."""
    claimed = getattr(home, "claimed", None)
    by = getattr(claimed, "taken_over_by", None)
    if by is None:
        return report
    at = getattr(claimed, "taken_over_at", None)
    note = f"taken over by {by}" + (f" at {at:%Y-%m-%d %H:%M:%S %Z}" if at is not None else "")
    return attrs.evolve(report, note=note + (": nothing left to do" if report.nothing_to_do else ""))


@attrs.frozen
class Outlook:
    """What a home's log holds for a taker (read without its lock): the metadata-lock keys of the objects its chains
    still to run touch (none: nothing to take over), and when its first scheduled deletion falls due."""

    keys: frozenset[str] = frozenset()
    next_due: float | None = None


def outlook(url: str, home: str, now: float) -> Outlook:
    from chains.log_state import replay_records
    from storage.records.pg_home import LOG_SPACE
    from storage.records.pg_store import PgRecordStore

    store = PgRecordStore(url, home, LOG_SPACE)
    try:
        if LOG_FILE not in store.names():
            return Outlook()
        records, _, _ = store.read(LOG_FILE, LOG_MAGIC)
    finally:
        store.close()
    state, _ = replay_records(records)
    keys: set[str] = set()
    dues: list[float] = []
    for position, chain in state.chains.items():
        if not chain.active:
            continue
        actions = state.chain_actions(position)
        if waits(actions, now):
            deletion = deletion_of(actions)
            dues += [deletion[1].due] if deletion is not None else []
        else:
            keys.update(chain_keys(actions).exclusive or [f"chain {position}"])
    return Outlook(frozenset(keys), min(dues) if dues else None)


def check_objects(takeover: Takeover | None, keys: list[str]) -> None:
    """:meth:`Takeover.check_objects` for a driver that has takeovers (a database home); nothing for a file home."""
    if takeover is not None:
        takeover.check_objects(set(keys))


@attrs.define
class Takeover:
    """The takeovers of one driver: :meth:`run_once` on demand, and a daemon thread every ``interval`` seconds."""

    home: DatabaseHome
    catalog: Callable[[], Catalog]
    lock_chain: LockChain
    write_binlog: bool = True
    interval: float = 30.0
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    """The taking driver's: what an undo keeps for readers stays that long."""
    last: TakeoverReport | None = None
    _stop: threading.Event = attrs.Factory(threading.Event)
    _thread: threading.Thread | None = None
    _run_lock: threading.Lock = attrs.Factory(threading.Lock)
    _wake: threading.Event = attrs.Factory(threading.Event)
    _check_lock: threading.Lock = attrs.Factory(threading.Lock)
    _check_connection: Any = None

    def check_objects(self, keys: set[str]) -> None:
        """Refuse (:class:`ObjectInRecoveryError`) a statement on an object that a dead or paused driver's
        interrupted chain touches, and wake the takeover: the dead driver's metadata locks ended with its session,
        so nothing else keeps a statement from working on its half-changed object before takeover recovers it.
        One query when every other driver is alive; their logs are read only when one is not."""
        import psycopg

        from storage.records.pg_lease import other_homes

        with self._check_lock:
            connection = self._check_connection
            if connection is None or connection.closed or connection.broken:
                connection = self._check_connection = psycopg.connect(
                    self.home.url, autocommit=True, application_name=self.home.application_name)
            others = [other for other in other_homes(connection, self.home.home_id) if other.candidate or other.taken]
        for other in others:
            touched = keys & outlook(self.home.url, other.home, time.time()).keys
            if touched:
                from storage.records.pg_locks import object_name

                self.wake()
                raise ObjectInRecoveryError(object_name(min(touched)), f"ddl-log:{other.home}")

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name=f"ddl-log-takeover-{self.home.home_id}",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the thread (waits for a takeover under way to finish or be interrupted)."""
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def close(self) -> None:
        """:meth:`stop`, then close the connection :meth:`check_objects` keeps."""
        self.stop()
        with self._check_lock:
            connection, self._check_connection = self._check_connection, None
        if connection is not None:
            connection.close()

    def wake(self) -> None:
        """Run a takeover round now rather than at the next interval."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.run_once()
            except HomeFencedError:
                return  # this driver must stop: its statements fail with the same error
            except Exception as exc:  # noqa: BLE001 - a background thread reports and tries again later
                print(f"ddl-log: takeover failed: {exc}", file=sys.stderr)

    def run_once(self) -> TakeoverReport:
        """Take over every other home of the database that is dead or past its lease and has something to run."""
        import psycopg

        from storage.records.pg_lease import other_homes

        with self._run_lock:
            self.home.check_fence()
            connection: psycopg.Connection[tuple[Any, ...]] = psycopg.connect(
                self.home.url, autocommit=True, application_name=self.home.application_name)
            try:
                results = []
                for other in other_homes(connection, self.home.home_id):
                    if self._stop.is_set():
                        break
                    results.append(self._take_over(connection, other))
            finally:
                connection.close()
            self.last = TakeoverReport(tuple(results))
            return self.last

    def _take_over(self, connection: psycopg.Connection[tuple[Any, ...]], other: OtherHome) -> HomeTakeover:
        from storage.records.pg_fate import end_unfinished_writes
        from storage.records.pg_lease import (
            application_name,
            lease_left,
            mark_quiet,
            take,
            terminate_backends,
            try_lock,
            unlock,
        )

        if not other.candidate:
            return HomeTakeover(other.home, "alive")
        began = time.monotonic()
        try:
            seen = outlook(self.home.url, other.home, time.time())
        except StorageError as exc:
            return HomeTakeover(other.home, "failed", f"reading its log: {exc}")
        if not seen.keys:
            if not other.held:  # dead and done: takers skip it until its first scheduled deletion is due
                mark_quiet(connection, other.home, other.epoch, seen.next_due)
            return HomeTakeover(other.home, "nothing to do")
        detected = time.monotonic()
        ended = terminate_backends(connection, other.home, other.epoch) if other.held else 0
        if not try_lock(connection, other.number, LOCK_WAIT_SECONDS if ended else 0.0):
            return HomeTakeover(other.home, "busy", "its lock is held")
        try:
            taken_at = take(connection, other.home, other.epoch, self.home.home_id)
            if taken_at is None:
                return HomeTakeover(other.home, "taken by another", "its epoch moved on")
            try:  # before its log is read: a write its driver sent may still commit
                end_unfinished_writes(connection, application_name(other.home), other.home)
            except StorageError as exc:
                return HomeTakeover(other.home, "failed", str(exc))
            locked = time.monotonic()
            if self._stop.wait(lease_left(connection, other.home)):
                return HomeTakeover(other.home, "interrupted", "this driver is closing")
            leased = time.monotonic()
            try:
                report = self._recover(connection, other.home)
            except HomeFencedError:
                raise
            except DDLLogError as exc:
                return HomeTakeover(other.home, "failed", str(exc))
            done = time.monotonic()
            left = outlook(self.home.url, other.home, time.time())
            if not left.keys:  # recovered: takers skip it until its first scheduled deletion is due
                mark_quiet(connection, other.home, other.epoch + 1, left.next_due)
        finally:
            unlock(connection, other.number)
        parts = (("detect", detected - began), ("lock", locked - detected), ("lease", leased - locked),
                 ("recovery", done - leased))
        detail = f"{ended} session(s) ended" if ended else ""
        return HomeTakeover(other.home, "recovered", detail, report, tuple((k, round(v, 3)) for k, v in parts))

    def _recover(self, connection: psycopg.Connection[tuple[Any, ...]], home_id: str) -> RecoveryReport:
        """Recovery of ``home_id``'s log, its lock held on ``connection``, with this driver's catalog and locks."""
        from storage.records.pg_home import BINLOG_SPACE, LOG_SPACE
        from storage.records.pg_store import PgRecordStore

        def still_held() -> None:
            connection.execute("SELECT 1")  # the taken home's lock lives on this connection

        stores = [PgRecordStore(self.home.url, home_id, space, guard=still_held, fence=self.home.check_fence,
                                application_name=self.home.application_name) for space in (LOG_SPACE, BINLOG_SPACE)]
        log: DDLLog | None = None
        binlog: BinlogLike | None = None
        try:
            log = DDLLog(stores[0])
            binlog = self.binlog_of(stores[1])
            log.reserve_ids(binlog.max_xid + 1)
            return recover(log, binlog, self.catalog, write_binlog=self.write_binlog, lock_chain=self.lock_chain,
                           grace_seconds=self.grace_seconds)
        finally:
            if log is not None:
                log.close_file()
            if binlog is not None:
                binlog.close()
            for store in stores:
                store.close()

    def binlog_of(self, store: PgRecordStore) -> BinlogLike:
        """The binlog that decides whether a taken home's statements committed, and receives the events its
        recovery writes: the catalog's one binlog (the dead home's own segments, ``store``, for chains noted there
        by an earlier version), appended to as this driver and fenced by this driver's own epoch."""
        from chains.catalog_binlog import CatalogBinlog

        return CatalogBinlog(self.home.catalog_binlog(), legacy=store)


def start_takeover(home: object, catalog: Callable[[], Catalog], lock_chain: LockChain, write_binlog: bool,
                   interval: float | None, grace_seconds: float = DEFAULT_GRACE_SECONDS) -> Takeover | None:
    """The takeovers of a database home's driver, its thread started (every ``interval`` s, default its lease);
    None for a file home (its log is its process's alone)."""
    lease = getattr(home, "lease", None)
    if lease is None:
        return None
    takeover = Takeover(home, catalog, lock_chain, write_binlog,  # type: ignore[arg-type]
                        interval if interval is not None else lease.lease_seconds, grace_seconds)
    takeover.start()
    return takeover


def stop_takeover(owner: object) -> None:
    """Stop the takeover thread of ``owner`` (an AtomicDDL, maybe half made) if it has one, and tell takers how
    long its home needs none (:func:`leave_quiet`)."""
    takeover = getattr(owner, "takeover", None)
    if takeover is not None:
        takeover.close()
        leave_quiet(takeover.home, getattr(owner, "log", None))


def leave_quiet(home: DatabaseHome, log: DDLLog | None) -> None:
    """A clean close: with no chain left to run, the home needs no taker until its first scheduled deletion falls
    due (never, without one); takers then skip it without reading its log. A chain still to run leaves it open to
    them (as a crash does)."""
    if log is None or home.lease is None:
        return
    now = time.time()
    actions = [(chain, log.actions_of(chain.position)) for chain in log.active_chains()]
    if any(not waits(chain_actions, now) for _, chain_actions in actions):
        return
    dues = [deletion.due for deletion in pending_deletions(log)]
    home.lease.leave_quiet(min(dues) if dues else None)


def take_over_dead(takeover: Takeover | None) -> TakeoverReport:
    """One takeover round now (nothing for a file home)."""
    return TakeoverReport() if takeover is None else takeover.run_once()
