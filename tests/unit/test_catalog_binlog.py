"""The catalog's one binlog (``ddl_binlog`` in the database every database home lives in): every driver's committed
statements in one gap-free commit order, each naming its driver, with XIDs unique across drivers; recovery of any
home decides "did it commit?" from it, whichever driver's connection wrote the event."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.binlog import Binlog, BinlogEvent
from chains.catalog_binlog import CatalogBinlog
from chains.entries import ActionType, BinlogPosition, ChainKind
from chains.log import DDLLog
from ddl_log import AtomicDDL
from ddl_log.frontends.cli.commands import main
from storage import crashpoints
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.crashpoints import SimulatedCrash
from storage.errors import CorruptLogError, LogWriteFailedError, StorageError
from storage.records import pg_session
from storage.records.file_store import FileRecordStore
from storage.records.pg_home import BINLOG_SPACE, LOG_SPACE, DatabaseHome
from storage.records.pg_store import PgRecordStore
from tests import crashkit

ROOT = Path(__file__).resolve().parents[2]
APPENDS = 40


def open_binlog(url: str, home_id: str) -> tuple[DatabaseHome, CatalogBinlog]:
    home = DatabaseHome.open(f"{url}?home={home_id}")
    return home, CatalogBinlog(home.catalog_binlog())


def rows(url: str) -> list[tuple[int, int | None, str]]:
    with psycopg.connect(url, autocommit=True) as admin:
        return [(int(s), x, str(h)) for s, x, h in admin.execute("SELECT seq, xid, home FROM ddl_binlog ORDER BY seq")]


def admin_execute(url: str, statement: str, params: tuple[object, ...] = ()) -> None:
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(statement, params)


def assert_one_history(url: str, events: list[BinlogEvent], drivers: set[str], per_driver: int) -> None:
    """One gap-free seq from 1, unique XIDs, every event naming the driver that wrote it, each driver's in order."""
    assert [e.seq for e in events] == list(range(1, len(drivers) * per_driver + 1))
    assert len({e.xid for e in events}) == len(events)
    assert {e.driver for e in events} == drivers
    for event in events:
        assert event.statement.split()[0] == event.driver
    for driver in drivers:
        assert [int(e.statement.split()[1]) for e in events if e.driver == driver] == list(range(per_driver))
    assert [(r[0], r[1], r[2]) for r in rows(url)] == [(e.seq, e.xid, e.driver) for e in events]


def test_two_homes_committing_from_threads_share_one_gap_free_commit_order_unique_xids_and_name_their_driver(
        postgres_url):
    opened = [open_binlog(postgres_url, name) for name in ("driver-a", "driver-b")]
    seen_gaps: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        """Every snapshot a reader takes is a gap-free prefix: a commit is never visible before an earlier seq."""
        _, watcher = open_binlog(postgres_url, "watcher")
        while not done.is_set():
            try:
                list(watcher.events())
            except CorruptLogError as exc:  # a missing seq
                seen_gaps.append(exc)
        watcher.close()

    def commit(binlog: CatalogBinlog) -> None:
        for n in range(APPENDS):
            binlog.append(f"{binlog.driver} {n}", xid=binlog.new_xid())

    watching = threading.Thread(target=reader)
    watching.start()
    threads = [threading.Thread(target=commit, args=(binlog,)) for _, binlog in opened]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    watching.join()
    assert seen_gaps == []
    assert_one_history(postgres_url, list(opened[0][1].events()), {"driver-a", "driver-b"}, APPENDS)
    for home, binlog in opened:
        binlog.close()
        home.release()


PROCESS_SCRIPT = """
import sys
from chains.catalog_binlog import CatalogBinlog
from storage.records.pg_home import DatabaseHome
home = DatabaseHome.open(sys.argv[1])
binlog = CatalogBinlog(home.catalog_binlog())
for n in range(int(sys.argv[2])):
    binlog.append(f"{home.home_id} {n}", xid=binlog.new_xid())
binlog.close()
home.release()
"""


def test_two_driver_processes_committing_at_once_share_one_gap_free_commit_order_and_unique_xids(postgres_url):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    drivers = [subprocess.Popen([sys.executable, "-c", PROCESS_SCRIPT, f"{postgres_url}?home=proc-{n}", str(APPENDS)],
                                cwd=ROOT, env=env) for n in (1, 2)]
    assert [driver.wait(timeout=120) for driver in drivers] == [0, 0]
    _, binlog = open_binlog(postgres_url, "inspector")
    assert_one_history(postgres_url, list(binlog.events()), {"proc-1", "proc-2"}, APPENDS)
    assert binlog.last_seq == 2 * APPENDS
    binlog.close()


def test_a_group_commit_is_one_transaction_with_consecutive_seqs_beside_another_driver(postgres_url):
    (home_a, a), (home_b, b) = open_binlog(postgres_url, "a"), open_binlog(postgres_url, "b")
    stop = threading.Event()

    def other_driver() -> None:
        n = 0
        while not stop.is_set():
            b.append(f"b {n}", xid=b.new_xid())
            n += 1

    thread = threading.Thread(target=other_driver)
    thread.start()
    groups = []
    for n in range(10):
        syncs = a.syncs
        groups.append(a.append_many([(f"a {n}.{k}", a.new_xid(), ("default.t",)) for k in range(3)]))
        assert a.syncs == syncs + 1
    stop.set()
    thread.join()
    for group in groups:
        assert [e.seq for e in group] == list(range(group[0].seq, group[0].seq + 3))
        assert {e.driver for e in group} == {"a"}
    events = list(a.events())
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    for binlog, home in ((a, home_a), (b, home_b)):
        binlog.close()
        home.release()


@pytest.mark.parametrize(("damage", "reason"), [
    ("UPDATE ddl_binlog SET data = set_byte(data, 12, get_byte(data, 12) # 4) WHERE seq = 2", "checksum"),
    ("DELETE FROM ddl_binlog WHERE seq = 2", "event 2 is missing"),
    ("UPDATE ddl_binlog SET xid = xid + 1000 WHERE seq = 2", "does not match"),
])
def test_a_damaged_or_missing_event_is_reported_as_corruption_never_skipped(postgres_url, damage, reason):
    home, binlog = open_binlog(postgres_url, "a")
    for n in range(3):
        binlog.append(f"s {n}", xid=binlog.new_xid())
    admin_execute(postgres_url, damage)
    with pytest.raises(CorruptLogError, match=reason):
        list(binlog.events())
    with pytest.raises(CorruptLogError):
        binlog.xids_since(BinlogPosition(0, 1))
    assert main(["binlog", "--home", f"{postgres_url}?home=a"]) == 1
    binlog.close()
    home.release()


@pytest.mark.parametrize("point", ["record.before_write", "record.torn_write", "record.before_sync"])
def test_a_crash_before_the_commit_leaves_no_event_and_after_it_the_whole_group(postgres_url, point):
    home, binlog = open_binlog(postgres_url, "a")
    binlog.append("durable", xid=binlog.new_xid())
    with crashpoints.armed(point), pytest.raises(SimulatedCrash):
        binlog.append_many([("lost 1", binlog.new_xid(), ()), ("lost 2", binlog.new_xid(), ())])
    with crashpoints.armed("record.after_sync"), pytest.raises(SimulatedCrash):
        binlog.append_many([("kept 1", binlog.new_xid(), ()), ("kept 2", binlog.new_xid(), ())])
    binlog.close()
    home.release()
    home, reopened = open_binlog(postgres_url, "a")
    assert [(e.seq, e.statement) for e in reopened.events()] == [(1, "durable"), (2, "kept 1"), (3, "kept 2")]
    reopened.close()
    home.release()


def test_a_connection_lost_during_commit_is_decided_once_it_cannot_commit_and_refuses_events_until_reopened(
        postgres_url, monkeypatch):
    home, binlog = open_binlog(postgres_url, "a")
    binlog.append("durable", xid=binlog.new_xid())

    def kill_session() -> None:
        admin_execute(postgres_url, "SELECT pg_terminate_backend(%s)", (binlog.table.connection().info.backend_pid,))

    monkeypatch.setattr(pg_session, "BEFORE_SYNC", kill_session)
    with pytest.raises(LogWriteFailedError) as raised:
        binlog.append("maybe", xid=binlog.new_xid())
    assert not raised.value.fate_unknown and "the transaction was rolled back" in str(raised.value)
    monkeypatch.undo()
    with pytest.raises(LogWriteFailedError, match="reopen"):
        binlog.append("refused", xid=binlog.new_xid())
    assert [e.statement for e in binlog.events()] == ["durable"]  # COMMIT never reached the server
    reopened = CatalogBinlog(home.catalog_binlog())
    assert reopened.append("after reopen", xid=reopened.new_xid()).seq == 2
    binlog.close()
    reopened.close()
    home.release()


def replace_t(ddl: AtomicDDL) -> object:
    return ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(1,)]))


def test_recovery_of_home_a_is_decided_by_its_xid_in_an_event_another_driver_wrote(postgres_url):
    location = f"{postgres_url}?home=a"
    catalog = memory_catalog()
    home_b, b = open_binlog(postgres_url, "b")
    b.append("CREATE TABLE other", xid=b.new_xid())

    def open_a() -> AtomicDDL:
        return AtomicDDL(home=location, catalog=catalog, compact_bytes=0, grace_seconds=0)

    assert crashkit.crash_at(open_a, replace_t, "commit.before_binlog", 1)
    log_store = PgRecordStore(postgres_url, "a", LOG_SPACE)
    [chain] = [chain for chain in DDLLog(log_store).active_chains() if chain.master is None]  # C, not its links
    log_store.close()
    assert chain.xid is not None and chain.xid > 1  # from the catalog's sequence, after b's XID
    assert chain.binlog_pos is not None and chain.binlog_pos.segment == 0
    b.append(chain.statement, xid=chain.xid, objects=("default.t",))  # as a driver taking home a over would
    ddl = open_a()
    first = ddl.last_recovery.outcomes[0]
    assert (first.outcome, first.detail) == ("committed", f"xid {chain.xid} is in the binlog")
    assert ddl.active_chains() == [] and catalog.backend.tables[TableName("default", "t")].rows == [(1,)]
    assert [(e.driver, e.xid) for e in ddl.binlog_events()][-1] == ("b", chain.xid)
    ddl.close()
    b.close()
    home_b.release()


def test_an_event_of_another_xid_written_by_another_driver_never_commits_home_a_s_chain(postgres_url):
    location = f"{postgres_url}?home=a"
    catalog = memory_catalog()

    def open_a() -> AtomicDDL:
        return AtomicDDL(home=location, catalog=catalog, compact_bytes=0, grace_seconds=0)

    assert crashkit.crash_at(open_a, replace_t, "commit.before_binlog", 1)
    home_b, b = open_binlog(postgres_url, "b")
    b.append("CREATE TABLE other", xid=b.new_xid())  # a later XID of the same sequence: never a's
    ddl = open_a()
    assert "committed" not in {o.outcome for o in ddl.last_recovery.outcomes}
    assert TableName("default", "t") not in catalog.backend.tables
    ddl.close()
    b.close()
    home_b.release()


def test_statements_of_two_homes_commit_to_the_catalog_binlog_and_the_cli_shows_each_driver(postgres_url, capsys):
    catalog = memory_catalog()
    for name in ("a", "b"):
        with AtomicDDL(home=f"{postgres_url}?home={name}", catalog=catalog) as ddl:
            ddl.create_table(f"t_{name}", schema="x INT")
    with AtomicDDL(home=f"{postgres_url}?home=a", catalog=catalog) as ddl:
        events = ddl.binlog_events()
    assert [(e.seq, e.driver) for e in events] == [(1, "a"), (2, "b")]
    assert all(e.xid is not None for e in events) and events[0].xid != events[1].xid
    capsys.readouterr()
    assert main(["binlog", "--home", f"{postgres_url}?home=b"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ["driver a" in lines[0], "driver b" in lines[1]] == [True, True] and len(lines) == 2
    assert "t_a" in lines[0] and "t_b" in lines[1]


def test_a_chain_noted_in_the_home_s_own_binlog_before_the_catalog_binlog_is_decided_from_it(postgres_url):
    """A database home written before the catalog binlog kept its XIDs in its own segments: a chain noted there is
    still decided there (read-only), even beside a chain noted in the catalog's binlog (each read from its own)."""
    log_store = PgRecordStore(postgres_url, "old", LOG_SPACE)
    own_store = PgRecordStore(postgres_url, "old", BINLOG_SPACE)
    log, own = DDLLog(log_store), Binlog(own_store)
    position = log.new_chain(ChainKind.UNDO, "CREATE TABLE gone")
    log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "gone"), payload=CreateTablePayload())
    xid = log.allocate_id()
    log.set_xid(position, xid, own.position())
    own.append("CREATE TABLE gone", xid=xid)
    later = log.new_chain(ChainKind.UNDO, "CREATE TABLE later")  # noted in the catalog's binlog, never committed
    log.add_action(later, ActionType.CREATE_TABLE, name=TableName("default", "later"), payload=CreateTablePayload())
    log.set_xid(later, xid + 1000, BinlogPosition(0, 1))
    for store in (log_store, own_store):
        store.close()
    ddl = AtomicDDL(home=f"{postgres_url}?home=old", catalog=memory_catalog())
    assert {(o.position, o.outcome) for o in ddl.last_recovery.outcomes} == {(position, "committed"),
                                                                             (later, "undone")}
    ddl.close()


def test_a_home_s_own_binlog_still_takes_xids_from_the_log_and_names_no_driver(tmp_path):
    with AtomicDDL(home=tmp_path / "home", catalog=memory_catalog()) as ddl:
        ddl.create_table("t", schema="x INT")
        [event] = ddl.binlog_events()
        assert event.driver is None and "driver" not in event.to_wire()
        assert ddl.binlog_file.new_xid() == ddl.log.allocate_id() - 1
    bare = Binlog(FileRecordStore(str(tmp_path / "bare")))  # as older callers open it: no XID source given
    with pytest.raises(StorageError, match="XID source"):
        bare.new_xid()
    bare.close()
