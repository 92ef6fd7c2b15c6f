"""Leases, fencing and takeover of database homes, without Spark: a home's lease is renewed while it is open and
stops at release; a process past its local deadline is fenced before any write or step; a takeover happens exactly
once with two contenders; a live driver recovers a dead driver's interrupted statement on the shared catalog, and
the dead driver, reopened, finds nothing to do and says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.entries import ActionType, ChainKind
from chains.log import DDLLog
from ddl_log import AtomicDDL
from ddl_log.frontends.cli import main
from storage import crashpoints
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.crashpoints import SimulatedCrash
from storage.errors import HomeFencedError
from storage.records.home import open_home
from storage.records.pg_home import DatabaseHome
from storage.records.pg_lease import other_homes, take

ROOT = Path(__file__).resolve().parents[2]
T = TableName("default", "t")
LEASE = 1.5


def row(url: str, home: str) -> tuple[object, ...]:
    with psycopg.connect(url, autocommit=True) as admin:
        found = admin.execute("SELECT epoch, lease_until, taken_over_by FROM ddl_log_homes WHERE home = %s",
                              (home,)).fetchone()
    assert found is not None
    return tuple(found)


def database_home(url: str, name: str, lease: float = LEASE) -> DatabaseHome:
    home = open_home(f"{url}?home={name}", lease_seconds=lease)
    assert isinstance(home, DatabaseHome)
    return home


def test_opening_a_home_bumps_its_epoch_and_the_heartbeat_renews_its_lease(postgres_url):
    home = database_home(postgres_url, "a")
    try:
        assert home.claimed is not None and home.claimed.epoch == 1
        _, first_until, _ = row(postgres_url, "a")
        time.sleep(LEASE * 1.2)
        _, later_until, _ = row(postgres_url, "a")
        assert later_until > first_until
        assert home.lease is not None and home.lease.renewals >= 2
        home.check_fence()  # renewed: still its own
    finally:
        home.release()
    again = database_home(postgres_url, "a")
    assert again.claimed is not None and again.claimed.epoch == 2
    again.release()


def test_every_connection_of_a_home_is_named_after_it(postgres_url):
    home = database_home(postgres_url, "named")
    store = home.log_store()
    store.connection()
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        names = [r[0] for r in admin.execute("SELECT application_name FROM pg_stat_activity "
                                             "WHERE application_name LIKE 'ddl-log:%'").fetchall()]
    home.release()
    assert home.application_name == "ddl-log:named"
    assert names.count("ddl-log:named") == 2  # its lock's connection and its store's


def test_the_heartbeat_stops_at_release(postgres_url):
    home = database_home(postgres_url, "a")
    lease = home.lease
    assert lease is not None and lease.beating
    home.release()
    assert not lease.beating
    _, until, _ = row(postgres_url, "a")
    time.sleep(LEASE / 2)
    assert row(postgres_url, "a")[1] == until


def test_a_home_past_its_local_deadline_is_fenced_before_any_write_or_step(postgres_url):
    home = database_home(postgres_url, "paused")
    lease = home.lease
    assert lease is not None
    log = DDLLog(home.log_store())
    lease.stop()  # as if the process was paused: no renewal gets through
    time.sleep(LEASE)
    with pytest.raises(HomeFencedError, match=r"lease of 1\.5 s ran out"):
        home.check_fence()
    with pytest.raises(HomeFencedError):
        log.new_chain(ChainKind.UNDO, "s")
        log.add_action(1, ActionType.CREATE_TABLE, name=T, payload=CreateTablePayload())
    with pytest.raises(HomeFencedError):
        crashpoints.hit("replace.exchange.before")  # the step guard: before every catalog call
    home.release()
    crashpoints.hit("replace.exchange.before")  # released: no guard left


def test_a_renewal_that_finds_another_epoch_fences_the_home(postgres_url):
    home = database_home(postgres_url, "a", lease=30)
    assert home.claimed is not None and home.lease is not None
    with psycopg.connect(postgres_url, autocommit=True) as other:
        assert take(other, "a", home.claimed.epoch, "thief") is not None
    assert not home.lease.renew()
    with pytest.raises(HomeFencedError, match="taken over"):
        home.check_fence()
    home.release()


def test_a_takeover_cas_succeeds_exactly_once_with_two_contenders(postgres_url):
    home = database_home(postgres_url, "dead", lease=30)
    assert home.claimed is not None
    epoch = home.claimed.epoch
    home.release()
    barrier = threading.Barrier(2)
    results: list[object] = []

    def contend(name: str) -> None:
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            barrier.wait()
            results.append(take(connection, "dead", epoch, name))

    threads = [threading.Thread(target=contend, args=(name,)) for name in ("b", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(result is not None for result in results) == 1
    assert row(postgres_url, "dead")[0] == epoch + 1


def replace_t(ddl: AtomicDDL) -> object:
    return ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(10,)]))


def interrupted_replace(url: str, catalog: Catalog, name: str, point: str = "replace.exchange.between",
                        statement: Callable[[AtomicDDL], object] = replace_t) -> None:
    """A driver of home ``name`` dies (in-process) at ``point`` of ``statement`` (CREATE OR REPLACE TABLE t)."""
    ddl = AtomicDDL(home=f"{url}?home={name}", catalog=catalog, grace_seconds=0, lease_seconds=LEASE,
                    takeover_interval=3600)
    with crashpoints.armed(point), pytest.raises(SimulatedCrash):
        statement(ddl)
    ddl.abandon()
    assert ddl.takeover is not None and ddl.takeover.last is None


def test_a_live_driver_takes_over_a_dead_drivers_interrupted_statement_and_the_dead_one_finds_nothing(
        postgres_url, capsys):
    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), [(1,), (2,)])
    interrupted_replace(postgres_url, catalog, "dead")
    assert set(catalog.backend.tables) != {T}  # a work table is left
    live = AtomicDDL(home=f"{postgres_url}?home=live", catalog=catalog, lease_seconds=LEASE, takeover_interval=3600)
    began = time.monotonic()
    report = live.take_over_dead()
    assert time.monotonic() - began < LEASE + 5
    [dead] = report.homes
    assert (dead.home, dead.outcome) == ("dead", "recovered")
    assert dead.recovery is not None and [o.outcome for o in dead.recovery.outcomes] == ["undone"]
    assert set(catalog.backend.tables) == {T} and catalog.backend.tables[T].rows == [(1,), (2,)]
    again = live.take_over_dead()
    assert again.homes == (), "a recovered home is quiet: takers no longer read its log"
    live.close()
    assert row(postgres_url, "dead")[2] == "ddl-log:live"

    reopened = AtomicDDL(home=f"{postgres_url}?home=dead", catalog=catalog, lease_seconds=LEASE)
    note = reopened.last_recovery.note
    assert note is not None and note.startswith("taken over by ddl-log:live at ")
    assert note.endswith(": nothing left to do") and reopened.last_recovery.nothing_to_do
    reopened.close()
    assert main(["recover", "--home", f"{postgres_url}?home=dead"]) == 0
    assert "nothing to recover" in capsys.readouterr().out  # the note was for the first open only


def test_recover_all_takes_over_every_dead_home(postgres_url, capsys):
    catalog = memory_catalog()  # RENAME, committed (binlogged) but not closed: no catalog call is left
    catalog.backend.add_user_table(T, ("a",), [(1,)])
    interrupted_replace(postgres_url, catalog, "dead", "commit.after_binlog",
                        lambda ddl: ddl.rename_tables([("t", "t2")]))
    open_home(f"{postgres_url}?home=idle", lease_seconds=30).release()
    assert main(["recover", "--all", "--home", f"{postgres_url}?home=operator"]) == 0
    printed = capsys.readouterr().out
    assert "takeover: dead: recovered" in printed and "recovery: committed" in printed
    assert "takeover: idle: nothing to do" in printed


HOLDER = textwrap.dedent(
    """
    import sys, time
    from storage.records.home import open_home
    home = open_home(sys.argv[1], lease_seconds=float(sys.argv[2]))
    log_store = home.log_store()
    from actions.kinds.create_table import CreateTablePayload
    from chains.entries import ActionType, ChainKind
    from chains.log import DDLLog
    from storage.catalogs.names import TableName
    log = DDLLog(log_store)
    position = log.new_chain(ChainKind.UNDO, "CREATE TABLE u")
    log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "u"), payload=CreateTablePayload())
    print("ready", flush=True)
    time.sleep(120)
    """
)


def test_a_paused_holder_past_its_lease_is_taken_over_and_its_sessions_are_ended(postgres_url):
    location = f"{postgres_url}?home=stopped"
    process = subprocess.Popen([sys.executable, "-c", HOLDER, location, str(LEASE)],
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        os.kill(process.pid, signal.SIGSTOP)
        catalog = memory_catalog()
        catalog.backend.add_user_table(TableName("default", "u"), ("a",), [(1,)])
        live = AtomicDDL(home=f"{postgres_url}?home=live", catalog=catalog, lease_seconds=30, takeover_interval=3600)
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            [other] = other_homes(admin, "live")
            assert other.held and not other.expired
            assert [h.outcome for h in live.take_over_dead().homes] == ["alive"]
            time.sleep(LEASE + 0.2)
            [other] = other_homes(admin, "live")
            assert other.held and other.expired
        [taken] = live.take_over_dead().homes
        assert taken.outcome == "recovered" and "session(s) ended" in taken.detail
        assert taken.recovery is not None and [o.outcome for o in taken.recovery.outcomes] == ["undone"]
        live.close()
    finally:
        os.kill(process.pid, signal.SIGKILL)
        os.kill(process.pid, signal.SIGCONT)
        process.wait(timeout=30)


def test_a_home_closed_cleanly_is_skipped_by_takers_until_its_first_scheduled_deletion_is_due(postgres_url):
    """Takers read no log of a home its driver closed with nothing to run (jobs come and go: a database collects
    many such homes); a scheduled deletion brings the home back to them when it falls due; a crash (no close) never
    marks it."""
    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), [(1,)])
    with AtomicDDL(home=f"{postgres_url}?home=idle", catalog=catalog, lease_seconds=LEASE, takeover_interval=3600):
        pass
    with AtomicDDL(home=f"{postgres_url}?home=grace", catalog=catalog, lease_seconds=LEASE, takeover_interval=3600,
                   grace_seconds=2.0) as ddl:
        ddl.create_or_replace_table("t", schema="b INT")  # the old version's files wait 2 s for readers
        assert ddl.pending_deletions()
    interrupted_replace(postgres_url, catalog, "crashed")
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        candidates = {other.home for other in other_homes(connection, "taker")}
        assert candidates == {"crashed"}, "closed homes are skipped, the crashed one is not"
        assert connection.execute("SELECT * FROM ddl_log_homes").fetchall(), "every value loads in Python"
        time.sleep(2.5)
        candidates = {other.home for other in other_homes(connection, "taker")}
        assert candidates == {"crashed", "grace"}, "the deletion fell due: a taker runs it"


def test_a_taker_with_a_stale_view_never_ends_the_sessions_of_a_driver_that_has_just_reopened_the_home(postgres_url):
    """The taker saw home x dead at epoch e; before it acts, a new driver opens x (epoch e + 1, fresh lease): the
    taker's session ending, checked against the epoch and the lease in the same statement, leaves it alone."""
    from storage.records.pg_lease import terminate_backends

    first = database_home(postgres_url, "x")
    seen = first.claimed.epoch if first.claimed is not None else -1
    first.release()
    reopened = database_home(postgres_url, "x")
    try:
        with psycopg.connect(postgres_url, autocommit=True) as taker:
            assert terminate_backends(taker, "x", seen) == 0
        reopened.check_held()
        reopened.check_fence()
    finally:
        reopened.release()


def test_defect_a_statement_never_works_on_a_dead_drivers_half_changed_table_before_its_takeover(postgres_url):
    """Found by the cluster soak (seed 4107803963): a driver was killed inside TRUNCATE t2; its metadata locks ended
    with its session, another driver's statement on t2 ran on the half-swapped table, and the takeover could then
    not undo the swap ("another table has that name now"): chains abandoned, a TMP table and a directory left. A
    statement on such an object is now refused (nothing done) until takeover has recovered it; others run."""
    from ddl_log.errors import ObjectInRecoveryError

    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), [(1,), (2,)])
    catalog.backend.add_user_table(TableName("default", "u"), ("a",), [(3,)])
    interrupted_replace(postgres_url, catalog, "dead")
    live = AtomicDDL(home=f"{postgres_url}?home=live", catalog=catalog, lease_seconds=LEASE, takeover_interval=3600)
    try:
        before = dict(catalog.backend.tables)
        with pytest.raises(ObjectInRecoveryError) as refused:
            live.truncate_table("t")
        assert (refused.value.object_name, refused.value.driver) == ("default.t", "ddl-log:dead")
        assert catalog.backend.tables == before and not live.log.chains()
        live.truncate_table("u")  # another object: no wait
        deadline = time.monotonic() + LEASE + 15  # the refusal woke the takeover thread (its interval is an hour)
        while True:
            try:
                live.truncate_table("t")
                break
            except ObjectInRecoveryError:
                assert time.monotonic() < deadline, "takeover recovered the dead driver's statement"
                time.sleep(0.2)
        assert catalog.backend.tables[T].rows == []
        # The taker marks the home quiet just after its recovery, which is what let the statement run: wait for it.
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            deadline = time.monotonic() + 15
            while "dead" in {other.home for other in other_homes(connection, "live")}:
                assert time.monotonic() < deadline, "recovered: quiet"
                time.sleep(0.1)
    finally:
        live.close()
