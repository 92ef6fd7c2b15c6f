"""Home ids up to the longest allowed (128 characters) on PostgreSQL, which keeps only 63 bytes of an
``application_name``: every session of a home carries the one name takers and lock messages look it up by, a paused
driver with such an id is taken over like any other, and a lock timeout names its holder by its whole id."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from ddl_log import AtomicDDL
from ddl_log.errors import ObjectInRecoveryError
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.errors import MetadataLockTimeoutError
from storage.records.home import open_home
from storage.records.pg_home import HOME_ID, DatabaseHome
from storage.records.pg_lease import application_name
from storage.records.pg_locks import ClusterLocks
from tests.unit.test_leases import HOLDER, LEASE, ROOT

LONGEST = ("etl.nightly-" * 11)[:127] + "1"
SIBLING = LONGEST[:-1] + "2"
"""Two of the longest allowed ids, the same up to their last character."""


def session_names(url: str, pids: list[int]) -> list[str]:
    with psycopg.connect(url, autocommit=True) as admin:
        rows = admin.execute("SELECT application_name FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)).fetchall()
    return [str(row[0]) for row in rows]


def sessions_named(url: str, name: str) -> int:
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)).fetchone()
    assert row is not None
    return int(row[0])


def test_the_ids_are_allowed_and_their_names_fit_postgres_and_stay_apart():
    assert len(LONGEST) == 128 and HOME_ID.match(LONGEST) and HOME_ID.match(SIBLING)
    names = {application_name(home) for home in (LONGEST, SIBLING, "a", "x" * 55, "x" * 56)}
    assert len(names) == 5 and all(len(name.encode()) <= 63 for name in names)
    assert application_name("etl-driver-7") == "ddl-log:etl-driver-7", "short ids keep their plain name"
    assert application_name(LONGEST).startswith("ddl-log:etl.nightly-")


def test_every_session_of_a_home_with_the_longest_id_carries_the_name_its_takers_look_up(postgres_url):
    home = open_home(f"{postgres_url}?home={LONGEST}")
    assert isinstance(home, DatabaseHome) and home.lock_connection is not None
    try:
        store = home.log_store()
        locks = home.cluster_locks(5.0)
        locks.acquire("db\x00t", True)
        pids = [home.lock_connection.info.backend_pid, store.connection().info.backend_pid,
                locks._connection().info.backend_pid]
        assert session_names(postgres_url, pids) == [application_name(LONGEST)] * 3
    finally:
        home.release()


def test_a_paused_driver_with_the_longest_home_id_is_taken_over_and_its_objects_are_freed(postgres_url):
    """Its sessions are found by name and ended, so its lock comes free: before, the taker ended none, found the
    lock busy, and the paused driver's objects stayed refused for as long as it was paused."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, f"{postgres_url}?home={LONGEST}", str(LEASE)],
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        os.kill(process.pid, signal.SIGSTOP)
        catalog = memory_catalog()
        catalog.backend.add_user_table(TableName("default", "u"), ("a",), [(1,)])
        live = AtomicDDL(home=f"{postgres_url}?home=live", catalog=catalog, lease_seconds=30, takeover_interval=3600)
        try:
            time.sleep(LEASE + 0.2)
            with pytest.raises(ObjectInRecoveryError) as refused:
                live.truncate_table("u")  # wakes the takeover
            assert refused.value.driver == f"ddl-log:{LONGEST}"
            deadline = time.monotonic() + 15
            while True:
                try:
                    live.truncate_table("u")
                    break
                except ObjectInRecoveryError:
                    assert time.monotonic() < deadline, "the takeover ended the paused driver's sessions"
                    time.sleep(0.2)
            assert sessions_named(postgres_url, application_name(LONGEST)) == 0
            with psycopg.connect(postgres_url, autocommit=True) as admin:
                row = admin.execute("SELECT taken_over_by FROM ddl_log_homes WHERE home = %s", (LONGEST,)).fetchone()
            assert row == ("ddl-log:live",)
        finally:
            live.close()
    finally:
        os.kill(process.pid, signal.SIGKILL)
        os.kill(process.pid, signal.SIGCONT)
        process.wait(timeout=30)


def test_a_lock_timeout_names_a_holder_with_the_longest_id_by_its_whole_id(postgres_url):
    holder = open_home(f"{postgres_url}?home={LONGEST}")
    assert isinstance(holder, DatabaseHome)
    waiter = ClusterLocks(postgres_url, application_name("waiter"), wait_seconds=0.2)
    try:
        holder.cluster_locks(5.0).acquire("db\x00t", True)
        with pytest.raises(MetadataLockTimeoutError) as raised:
            waiter.acquire("db\x00t", True)
        assert raised.value.holder == f"ddl-log:{LONGEST}"
        assert str(raised.value).endswith(f"held by ddl-log:{LONGEST}")
    finally:
        waiter.close()
        holder.release()
