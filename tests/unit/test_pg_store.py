"""What only the PostgreSQL store and a database home have: a lost connection instead of a failed fsync, the home's
advisory lock, home ids, and the schema made on first use by drivers that start together."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.binlog import Binlog, list_segments
from chains.entries import ActionType, ChainKind
from chains.log import LOG_FILE, LOG_MAGIC, DDLLog
from ddl_log import AtomicDDL
from ddl_log.frontends.cli.commands import main
from storage import crashpoints
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.crashpoints import SimulatedCrash
from storage.errors import (
    HomeLockedError,
    HomeLockLostError,
    InvalidHomeError,
    LogWriteFailedError,
    NoLocalDirectoryError,
    StorageError,
)
from storage.records import pg_session
from storage.records.home import open_home
from storage.records.pg_home import DatabaseHome, split_home_url
from storage.records.pg_schema import ensure_schema
from storage.records.pg_store import PgRecordStore

MAGIC = b"TESTREC"


def terminate(url: str, connection: psycopg.Connection[tuple[object, ...]]) -> None:
    """Kill the server process of ``connection``'s session, as a network cut or a server-side kill would."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (connection.info.backend_pid,))


def store_of(url: str, home: str = "h") -> PgRecordStore:
    return PgRecordStore(url, home, "ddl_log")


def test_a_connection_killed_before_commit_poisons_the_stream_and_nothing_of_it_is_there(postgres_url):
    store = store_of(postgres_url)
    stream, _ = store.open("f", MAGIC)
    stream.append("durable")
    terminate(postgres_url, store.connection())
    with pytest.raises(LogWriteFailedError) as raised:
        stream.append("lost")
    assert not raised.value.fate_unknown and "rolled back" in str(raised.value)
    with pytest.raises(LogWriteFailedError, match="reopen"):
        stream.append("refused")
    stream, records = store.open("f", MAGIC)  # reopening reconnects
    assert [r for _, r in records] == ["durable"]
    stream.append("after reopen")
    assert [r for _, r in store.read("f", MAGIC)[0]] == ["durable", "after reopen"]
    store.close()


def test_a_connection_lost_during_commit_is_decided_once_it_can_no_longer_commit(postgres_url, monkeypatch):
    store = store_of(postgres_url)
    stream, _ = store.open("f", MAGIC)
    stream.append("durable")
    monkeypatch.setattr(pg_session, "BEFORE_SYNC", lambda: terminate(postgres_url, store.connection()))
    with pytest.raises(LogWriteFailedError) as raised:
        stream.append("maybe")
    assert not raised.value.fate_unknown and "the transaction was rolled back" in str(raised.value)
    monkeypatch.undo()
    _, records = store.open("f", MAGIC)
    assert [r for _, r in records] == ["durable"]  # COMMIT never reached the server
    store.close()


def test_a_stream_made_on_a_connection_lost_at_commit_fails_once_it_can_no_longer_commit(postgres_url):
    store = store_of(postgres_url)
    with pytest.raises(StorageError, match="lost during COMMIT, and the transaction was rolled back"):
        store.create("seg", MAGIC, ["start"], before_publish=lambda: terminate(postgres_url, store.connection()))
    assert not store.exists("seg")
    store.close()


@pytest.mark.parametrize("point", ["record.before_write", "record.torn_write", "record.before_sync"])
def test_a_crash_before_commit_leaves_nothing_and_after_commit_everything(postgres_url, point):
    store = store_of(postgres_url)
    stream, _ = store.open("f", MAGIC)
    stream.append("durable")
    with crashpoints.armed(point), pytest.raises(SimulatedCrash):
        stream.append_batch(["a", "b"])
    with crashpoints.armed("record.after_sync"), pytest.raises(SimulatedCrash):
        stream.append_batch(["c", "d"])
    assert [r for _, r in store.read("f", MAGIC)[0]] == ["durable", "c", "d"]
    store.close()


def test_a_stream_created_with_a_crash_before_publishing_is_not_there(postgres_url):
    store = store_of(postgres_url)
    with pytest.raises(SimulatedCrash):
        store.create("seg", MAGIC, ["start"], before_publish=_crash)
    assert not store.exists("seg")
    store.create("seg", MAGIC, ["start"])
    with pytest.raises(StorageError, match="already exists"):
        store.create("seg", MAGIC, ["other"])
    assert [r for _, r in store.read("seg", MAGIC)[0]] == ["start"]
    store.close()


def _crash() -> None:
    raise SimulatedCrash("test.before_publish")


def test_replace_keeps_the_previous_stream_and_a_ddl_log_write_failure_reloads_from_the_database(postgres_url):
    store = store_of(postgres_url)
    log = DDLLog(store)
    kept = log.new_chain(ChainKind.UNDO)
    log.add_action(kept, ActionType.CREATE_TABLE, name=TableName("default", "a"), payload=CreateTablePayload())
    terminate(postgres_url, store.connection())
    failed = log.new_chain(ChainKind.UNDO)
    with pytest.raises(LogWriteFailedError):
        log.add_action(failed, ActionType.CREATE_TABLE, name=TableName("default", "b"), payload=CreateTablePayload())
    assert [c.position for c in log.chains()] == [kept]
    log.close(kept)  # the log reopened its stream on a new connection: writes go on
    size = log.size
    log.compact()
    assert store.read("ddl_log-backup.log", LOG_MAGIC)[1] == size
    assert DDLLog(store).chains() == []
    store.close()


def test_two_drivers_creating_the_schema_at_once_both_succeed(postgres_url, monkeypatch):
    monkeypatch.setattr("storage.records.pg_schema._ready", set())
    errors: list[BaseException] = []

    def create() -> None:
        try:
            with psycopg.connect(postgres_url, autocommit=True) as connection:
                ensure_schema(connection)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


# ------------------------------------------------------------------ the home


def test_a_second_opener_of_a_home_is_refused_and_other_home_ids_are_independent(postgres_url):
    first = open_home(f"{postgres_url}?home=driver-a")
    with pytest.raises(HomeLockedError, match="driver-a"):
        open_home(f"{postgres_url}?home=driver-a")
    other = open_home(postgres_url, home_id="driver-b")
    first.release()
    again = open_home(f"{postgres_url}?home=driver-a")
    again.release()
    other.release()


def test_an_opener_waits_for_the_holder_to_let_go(postgres_url):
    holder = open_home(f"{postgres_url}?home=a")
    timer = threading.Timer(0.5, holder.release)
    timer.start()
    started = time.monotonic()
    waiter = open_home(f"{postgres_url}?home=a", wait_seconds=20)
    assert time.monotonic() - started >= 0.4
    waiter.release()
    timer.join()


@pytest.mark.parametrize(("location", "home_id", "reason"), [
    ("postgresql://h/db", None, "needs its home id"),
    ("postgresql://h/db?home=a", "b", "more than one home id"),
    ("postgresql://h/db?home=a&home=b", None, "more than one home id"),
    ("postgresql://h/db?home=a%20b", None, "must be"),
])
def test_a_database_home_needs_exactly_one_valid_home_id(location, home_id, reason):
    with pytest.raises(InvalidHomeError, match=reason):
        split_home_url(location, home_id)


def test_the_home_id_is_not_passed_to_libpq_and_a_password_never_reaches_a_message():
    url, home = split_home_url("postgresql://u:secret@h:5/db?sslmode=disable&home=x")
    assert (url, home) == ("postgresql://u:secret@h:5/db?sslmode=disable", "x")
    assert "secret" not in DatabaseHome(url, home).location


def test_a_directory_home_has_no_home_id(tmp_path):
    with pytest.raises(InvalidHomeError, match="directory"):
        open_home(str(tmp_path), home_id="a")


def test_a_lost_lock_connection_refuses_to_reconnect(postgres_url):
    home = open_home(f"{postgres_url}?home=a")
    assert isinstance(home, DatabaseHome) and home.lock_connection is not None
    log = DDLLog(home.log_store())
    terminate(postgres_url, home.lock_connection)
    terminate(postgres_url, home.stores[0].connection())
    position = log.new_chain(ChainKind.UNDO)
    with pytest.raises((LogWriteFailedError, HomeLockLostError)):
        log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "a"), payload=CreateTablePayload())
    with pytest.raises(HomeLockLostError, match="lock was lost"):
        home.log_store().open(LOG_FILE, LOG_MAGIC)
    home.release()


def test_atomic_ddl_on_a_database_home_needs_a_session_and_another_driver_reads_its_log(postgres_url):
    location = f"{postgres_url}?home=driver-a"
    ddl = AtomicDDL(home=location, catalog=memory_catalog())
    with pytest.raises(NoLocalDirectoryError, match="spark="):
        _ = ddl.spark
    position = ddl.log.new_chain(ChainKind.UNDO, "CREATE TABLE t")
    ddl.log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "t"), payload=CreateTablePayload())
    ddl.binlog_file.append("CREATE TABLE u", xid=7)
    ddl.abandon()  # the driver died; its log stays in the database
    assert main(["status", "--home", location]) == 0
    assert main(["binlog", "--home", location, "--json"]) == 0
    assert main(["dump", "--home", location]) == 0
    survivor = AtomicDDL(home=location, catalog=memory_catalog())
    assert [o.outcome for o in survivor.last_recovery.outcomes] == ["undone"]
    assert [e.statement for e in survivor.binlog_events()] == ["CREATE TABLE u"]
    survivor.close()
    assert main(["recover", "--home", location]) == 0


def test_the_cli_reports_a_damaged_row_as_an_error(postgres_url, capsys):
    location = f"{postgres_url}?home=a"
    ddl = AtomicDDL(home=location, catalog=memory_catalog())
    position = ddl.log.new_chain(ChainKind.UNDO, "s")
    ddl.log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "t"), payload=CreateTablePayload())
    ddl.close()
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute("UPDATE ddl_log_records SET data = set_byte(data, 10, get_byte(data, 10) # 1)")
    assert main(["status", "--home", location]) == 1
    assert "corrupt record" in capsys.readouterr().err


def test_defect9_analogue_a_binlog_whose_commit_failed_refuses_events_even_in_a_new_segment_until_reopened(
        postgres_url):
    store = PgRecordStore(postgres_url, "h", "binlog")
    binlog = Binlog(store)
    binlog.append("committed", xid=1)
    terminate(postgres_url, store.connection())
    with pytest.raises(LogWriteFailedError):
        binlog.append("failed", xid=2)
    binlog.segment_bytes = 0  # the next event would rotate into a fresh segment
    with pytest.raises(LogWriteFailedError, match="reopen"):
        binlog.append("refused", xid=3)
    with pytest.raises(LogWriteFailedError, match="reopen"):
        binlog.append_many([("refused too", 4, ())])
    binlog.close()
    assert list_segments(store) == [1]
    reopened = Binlog(store)
    assert reopened.append("after reopen", xid=5).seq == 2
    assert [(e.seq, e.statement) for e in reopened.events()] == [(1, "committed"), (2, "after reopen")]
    store.close()
