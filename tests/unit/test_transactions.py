"""DDL transactions (issue 39) on the in-memory catalog: several statements, one commit point.

Every crash point a transaction of 1, 2, 3 and 5 statements of different kinds passes is swept: after recovery the
catalog is exactly as before the transaction (nothing binlogged) or exactly as after it (its statements binlogged
once, as one group: one XID, consecutive seqs, each event marked with its place), never a mix; the commit point
splits the sweep; a second recovery changes nothing. Then the rules: a failing statement, an error in the block,
ROLLBACK, a refused statement kind and a second change of one object each undo the whole transaction; COMMIT
without START, nested START and a transaction left open are refused or rolled back, nothing half-applied."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL, CatalogError, InvalidNameError, NoSuchObjectError, WrongObjectKindError
from ddl_log.errors import (
    NotTransactionalError,
    TransactionAbortedError,
    TransactionConflictError,
    TransactionStateError,
    UnpublishedReadError,
)
from storage import crashpoints
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.crashpoints import SimulatedCrash
from storage.errors import MetadataLockTimeoutError
from tests import crashkit
from tests.unit.test_statement_sweeps import NEW_ROWS, World, catalog_state

Body = Callable[[AtomicDDL], Any]

BODIES: dict[str, list[Body]] = {
    "replace": [lambda d: d.create_or_replace_table("a", df=NEW_ROWS)],
    "replace+drop": [lambda d: d.create_or_replace_table("a", df=NEW_ROWS), lambda d: d.drop_tables(["b"])],
    "truncate+rename+view": [lambda d: d.truncate_table("a"), lambda d: d.rename_tables([("b", "c")]),
                             lambda d: d.create_view("v2", as_select="SELECT 2")],
    "swap": [lambda d: d.swap_tables("a", "b")],
    "swap+truncate": [lambda d: d.swap_tables("a", "b"), lambda d: d.truncate_table("q")],
    "five kinds": [lambda d: d.create_or_replace_table("a", df=NEW_ROWS), lambda d: d.truncate_table("q"),
                   lambda d: d.rename_tables([("b", "c")]), lambda d: d.create_view("v2", as_select="SELECT 2"),
                   lambda d: d.drop_views(["v1"])],
    "ctas+overwrite+drop_view": [lambda d: d.create_table("c", df=NEW_ROWS),
                                 lambda d: d.insert_overwrite("q", df=NEW_ROWS.__class__("", ("v", "k"), [(5, "1")])),
                                 lambda d: d.drop_views(["v1"])],
}


def in_transaction(body: list[Body]) -> Body:
    def run(ddl: AtomicDDL) -> None:
        with ddl.transaction():
            for statement in body:
                statement(ddl)
    return run


def one_by_one(body: list[Body]) -> Body:
    def run(ddl: AtomicDDL) -> None:
        for statement in body:
            statement(ddl)
    return run


def states(tmp_path, body: list[Body], binlog: bool) -> tuple[Any, Any]:
    world = World(str(tmp_path / "expected"), binlog)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        one_by_one(body)(ddl)
    return before, catalog_state(world.catalog)


def check_group(events: list[Any], count: int) -> None:
    """The transaction's events: ``count`` of them, one XID, consecutive seqs, each with its place in the group."""
    assert len(events) == count
    assert len({event.xid for event in events}) == 1 and events[0].xid is not None
    assert [event.seq for event in events] == list(range(events[0].seq, events[0].seq + count))
    assert [event.txn for event in events] == [(index, count) for index in range(1, count + 1)]


@pytest.mark.parametrize("binlog", [True, False], ids=["binlog", "no-binlog"])
@pytest.mark.parametrize("name", sorted(BODIES))
def test_every_crash_point_of_a_transaction_recovers_to_before_or_after(tmp_path, name, binlog):
    body = BODIES[name]
    before, after = states(tmp_path, body, binlog)
    assert before != after
    statement = in_transaction(body)
    points = crashkit.trace(World(str(tmp_path / "trace"), binlog).open, statement)
    names = {point for point, _ in points}
    assert {"txn.commit.before_xid", "txn.commit.after_close"} <= names
    def check_events(outcome: str, events: list[Any]) -> None:
        if binlog and outcome == "after":
            check_group(events, len(body))
        else:
            assert events == [], (outcome, events)

    outcomes = crashkit.sweep_to_before_or_after(
        points, lambda index: World(str(tmp_path / f"w{index}"), binlog), statement, before, after,
        lambda world: catalog_state(world.catalog), check_events)
    kinds = [outcome for _, outcome in outcomes]
    points_only = [point for point, _ in outcomes]
    last_before = points_only.index("txn.commit.before_binlog" if binlog else "txn.commit.before_xid")
    first_after = points_only.index("txn.commit.after_binlog" if binlog else "txn.commit.after_close")
    assert set(kinds[:last_before + 1]) == {"before"} and set(kinds[first_after:]) == {"after"}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_committed_transaction_equals_its_statements_one_by_one_and_binlogs_one_group(tmp_path, name):
    body = BODIES[name]
    _, after = states(tmp_path, body, True)
    world = World(str(tmp_path / "txn"), True)
    with world.open() as ddl:
        in_transaction(body)(ddl)
        events = ddl.binlog_events()
        assert ddl.active_chains() == []
    assert catalog_state(world.catalog) == after
    check_group(events, len(body))


def test_sql_scripts_commit_and_roll_back_as_one(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        results = ddl.sql("START TRANSACTION; TRUNCATE TABLE a; ROLLBACK")
        assert [r.kind for r in results] == ["transaction", "ddl", "transaction"]
        assert catalog_state(world.catalog) == before and ddl.binlog_events() == []
        results = ddl.sql("BEGIN TRANSACTION; TRUNCATE TABLE a; DROP TABLE b; RENAME TABLE p TO p2; COMMIT")
        assert results[-1].kind == "transaction"
        assert [event.seq for event in results[-1].result.events] == [1, 2, 3]
        check_group(ddl.binlog_events(), 3)
    tables = catalog_state(world.catalog)[0]
    assert "default.b" not in tables and "default.p2" in tables and tables["default.a"][1] == ()


@pytest.mark.parametrize("script, error", [
    ("COMMIT", TransactionStateError),
    ("TRUNCATE TABLE a; ROLLBACK", TransactionStateError),
    ("START TRANSACTION; START TRANSACTION; COMMIT; COMMIT", TransactionStateError),
    ("START TRANSACTION; TRUNCATE TABLE a", TransactionStateError),
    ("START TRANSACTION; TRUNCATE TABLE a; SELECT 1; COMMIT", NotTransactionalError),
    ("START TRANSACTION; TRUNCATE TABLE a; CREATE DATABASE d9; COMMIT", NotTransactionalError),
    ("START TRANSACTION; TRUNCATE TABLE a; DROP TABLE b; TRUNCATE TABLE nope; COMMIT", NoSuchObjectError),
    ("START TRANSACTION; TRUNCATE TABLE a; INSERT OVERWRITE a SELECT 1; COMMIT", TransactionConflictError),
    ("START TRANSACTION; DROP TABLE b; RENAME TABLE a TO b; COMMIT", TransactionConflictError),
], ids=["commit-alone", "rollback-without-start", "nested", "left-open", "query-inside", "create-database-inside",
        "failing-statement", "same-table-twice", "drop-then-rename-onto"])
def test_bad_scripts_leave_nothing(tmp_path, script, error):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        with pytest.raises(error):
            ddl.sql(script)
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
        assert ddl.transactions.current is None
    assert catalog_state(world.catalog) == before


def test_a_failing_statement_rolls_back_the_block_and_refuses_the_rest(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        with pytest.raises(TransactionAbortedError), ddl.transaction():  # the block went on: its COMMIT refused
            ddl.truncate_table("a")
            ddl.drop_tables(["b"])
            with pytest.raises(NoSuchObjectError):
                ddl.create_table("a2", like="missing")  # its check fails before its machine: same rule
            with pytest.raises(TransactionAbortedError):
                ddl.truncate_table("q")
        assert ddl.binlog_events() == [] and ddl.transactions.current is None
        ddl.truncate_table("a")  # the engine is usable again, statement by statement
        assert len(ddl.binlog_events()) == 1 and ddl.binlog_events()[0].txn is None
    assert catalog_state(world.catalog) != before


def test_an_error_in_the_block_and_a_statement_of_the_wrong_kind_undo_everything(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        with pytest.raises(RuntimeError), ddl.transaction():
            ddl.create_or_replace_table("a", df=NEW_ROWS)
            ddl.drop_views(["v1"])
            raise RuntimeError("the caller's own error")
        with pytest.raises(NotTransactionalError, match="CREATE DATABASE"), ddl.transaction():
            ddl.truncate_table("a")
            ddl.create_database("d9")
        with pytest.raises(TransactionStateError, match="do not nest"), ddl.transaction():
            ddl.truncate_table("a")
            with ddl.transaction():
                pass
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert catalog_state(world.catalog) == before


def test_a_statement_reading_what_the_transaction_changed_is_refused_and_the_transaction_rolled_back(tmp_path):
    """Isolation: the transaction's changes are built aside and published at COMMIT, so a statement that reads an
    object an earlier statement changed (a LIKE source, a query's table, a table behind a view) would read it as
    before: refused with UnpublishedReadError, the whole transaction rolled back."""
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        with pytest.raises(UnpublishedReadError, match=r"reads default\.a, which CREATE OR REPLACE TABLE"), \
                ddl.transaction():
            ddl.create_or_replace_table("a", df=NEW_ROWS)
            ddl.create_table("c", like="a")
        with pytest.raises(UnpublishedReadError, match=r"reads default\.c, which CREATE TABLE"), ddl.transaction():
            ddl.create_table("c", df=NEW_ROWS)
            ddl.create_view("v9", as_select="SELECT * FROM c")
        ddl.create_view("over_a", as_select="SELECT * FROM default.a")
        with pytest.raises(UnpublishedReadError, match=r"reads default\.a, which TRUNCATE"), ddl.transaction():
            ddl.truncate_table("a")
            ddl.create_view("v9", as_select="SELECT * FROM over_a")
        ddl.drop_views(["over_a"])
        assert len(ddl.binlog_events()) == 2 and ddl.active_chains() == []
    assert catalog_state(world.catalog) == before


def test_nothing_of_a_transaction_is_seen_before_commit_and_all_of_it_after(tmp_path):
    """Each statement is built aside: until COMMIT the catalog shows every object as before (a replaced table's old
    rows, a created table and view missing, a renamed table under its old name); COMMIT publishes all of it."""
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        with ddl.transaction():
            ddl.create_or_replace_table("a", df=NEW_ROWS)
            ddl.create_table("c", df=NEW_ROWS)
            ddl.rename_tables([("b", "b2")])
            ddl.create_view("v2", as_select="SELECT 2")
            ddl.truncate_table("q")
            seen = catalog_state(world.catalog)
            visible = {name: value for name, value in seen[0].items()
                       if not TableName.of(name, allow_reserved=True).is_reserved}
            assert (visible, seen[1]) == (before[0], before[1])
        after = catalog_state(world.catalog)
        assert {"default.c", "default.b2"} <= set(after[0]) and "default.b" not in after[0]
        assert after[0]["default.a"][0] == ("n",)
        committed = ddl.binlog_events()
        assert [event.xid for event in committed] == [committed[0].xid] * 5


def test_a_transaction_left_open_when_the_engine_closes_is_rolled_back(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    ddl = world.open()
    ddl.transactions.begin(ddl)
    ddl.truncate_table("a")
    ddl.drop_tables(["b"])
    ddl.close()
    assert catalog_state(world.catalog) == before
    with world.open() as again:
        assert again.binlog_events() == [] and again.last_recovery.nothing_to_do


def test_a_killed_process_with_an_open_transaction_is_undone_by_recovery(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    ddl = world.open()
    with pytest.raises(SimulatedCrash), ddl.transaction():
        ddl.truncate_table("a")
        ddl.drop_tables(["b"])
        raise SimulatedCrash("killed between statements")
    ddl.abandon()
    with world.open() as again:
        assert again.binlog_events() == [] and again.active_chains() == []
    assert catalog_state(world.catalog) == before


def test_recover_beside_an_open_transaction_leaves_its_chains_alone(tmp_path):
    world = World(str(tmp_path), True)
    with world.open() as ddl:
        with ddl.transaction():
            ddl.truncate_table("a")
            report = ddl.recover()
            assert not report.of("undone")
        assert len(ddl.binlog_events()) == 1


def test_another_thread_waits_for_the_transaction_and_python_lock_waits_are_bounded(tmp_path):
    world = World(str(tmp_path), True)
    with world.open() as ddl:
        ddl.settings = ddl.settings.evolve(lock_wait_seconds=0.5)
        done = threading.Event()
        with ddl.transaction():
            ddl.truncate_table("a")
            other = threading.Thread(target=lambda: (ddl.truncate_table("a"), done.set()))
            other.start()
            assert not done.wait(0.3)  # the other thread's statement waits for the transaction's lock
        other.join(5)
        assert done.is_set()
        holder = threading.Event()
        release = threading.Event()

        def hold_b() -> None:
            with ddl.transaction():
                ddl.truncate_table("b")
                holder.set()
                release.wait(5)

        thread = threading.Thread(target=hold_b)
        thread.start()
        holder.wait(5)
        try:
            with pytest.raises(MetadataLockTimeoutError), ddl.transaction():  # a late lock: a bounded wait
                ddl.truncate_table("a")
                ddl.truncate_table("b")
        finally:
            release.set()
            thread.join(5)
        events = ddl.binlog_events()
        assert [e.txn for e in events] == [(1, 1), None, (1, 1)]


def test_the_binlog_group_is_one_record_so_a_torn_write_loses_all_of_it(tmp_path):
    world = World(str(tmp_path), True)
    with world.open() as ddl:
        in_transaction(BODIES["truncate+rename+view"])(ddl)
    import os

    from chains.binlog import BINLOG_MAGIC, binlog_store, list_segments, segment_name

    store = binlog_store(world.home)
    records, _, _ = store.read(segment_name(list_segments(store)[-1]), BINLOG_MAGIC)
    assert [record["op"] for _, record in records] == ["txn"]
    path = os.path.join(world.home, "binlog", segment_name(list_segments(store)[-1]))
    with open(path, "r+b") as segment:  # cut the record short: the torn tail of a crash mid-write
        segment.truncate(os.path.getsize(path) - 5)
    with world.open() as again:
        assert again.binlog_events() == []


def test_a_replica_applies_a_source_transaction_as_one_and_its_position_moves_once(tmp_path):
    from tests.replication.test_apply_exactly_once import Replica, applied_seqs

    source_world = World(str(tmp_path / "source"), True)
    with source_world.open() as ddl:
        with ddl.transaction():
            ddl.create_table("c", like="a")
            ddl.rename_tables([("b", "b2")])
            ddl.create_view("v2", as_select="SELECT 2")
        ddl.truncate_table("a")
    final = catalog_state(source_world.catalog)
    states = {}
    for until in (0, 3, 4):
        replica = Replica(str(tmp_path / f"expected{until}"), source_world.home)
        with replica.open() as ddl:
            ddl.replica_of(source_world.home).apply_available(until=until)
        states[until] = catalog_state(replica.catalog)
    assert states[4] == final and states[0] != states[3] != states[4]
    traced = Replica(str(tmp_path / "trace"), source_world.home)
    points = crashkit.trace(traced.open, traced.apply)
    with traced.open() as ddl:
        group = [event for event in ddl.binlog_events() if event.txn is not None]
    check_group(group, 3)  # the replica commits the source's group as a group of its own
    for index, (point, nth) in enumerate(points):
        replica = Replica(str(tmp_path / f"r{index}"), source_world.home)
        ddl = replica.open()
        applier = ddl.replica_of(source_world.home)
        crashpoints.arm(point, nth)
        try:
            with pytest.raises(SimulatedCrash):
                applier.apply_available()
        finally:
            crashpoints.disarm_all()
            ddl.abandon()
        with replica.open() as ddl:  # recovery
            assert ddl.active_chains() == [], (point, nth)
            position = ddl.replica_of(source_world.home).position
            assert position in states, (point, nth, position)  # never inside the group
            assert catalog_state(replica.catalog) == states[position], (point, nth)
            assert replica.apply(ddl).position == 4
            assert applied_seqs(ddl) == [1, 2, 3, 4]
        assert catalog_state(replica.catalog) == final


def test_a_replica_applies_an_earlier_sources_group_that_read_its_own_changes_as_the_source_did(tmp_path):
    """A source before transactions were isolated let a statement read what an earlier one of its transaction
    changed; such a group in its binlog is applied by a replica (its statements published before the reading one,
    as on that source) at one commit point, crashed anywhere too, and replayed from its ``binlog --sql`` script:
    never stuck on UnpublishedReadError."""
    from ddl_log.frontends.cli.forensics import script_lines
    from ddl_log.replication.origin import origin_of
    from tests.replication.test_apply_exactly_once import Replica

    source_world = World(str(tmp_path / "source"), True)
    with source_world.open() as ddl:
        with ddl.transaction(publish_to_read=True):  # the earlier source's reads
            ddl.truncate_table("a")
            ddl.create_table("c", like="a")
            ddl.create_view("over_c", as_select="SELECT * FROM c")
        events = ddl.binlog_events()
        assert [event.txn for event in events] == [(1, 3), (2, 3), (3, 3)]
    final = catalog_state(source_world.catalog)
    replay = World(str(tmp_path / "replay"), True)
    with replay.open() as ddl:
        ddl.sql("\n".join(script_lines(origin_of(source_world.home), event) for event in events))
        check_group(ddl.binlog_events(), 3)
    assert catalog_state(replay.catalog) == final
    replica = Replica(str(tmp_path / "replica"), source_world.home)
    with replica.open() as ddl:
        assert replica.apply(ddl).position == 3
        check_group([event for event in ddl.binlog_events() if event.txn is not None], 3)
    assert catalog_state(replica.catalog) == final
    traced = Replica(str(tmp_path / "trace"), source_world.home)
    for index, (point, nth) in enumerate(crashkit.trace(traced.open, traced.apply)):
        crashed = Replica(str(tmp_path / f"r{index}"), source_world.home)
        ddl = crashed.open()
        crashpoints.arm(point, nth)
        try:
            with pytest.raises(SimulatedCrash):
                ddl.replica_of(source_world.home).apply_available()
        finally:
            crashpoints.disarm_all()
            ddl.abandon()
        with crashed.open() as ddl:  # recovery, then the apply again
            assert ddl.replica_of(source_world.home).position in (0, 3), (point, nth)
            assert crashed.apply(ddl).position == 3
        assert catalog_state(crashed.catalog) == final, (point, nth)


def test_binlog_shows_the_group_and_its_sql_replays_it_as_one_transaction_once(tmp_path):
    from ddl_log.frontends.cli.forensics import script_lines
    from ddl_log.replication.origin import origin_of
    from tests.replication.test_apply_exactly_once import ddl_log_cli

    source = World(str(tmp_path / "source"), True)
    with source.open() as ddl:
        in_transaction(BODIES["truncate+rename+view"])(ddl)
        events = ddl.binlog_events()
    shown = ddl_log_cli("--home", source.home, "binlog")
    assert shown.returncode == 0, shown.stderr
    assert [line.rsplit("  ", 1)[-1] for line in shown.stdout.splitlines()] == [
        "[transaction 1/3]", "[transaction 2/3]", "[transaction 3/3]"]
    script = "\n".join(script_lines(origin_of(source.home), event) for event in events)
    assert script.startswith("START TRANSACTION;") and script.endswith("COMMIT;")
    replay = World(str(tmp_path / "replay"), True)
    with replay.open() as ddl:
        ddl.sql(script)
        check_group(ddl.binlog_events(), 3)
        again = ddl.sql(script)  # applied before: every statement of the group skipped, nothing run twice
        assert [result.kind for result in again] == ["transaction", "skipped", "skipped", "skipped", "transaction"]
        assert len(ddl.binlog_events()) == 3
    assert catalog_state(replay.catalog) == states(tmp_path / "x", BODIES["truncate+rename+view"], True)[1]


@pytest.mark.parametrize("point", ["txn.commit.before_binlog", "txn.commit.after_binlog", "txn.commit.after_close"])
def test_a_transaction_on_a_database_home_commits_one_group_to_the_catalog_binlog(postgres_url, point):
    """A database home's group is one PostgreSQL transaction of the catalog binlog: all its rows or none, each
    naming the driver; a crash before it undoes every statement, after it recovery finishes them."""
    from tests.unit.test_statement_sweeps import populated_catalog

    catalog = populated_catalog()
    home = f"{postgres_url}?home=txn"
    before = catalog_state(catalog)
    body = BODIES["replace+drop"]
    assert crashkit.crash_at(lambda: AtomicDDL(home=home, catalog=catalog), in_transaction(body), point, 1)
    with AtomicDDL(home=home, catalog=catalog) as ddl:
        assert ddl.active_chains() == []
        events = ddl.binlog_events()
    if point == "txn.commit.before_binlog":
        assert events == [] and catalog_state(catalog) == before
    else:
        check_group(events, 2)
        assert {event.driver for event in events} == {"txn"}
        assert "default.b" not in catalog_state(catalog)[0]


def test_alter_table_swap_with_exchanges_two_tables_alone_or_refuses_with_nothing_done(tmp_path):
    world = World(str(tmp_path), True)
    tables = catalog_state(world.catalog)[0]
    with world.open() as ddl:
        ddl.sql("ALTER TABLE a SWAP WITH `default`.b")
        swapped = catalog_state(world.catalog)[0]
        assert swapped["default.a"] == tables["default.b"] and swapped["default.b"] == tables["default.a"]
        events = ddl.binlog_events()
        assert [(e.statement, e.txn) for e in events] == [("ALTER TABLE a SWAP WITH `default`.b", None)]
        before = catalog_state(world.catalog)
        for first, second, error in [("a", "a", InvalidNameError), ("a", "missing", NoSuchObjectError),
                                     ("a", "v1", WrongObjectKindError), ("a", "d2.t", CatalogError)]:
            with pytest.raises(error):
                ddl.swap_tables(first, second)
        assert catalog_state(world.catalog) == before and len(ddl.binlog_events()) == 1


def test_two_drivers_with_overlapping_transactions_never_deadlock_nor_leave_a_mix(postgres_url):
    """Two drivers (database homes in one PostgreSQL: its cross-driver locks and the catalog's one binlog; one
    catalog between them, as a metastore service) each run transactions replacing t1 and t2, in opposite orders:
    each transaction commits whole, or times out on the other driver's lock and is rolled back whole; never a hang.
    At the end t1 and t2 hold the rows of one and the same committed transaction, every chain is closed, and the
    binlog holds exactly the committed transactions, each one group of two."""
    catalog = memory_catalog()
    with AtomicDDL(home=f"{postgres_url}?home=setup", catalog=catalog) as ddl:
        for table in ("t1", "t2"):
            ddl.create_table(table, df=MemoryTable("", ("v",), [("setup",)]))
    committed: list[str] = []
    failures: list[BaseException] = []

    def driver(name: str, order: tuple[str, str]) -> None:
        with AtomicDDL(home=f"{postgres_url}?home={name}", catalog=catalog, lock_wait_seconds=0.5) as ddl:
            pause = random.Random(name)
            for turn in range(6):
                time.sleep(pause.uniform(0, 0.4))  # out of step, so that some turns meet no lock of the other
                value = f"{name}-{turn}"
                try:
                    with ddl.transaction():
                        for table in order:
                            ddl.create_or_replace_table(table, df=MemoryTable("", ("v",), [(value,)]))
                    committed.append(value)
                except MetadataLockTimeoutError:
                    continue  # rolled back whole: the other driver held the second table
                except BaseException as error:  # noqa: BLE001 - reported by the assertion below
                    failures.append(error)

    threads = [threading.Thread(target=driver, args=("one", ("t1", "t2"))),
               threading.Thread(target=driver, args=("two", ("t2", "t1")))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads) and failures == []
    tables = catalog.backend.tables
    t1, t2 = (tables[TableName("default", name)].rows for name in ("t1", "t2"))
    assert t1 == t2 and t1[0][0] in [*committed, "setup" if not committed else None], committed
    with AtomicDDL(home=f"{postgres_url}?home=setup", catalog=catalog) as ddl:
        events = ddl.binlog_events()
        groups = [event for event in events if event.txn is not None]
        assert len(groups) == 2 * len(committed) and ddl.active_chains() == []
        assert all(event.txn == (index % 2 + 1, 2) for index, event in enumerate(groups))
