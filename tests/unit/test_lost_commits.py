"""A commit point whose COMMIT is under way on the server when the client's connection drops, on a real PostgreSQL:
the statement's outcome, the catalog, the binlog and the log agree, whichever way the server ends that COMMIT.

The server holds the COMMIT (a deferred trigger waiting for a lock, or a synchronous standby that never answers)
while the client's socket is shut down. Ended before its commit record (the lock), the transaction rolls back: the
statement must report failure, with the old table back and no event. Ended after it (the standby wait), the
transaction commits: the statement must stand. Before the fix, the undo decided "not committed" at once on a new
connection and undid the statement; the server then finished the COMMIT (the hold ends once its backend is gone,
10 s at most): the binlog said committed, the catalog said undone, and the caller had been told it failed."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from actions.recovery import RecoveryReport
from chains import commit as chain_commit
from ddl_log import AtomicDDL, StatementFailedError
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.errors import StorageError
from storage.records import pg_session
from storage.records.pg_session import PgSession

T = TableName("default", "t")
LOCK = 0x5EED
HOLD_SECONDS = 10.0
WAITS = {"lock": "advisory", "standby": "SyncRep"}
"""What the held backend waits for in ``pg_stat_activity``, per way of holding."""


def wait_for(condition: Any, seconds: float = HOLD_SECONDS) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def one(connection: psycopg.Connection[Any], query: str, params: tuple[object, ...] = ()) -> Any:
    row = connection.execute(query, params).fetchone()
    return None if row is None else row[0]


class HeldCommit:
    """Holds the next COMMIT of one session on the server, the way ``kind`` says, until that session's backend is
    gone (at most :data:`HOLD_SECONDS`); the client's socket is shut down while the COMMIT waits."""

    def __init__(self, url: str, kind: str, table: str, hold_seconds: float = HOLD_SECONDS) -> None:
        self.url = url
        self.kind = kind
        self.hold_seconds = hold_seconds
        self.admin: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True)
        self.dropped = threading.Event()
        self.pid = 0
        self.thread: threading.Thread | None = None
        if kind == "lock":  # a deferred trigger, armed by a row in hold_flag, waits at COMMIT for LOCK
            self.admin.execute("CREATE TABLE hold_flag (armed boolean)")
            self.admin.execute(f"""CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                IF EXISTS (SELECT 1 FROM hold_flag) THEN PERFORM pg_advisory_xact_lock_shared({LOCK}); END IF;
                RETURN NULL; END $$""")
            self.admin.execute(f"CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON {table} "
                               "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit()")
            self.admin.execute("SELECT pg_advisory_lock(%s)", (LOCK,))
        else:
            self.admin.execute("CREATE TABLE hold_probe (n int)")

    def arm(self, session: PgSession) -> None:
        """Called just before the write: hold its COMMIT, and drop the client's socket once it is held."""
        connection = session.connection()
        self.pid = connection.info.backend_pid
        try:
            if self.kind == "lock":
                self.admin.execute("INSERT INTO hold_flag VALUES (true)")
            else:
                self._standby(True)
        except BaseException:
            self.lift()
            raise
        self.thread = threading.Thread(target=self._drop, args=(connection.pgconn.socket,), daemon=True)
        self.thread.start()

    def _drop(self, fd: int) -> None:
        with psycopg.connect(self.url, autocommit=True) as watch:
            held = wait_for(lambda: one(watch, "SELECT wait_event FROM pg_stat_activity WHERE pid = %s",
                                        (self.pid,)) == WAITS[self.kind])
            if held:
                with socket.socket(fileno=os.dup(fd)) as client:
                    client.shutdown(socket.SHUT_RDWR)
                self.dropped.set()
                if self.kind == "lock":
                    watch.execute("DELETE FROM hold_flag")  # later writes pass
            wait_for(lambda: self.backend_gone(watch), self.hold_seconds)
        self.lift()

    def backend_gone(self, connection: psycopg.Connection[Any]) -> bool:
        return one(connection, "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (self.pid,)) == 0

    def lift(self) -> None:
        """End the hold: the held COMMIT (if its backend still lives) goes on."""
        if self.kind == "lock":
            self.admin.execute("SELECT pg_advisory_unlock_all()")
        else:
            self._standby(False)

    def _standby(self, on: bool) -> None:
        """Commits wait for a synchronous standby that does not exist (on), or for none (off)."""
        setting = "SET synchronous_standby_names = 'absent_standby'" if on else "RESET synchronous_standby_names"
        self.admin.execute(f"ALTER SYSTEM {setting}")
        self.admin.execute("SELECT pg_reload_conf()")
        if on:
            assert wait_for(self._commits_wait, 5), "the server makes commits wait for the standby"

    def _commits_wait(self) -> bool:
        """One probe: a commit that waits for the standby (then cancelled: committed locally, harmless)."""
        with psycopg.connect(self.url, autocommit=True) as probe:
            pid = probe.info.backend_pid

            def insert() -> None:
                with contextlib.suppress(psycopg.Error):  # cancelled before its commit waited: try again
                    probe.execute("INSERT INTO hold_probe VALUES (1)")

            thread = threading.Thread(target=insert)
            thread.start()
            waits = wait_for(lambda: one(self.admin, "SELECT wait_event FROM pg_stat_activity WHERE pid = %s",
                                         (pid,)) == "SyncRep", 0.5)
            self.admin.execute("SELECT pg_cancel_backend(%s)", (pid,))
            thread.join()
        return waits

    def close(self) -> None:
        """Join the dropper, end the hold, wait until the held backend is gone: its COMMIT's fate is final."""
        if self.thread is not None:
            self.thread.join(self.hold_seconds + HOLD_SECONDS)
        self.lift()
        assert wait_for(lambda: self.backend_gone(self.admin))
        self.admin.close()


def decided(report: RecoveryReport) -> list[str]:
    """What recovery decided, without the deletion of the files an undo kept for readers (the new version that
    was the table's for a moment; due at once with a grace period of 0)."""
    return [o.outcome for o in report.outcomes if not o.statement.startswith("kept for readers")]


@pytest.fixture
def holds(postgres_url: str) -> Iterator[list[HeldCommit]]:
    made: list[HeldCommit] = []
    yield made
    for hold in made:  # never leave the test cluster waiting for a standby
        if not hold.admin.closed:
            hold.lift()
            hold.admin.close()


@pytest.mark.parametrize("kind", ["lock", "standby"])
@pytest.mark.parametrize("binlog", [True, False], ids=["binlog event", "closing the chain (binlog off)"])
def test_a_commit_point_whose_connection_drops_during_commit_is_decided_only_once_it_can_no_longer_commit(
        postgres_url, holds, monkeypatch, kind, binlog):
    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), [(1,)])
    location = f"{postgres_url}?home=a"
    ddl = AtomicDDL(home=location, catalog=catalog, binlog=binlog, grace_seconds=0, lease_seconds=30,
                    takeover_interval=3600)
    hold = HeldCommit(postgres_url, kind, "ddl_binlog" if binlog else "ddl_log_records")
    holds.append(hold)
    target: PgSession = ddl.binlog_file.table if binlog else ddl.log.store  # type: ignore[attr-defined]
    point = "BEFORE_BINLOG" if binlog else "BEFORE_XID"  # just before the write that is the commit point
    monkeypatch.setattr(chain_commit, point, lambda: hold.arm(target))
    try:
        ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(10,)]))
        stood = True
    except StatementFailedError:
        stood = False
    monkeypatch.undo()
    hold.close()
    assert hold.dropped.is_set(), "the connection dropped while the server held the COMMIT"

    assert stood == (kind == "standby"), "ended before its commit record it rolls back, after it it commits"
    assert catalog.backend.tables[T].rows == ([(10,)] if stood else [(1,)])
    if binlog:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            assert one(admin, "SELECT count(*) FROM ddl_binlog") == (1 if stood else 0)
    ddl.close()
    reopened = AtomicDDL(home=location, catalog=catalog, binlog=binlog, grace_seconds=0, lease_seconds=30,
                         takeover_interval=3600)
    assert decided(reopened.last_recovery) == [], "nothing was left for recovery to decide"
    assert catalog.backend.tables[T].rows == ([(10,)] if stood else [(1,)])
    reopened.close()


@pytest.mark.parametrize("binlog", [True, False], ids=["binlog event", "closing the chain (binlog off)"])
def test_a_lost_commit_the_server_cannot_decide_yet_is_left_to_the_next_open_which_first_ends_it(
        postgres_url, holds, monkeypatch, binlog):
    """The server cannot be asked (made so here): the statement neither undoes nor stands, it raises and leaves
    its chain to recovery, and this driver reads nothing of that store meanwhile. The next open of the home ends the
    write, still held on the server, before recovery reads: recovery undoes the statement and the write never
    commits. (Before, the open read at once and undid the statement, and the write committed when the hold ended.)"""
    from storage.records.pg_fate import Fate

    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), [(1,)])
    location = f"{postgres_url}?home=a"
    ddl = AtomicDDL(home=location, catalog=catalog, binlog=binlog, grace_seconds=0, lease_seconds=30,
                    takeover_interval=3600)
    hold = HeldCommit(postgres_url, "lock", "ddl_binlog" if binlog else "ddl_log_records", hold_seconds=60)
    holds.append(hold)
    target: PgSession = ddl.binlog_file.table if binlog else ddl.log.store  # type: ignore[attr-defined]
    monkeypatch.setattr(chain_commit, "BEFORE_BINLOG" if binlog else "BEFORE_XID", lambda: hold.arm(target))
    monkeypatch.setattr(pg_session, "fate", lambda *args, **kwargs: Fate.PENDING, raising=False)
    with pytest.raises(StorageError) as raised:
        ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(10,)]))
    assert not isinstance(raised.value, StatementFailedError)
    assert "unknown" in str(raised.value) or "may still commit" in str(raised.value)
    assert catalog.backend.tables[T].rows == [(10,)], "nothing was undone"
    with pytest.raises(StorageError, match="nothing is read until"), target.transaction("reading"):
        pass
    monkeypatch.undo()
    ddl.close()

    reopened = AtomicDDL(home=location, catalog=catalog, binlog=binlog, grace_seconds=0, lease_seconds=30,
                         takeover_interval=3600)
    assert decided(reopened.last_recovery) == ["undone"]
    assert catalog.backend.tables[T].rows == [(1,)]
    hold.close()  # the hold ends: nothing is left to commit
    reopened.close()
    again = AtomicDDL(home=location, catalog=catalog, binlog=binlog, grace_seconds=0, lease_seconds=30,
                      takeover_interval=3600)
    assert again.last_recovery.nothing_to_do and catalog.backend.tables[T].rows == [(1,)]
    if binlog:
        assert again.binlog_events() == []
    again.close()
