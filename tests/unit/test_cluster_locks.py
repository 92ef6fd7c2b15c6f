"""Cross-driver metadata locks on the test PostgreSQL, without Spark: other drivers are other processes
(:mod:`tests.unit.lock_holder`) or other sessions of this one; every wait is bounded."""

from __future__ import annotations

import itertools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.entries import ActionType, ChainKind
from chains.lock_keys import database_key, function_key
from chains.lock_keys import object_key as locking_object_key
from ddl_log import AtomicDDL
from ddl_log.cluster.locks import MetadataLocks, metadata_locks
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.errors import MetadataLockTimeoutError
from storage.records.home import open_home
from storage.records.pg_home import DatabaseHome
from storage.records.pg_locks import ClusterLocks, lock_number, object_name
from tests.servers.postgres import advisory_locks_left, advisory_locks_of

ROOT = Path(__file__).resolve().parents[2]


def object_key_of(db: str, name: str) -> str:
    return locking_object_key(TableName(db, name))


TABLE = object_key_of("db", "t")
DATABASE = database_key("db")
EVENT_LIMIT = 30.0


class Holder:
    """A lock_holder process; its JSON lines arrive on a queue, read by a thread (never a blocking read here)."""

    def __init__(self, url: str, home_id: str, *locks: str, wait: float = 30.0, hold: str = "stdin",
                 repeat: int = 1) -> None:
        command = [sys.executable, "-m", "tests.unit.lock_holder", url, home_id, str(wait), hold, str(repeat), *locks]
        self.process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.events.put(json.loads(line))

    def next(self, timeout: float = EVENT_LIMIT) -> dict[str, Any]:
        return self.events.get(timeout=timeout)

    def nothing_within(self, seconds: float) -> bool:
        try:
            self.events.get(timeout=seconds)
        except queue.Empty:
            return True
        return False

    def release(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def finish(self) -> int:
        return self.process.wait(timeout=EVENT_LIMIT)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    started: list[Holder] = []
    yield started
    for holder in started:
        holder.kill()


@pytest.fixture
def sessions(postgres_url: str) -> Iterator[Any]:
    """Makes ClusterLocks of this process (each its own sessions: to PostgreSQL, another driver); closed after."""
    made: list[ClusterLocks] = []

    def make(home_id: str, wait: float = 30.0) -> ClusterLocks:
        made.append(ClusterLocks(postgres_url, f"ddl-log:{home_id}", wait_seconds=wait))
        return made[-1]

    yield make
    for locks in made:
        locks.close()


# ----------------------------------------------------------------- keys


def test_keys_read_as_the_objects_they_lock_and_map_to_distinct_bigints():
    assert object_name(object_key_of("db", "t")) == "db.t"
    assert object_name(database_key("db")) == "database db"
    assert object_name(function_key(TableName("db", "f"))) == "function db.f"
    keys = [object_key_of("db", "t"), database_key("db"), function_key(TableName("db", "t")), object_key_of("d", "bt")]
    numbers = [lock_number(key) for key in keys]
    assert len(set(numbers)) == len(keys) and all(-(2**63) <= n < 2**63 for n in numbers)
    assert lock_number("db") == lock_number("db")


def test_a_database_home_names_its_sessions_after_its_home_id(postgres_url):
    home = open_home(f"{postgres_url}?home=driver7")
    assert isinstance(home, DatabaseHome) and home.application_name == "ddl-log:driver7"
    locks = home.cluster_locks(5.0)
    locks.acquire(TABLE, True)
    assert advisory_locks_of(postgres_url, "ddl-log:driver7", metadata_only=True) == 1
    home.release()  # closes the metadata locks' sessions: nothing stays held
    assert advisory_locks_left(postgres_url, "ddl-log:driver7", metadata_only=True) == 0


def test_two_drivers_taking_two_locks_in_opposite_orders_end_one_wait_with_the_typed_lock_error(postgres_url):
    """PostgreSQL's deadlock check ends one of two waits that form a cycle after about a second, sooner than a longer
    lock wait: that driver gets MetadataLockTimeoutError naming the other (never an untyped StorageError, found by
    two Spark drivers' overlapping transactions on a metastore service), gives up its first lock, and the other
    driver then gets its second."""
    keys = ["x:table:db.a", "x:table:db.b"]
    meet = threading.Barrier(2)
    outcomes: dict[int, object] = {}

    def driver(index: int) -> None:
        home = open_home(f"{postgres_url}?home=cycle{index}")
        locks = home.cluster_locks(20.0)
        first, second = keys[index], keys[1 - index]
        locks.acquire(first, True)
        meet.wait(10)
        try:
            locks.acquire(second, True)
            outcomes[index] = "held"
            locks.release(second, True)
        except Exception as error:  # noqa: BLE001 - asserted below
            outcomes[index] = error
        locks.release(first, True)
        home.release()

    threads = [threading.Thread(target=driver, args=(index,)) for index in (0, 1)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    errors = [outcome for outcome in outcomes.values() if outcome != "held"]
    assert sorted(map(str, outcomes.values())).count("held") == 1 and len(errors) == 1, outcomes
    assert isinstance(errors[0], MetadataLockTimeoutError) and "ddl-log:cycle" in str(errors[0]), errors
    assert time.monotonic() - began < 15, "the cycle ended by the deadlock check, not by the 20 s wait"


# ----------------------------------------------------------------- two drivers


def test_a_second_driver_waits_for_the_first_and_then_gets_the_lock(postgres_url, holders):
    first = Holder(postgres_url, "driver1", "x:table:db.t")
    holders.append(first)
    assert first.next()["event"] == "held"
    second = Holder(postgres_url, "driver2", "x:table:db.t", hold="0")
    holders.append(second)
    assert second.nothing_within(1.5), "the second driver holds the lock while the first does"
    released_at = time.time()
    first.release()
    held = second.next()
    assert held["event"] == "held" and held["t"] >= released_at
    assert [second.next()["event"] for _ in range(2)] == ["leaving", "released"]
    assert second.finish() == 0 and first.finish() == 0


def test_shared_holds_of_two_drivers_are_compatible(postgres_url, holders, sessions):
    first = Holder(postgres_url, "driver1", "s:db:db")
    holders.append(first)
    assert first.next()["event"] == "held"
    mine = sessions("driver2", wait=0.5)
    mine.acquire(DATABASE, False)  # at once: no timeout
    mine.release(DATABASE, False)


@pytest.mark.parametrize(("held", "wanted_exclusive"), [("s:db:db", True), ("x:db:db", False), ("x:db:db", True)])
def test_an_exclusive_hold_conflicts_with_any_other_hold(postgres_url, holders, sessions, held, wanted_exclusive):
    first = Holder(postgres_url, "driver1", held)
    holders.append(first)
    assert first.next()["event"] == "held"
    with pytest.raises(MetadataLockTimeoutError):
        sessions("driver2", wait=0.3).acquire(DATABASE, wanted_exclusive)


def test_a_timeout_names_the_object_and_its_holder_and_leaves_nothing_held(postgres_url, holders, sessions):
    first = Holder(postgres_url, "driver1", "x:table:db.t")
    holders.append(first)
    assert first.next()["event"] == "held"
    waiter = sessions("driver2", wait=0.4)
    began = time.monotonic()
    with pytest.raises(MetadataLockTimeoutError) as raised:
        waiter.acquire(TABLE, True)
    assert 0.3 <= time.monotonic() - began < 5
    error = raised.value
    assert (error.object_name, error.holder) == ("db.t", "ddl-log:driver1") and error.waited_seconds >= 0.3
    assert str(error).startswith("timed out after 0.4 s waiting for the metadata lock on db.t held by ddl-log:driver1")
    assert advisory_locks_of(postgres_url, "ddl-log:driver2", metadata_only=True) == 0
    first.release()
    assert first.finish() == 0
    sessions("driver3", wait=0).acquire(TABLE, True)  # free: the timed-out wait took nothing


def test_a_sigkilled_holder_lets_the_waiter_in_within_a_second(postgres_url, holders, sessions):
    first = Holder(postgres_url, "driver1", "x:table:db.t", "s:db:db")
    holders.append(first)
    assert first.next()["event"] == "held"
    waiter = sessions("driver2", wait=30.0)
    got: list[float] = []
    thread = threading.Thread(target=lambda: (waiter.acquire(TABLE, True), got.append(time.monotonic())))
    thread.start()
    time.sleep(0.5)
    assert not got
    killed_at = time.monotonic()
    os.kill(first.process.pid, signal.SIGKILL)
    thread.join(timeout=10)
    assert got and got[0] - killed_at < 1.0


def test_two_drivers_taking_overlapping_keys_in_opposite_order_never_deadlock(postgres_url, holders):
    """MetadataLocks sorts the keys: without that, each would hold its first key and wait for the other's."""
    rounds = 25
    one = Holder(postgres_url, "driver1", "x:table:db.b", "x:table:db.a", "s:db:db", hold="0.005", repeat=rounds,
                 wait=20)
    two = Holder(postgres_url, "driver2", "x:table:db.a", "x:table:db.b", "s:db:db", hold="0.005", repeat=rounds,
                 wait=20)
    holders += [one, two]
    assert one.finish() == 0 and two.finish() == 0
    spans = []
    for holder in (one, two):
        events = [holder.next(1) for _ in range(3 * rounds)]
        assert [e["event"] for e in events] == ["held", "leaving", "released"] * rounds
        spans += [(events[i]["t"], events[i + 1]["t"]) for i in range(0, len(events), 3)]
    spans.sort()
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans)), "never both at once"


def test_a_thread_waiting_for_one_key_does_not_hold_up_another_thread_on_another_key(postgres_url, holders,
                                                                                     sessions):
    first = Holder(postgres_url, "driver1", "x:table:db.t")
    holders.append(first)
    assert first.next()["event"] == "held"
    mine = MetadataLocks(sessions("driver2", wait=30.0))
    got: list[str] = []

    def wait_for_t() -> None:
        with mine.hold([TABLE]):
            got.append("t")

    waiting = threading.Thread(target=wait_for_t)
    waiting.start()
    time.sleep(0.3)
    began = time.monotonic()
    with mine.hold([object_key_of("db", "u")], shared=[DATABASE]):
        pass
    assert time.monotonic() - began < 1.0 and not got
    first.release()
    waiting.join(timeout=10)
    assert got == ["t"]


# ----------------------------------------------------------------- the in-process layer on top


class CountingBackend:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, bool]] = []

    def acquire(self, key: str, exclusive: bool) -> None:
        self.calls.append(("acquire", key, exclusive))

    def release(self, key: str, exclusive: bool) -> None:
        self.calls.append(("release", key, exclusive))


def test_only_the_outermost_hold_of_a_key_takes_the_cluster_lock_in_sorted_order_released_in_reverse():
    backend = CountingBackend()
    locks = MetadataLocks(backend)
    with locks.hold(["db\x00b", "db\x00a"], shared=["db"]):
        with locks.hold(["db\x00a"], shared=["db\x00b"]):  # re-entries of this thread's exclusive holds
            pass
        assert len(backend.calls) == 3
    assert backend.calls == [("acquire", "db", False), ("acquire", "db\x00a", True), ("acquire", "db\x00b", True),
                             ("release", "db\x00b", True), ("release", "db\x00a", True), ("release", "db", False)]


def test_a_failed_cluster_lock_releases_what_the_statement_took_before_it():
    class Refusing(CountingBackend):
        def acquire(self, key: str, exclusive: bool) -> None:
            if key == "db\x00b":
                raise MetadataLockTimeoutError("db.b", "ddl-log:other", 0.1)
            super().acquire(key, exclusive)

    backend = Refusing()
    locks = MetadataLocks(backend)
    with pytest.raises(MetadataLockTimeoutError), locks.hold(["db\x00a", "db\x00b"]):
        pass
    assert backend.calls == [("acquire", "db\x00a", True), ("release", "db\x00a", True)]
    done = threading.Event()

    def other_thread() -> None:
        with locks.hold(["db\x00a", "db\x00c"]):
            done.set()

    threading.Thread(target=other_thread, daemon=True).start()
    assert done.wait(5), "the in-process locks were released too"


def test_a_file_home_keeps_in_process_locks_only(tmp_path):
    home = open_home(tmp_path / "home")
    try:
        assert metadata_locks(home).cluster is None
    finally:
        home.release()


def test_a_statement_on_a_database_home_times_out_on_another_drivers_lock_having_written_nothing(postgres_url,
                                                                                                  holders):
    first = Holder(postgres_url, "driver1", "x:table:default.t")
    holders.append(first)
    assert first.next()["event"] == "held"
    catalog = memory_catalog()
    ddl = AtomicDDL(home=f"{postgres_url}?home=driver2", catalog=catalog, lock_wait_seconds=0.3)
    try:
        with pytest.raises(MetadataLockTimeoutError, match=r"on default\.t held by ddl-log:driver1"):
            ddl.create_table("t", schema="a INT")
        assert not catalog.names.exists(TableName("default", "t")) and not ddl.log.chains() and not ddl.binlog_events()
        first.release()
        assert first.finish() == 0
        ddl.create_table("t", schema="a INT")
        assert catalog.names.exists(TableName("default", "t"))
        assert advisory_locks_of(postgres_url, "ddl-log:driver2", metadata_only=True) == 0, \
            "released when the statement ended"
    finally:
        ddl.close()


def test_recovery_replays_a_chain_under_the_cross_driver_locks_of_its_objects(postgres_url, holders):
    location = f"{postgres_url}?home=driver2"
    crashed = AtomicDDL(home=location, catalog=memory_catalog())
    position = crashed.log.new_chain(ChainKind.UNDO, "CREATE TABLE t")
    crashed.log.add_action(
        position,
        ActionType.CREATE_TABLE,
        name=TableName("default", "t"),
        payload=CreateTablePayload(),
    )
    crashed.abandon()
    first = Holder(postgres_url, "driver1", "x:table:default.t")
    holders.append(first)
    assert first.next()["event"] == "held"
    with pytest.raises(MetadataLockTimeoutError, match=r"on default\.t held by ddl-log:driver1"):
        AtomicDDL(home=location, catalog=memory_catalog(), lock_wait_seconds=0.3)  # its recovery waits, then fails
    first.release()
    assert first.finish() == 0
    reopened = AtomicDDL(home=location, catalog=memory_catalog())
    try:
        assert [o.outcome for o in reopened.last_recovery.outcomes] == ["undone"]
    finally:
        reopened.close()
