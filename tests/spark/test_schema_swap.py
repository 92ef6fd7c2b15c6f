"""ALTER SCHEMA a SWAP WITH b on real Spark: the swap itself (every table and view exchanged by its metastore
record, no directory moved, the swapped tables then replaced, dropped and swapped back as any other), a crash sweep
around each catalog operation and the commit (recovered to exactly before, nothing binlogged, or exactly after, one
event), refusals with nothing done, and real SIGKILLs before and after the commit point, recovered by a new process.
The exhaustive sweep of every crash point runs on the in-memory catalog (tests/unit/test_schema_swap.py)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL, InvalidNameError, NoSuchObjectError, NotAtomicError
from tests import crashkit
from tests.spark.sweep_support import WAREHOUSE, Key, catalog_points, snapshot, sweep_statement, warehouse_dirs
from tests.spark.test_replace_kill import kill_each, module_worker

pytestmark = [pytest.mark.spark]

SETUP = [
    "CREATE DATABASE blue",
    "CREATE DATABASE green",
    "CREATE TABLE blue.t1 USING parquet AS SELECT CAST(id AS INT) AS x FROM range(20)",
    "CREATE TABLE green.t1 USING parquet AS SELECT id AS x, concat('g', id) AS y FROM range(5)",
    "CREATE TABLE blue.t2 USING parquet PARTITIONED BY (day) AS SELECT id AS v, concat('d', id % 2) AS day "
    "FROM range(8)",
    "CREATE TABLE green.t2 USING parquet PARTITIONED BY (day) AS SELECT id * 10 AS v, concat('e', id % 3) AS day "
    "FROM range(9)",
    "CREATE TABLE blue.u USING parquet AS SELECT id AS u FROM range(3)",
    "CREATE VIEW blue.v AS SELECT x FROM blue.t1 WHERE x < 5",
    "CREATE VIEW green.v AS SELECT 'green' AS side, count(*) AS n FROM green.t1",
    "CREATE VIEW green.w AS SELECT 1 AS w",
]


def swapped_objects(objects: dict[Key, Any]) -> dict[Key, Any]:
    """``objects`` with blue's and green's names exchanged (the warehouse's directories stay: nothing moves)."""
    other = {"blue": "green", "green": "blue"}
    return {(kind, other.get(db, db) if kind in ("table", "view") else db, name): value
            for (kind, db, name), value in objects.items()}


def test_a_schema_swap_exchanges_every_table_and_view_and_moves_no_directory(spark, warehouse, tmp_path,
                                                                            clean_spark):
    for sql in SETUP:
        spark.sql(sql)
    before = snapshot(spark, warehouse)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        result = ddl.sql("ALTER SCHEMA blue SWAP WITH green")[0].result
        assert result.detail == "blue <-> green: 5 tables, 3 views"
        after = snapshot(spark, warehouse)
        assert after.objects == swapped_objects(before.objects)
        assert after.objects[WAREHOUSE] == before.objects[WAREHOUSE]
        assert sorted(warehouse_dirs(warehouse / "blue.db")) == ["t1", "t2", "u"]  # green.u reads blue.db/u
        # a view's text is kept as written: blue.v, green's former view, counts green.t1, blue's former table
        assert [tuple(row) for row in spark.sql("SELECT * FROM blue.v").collect()] == [("green", 20)]
        [event] = ddl.binlog_events()
        assert event.statement == "ALTER SCHEMA blue SWAP WITH green"
        # the swapped tables are tables as any other: replaced, dropped, swapped back
        ddl.create_or_replace_table("blue.t1", as_select="SELECT 7 AS x")
        ddl.drop_tables(["green.t2"])
        ddl.swap_schemas("green", "blue")
        assert [tuple(row) for row in spark.table("green.t1").collect()] == [(7,)]
        assert spark.table("blue.t1").count() == 20 and spark.table("blue.u").count() == 3
        assert not spark.catalog.tableExists("blue.t2") and spark.table("green.t2").count() == 9  # green's first t2


def test_refusals_leave_everything_as_it_was(spark, warehouse, tmp_path, clean_spark):
    for sql in [*SETUP, "CREATE TABLE green.ext (a INT) USING parquet LOCATION '{}'".format(tmp_path / "ext")]:
        spark.sql(sql)
    before = snapshot(spark, warehouse)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        for script, error in [("ALTER SCHEMA blue SWAP WITH blue", InvalidNameError),
                              ("ALTER DATABASE blue SWAP WITH missing", NoSuchObjectError),
                              ("ALTER SCHEMA blue SWAP WITH green", NotAtomicError)]:
            with pytest.raises(error):
                ddl.sql(script)
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert snapshot(spark, warehouse) == before


def test_crash_around_every_catalog_operation_and_the_commit(spark, warehouse, tmp_path, clean_spark):
    def world(label: str) -> Callable[[], AtomicDDL]:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    found = sweep_statement(spark, warehouse, SETUP, world, lambda d: d.sql("ALTER SCHEMA blue SWAP WITH green"),
                            catalog_points)
    assert {outcome for _, outcome in found} == {"before", "after"}


KILLS = [("swap_schemas.do.after:3", False), ("commit.after_binlog", True)]
"""Mid-swap (the views exchanged, blue.t given green.t's definition, green.t not yet: both names on one table) and
right after the commit point; the sweep covers the other points."""


swap_worker = module_worker("tests.spark.swap_kill_worker")


@pytest.mark.xdist_group("sigkill_schema_swap")
def test_sigkill_during_a_schema_swap_then_recovery_in_a_new_process(tmp_path):
    kills = kill_each(tmp_path / "home", crashes=KILLS, run=swap_worker)
    for crash_at, committed in KILLS:
        kill = kills[crash_at]
        assert kill.killed.returncode == -signal.SIGKILL, (crash_at, kill.killed.stderr[-2000:])
        report = kill.report
        assert report is not None, kill.inspector_stderr[-2000:]
        assert report["active"] == 0 and report["second_recovery_nothing_to_do"], report
        old = kill.old
        if committed:
            assert [e["statement"] for e in kill.new_events] == ["ALTER SCHEMA blue SWAP WITH green"]
            assert report["state"] == {
                "blue": ["t", "v"], "green": ["t", "u", "v"], "blue.t": old["green.t"], "green.t": old["blue.t"],
                "blue.u": None, "green.u": old["blue.u"], "blue.v": ["green"], "green.v": ["blue"]}
        else:
            assert kill.new_events == [] and report["state"] == old, (crash_at, report)


def test_recovery_of_a_cut_drop_after_a_swap_leaves_the_other_tables_files(spark, warehouse, tmp_path, clean_spark):
    """After the swap green.t1 reads blue.db/t1 (blue.t1's default directory): a DROP of blue.t1 cut after the
    metastore dropped it is finished by recovery, whose clean-up of blue.t1's default directory must leave it."""
    for sql in SETUP:
        spark.sql(sql)

    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=tmp_path / "home", compact_bytes=0, grace_seconds=0)

    with opener() as ddl:
        ddl.swap_schemas("blue", "green")
    rows = sorted(tuple(row) for row in spark.table("green.t1").collect())
    assert crashkit.crash_at(opener, lambda d: d.drop_tables(["blue.t1"], purge=True),
                             "forward.drop_table.after_drop", 1)
    with opener() as ddl:
        assert ddl.active_chains() == []
    spark.catalog.refreshTable("green.t1")
    assert not spark.catalog.tableExists("blue.t1")
    assert sorted(tuple(row) for row in spark.table("green.t1").collect()) == rows
    assert (warehouse / "blue.db" / "t1").is_dir()


def test_readers_during_swaps_see_each_name_old_or_new_never_missing(spark, warehouse, tmp_path, clean_spark):
    """Reader threads on the session count blue.t1 and green.t1 (20 and 5 rows) while the schemas are swapped back
    and forth: every read of a name is one of the two tables, whole, and none fails. A read of both in one query may
    see both names on one table mid-swap (the publish window): counted, not refused."""
    for sql in SETUP:
        spark.sql(sql)
    stop = threading.Event()
    reads: list[tuple[int, int]] = []
    failures: list[str] = []

    def read() -> None:
        while not stop.is_set():
            try:
                row = spark.sql("SELECT (SELECT count(*) FROM blue.t1) AS b, (SELECT count(*) FROM green.t1) AS g"
                                ).first()
                reads.append((row.b, row.g))
            except Exception as error:  # noqa: BLE001 - a failed read is what is counted
                failures.append(str(error).splitlines()[0][:200])

    readers = [threading.Thread(target=read, daemon=True) for _ in range(2)]
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600) as ddl:
        for thread in readers:
            thread.start()
        for _ in range(4):
            ddl.swap_schemas("blue", "green")
        stop.set()
        for thread in readers:
            thread.join(timeout=120)
    assert failures == [] and len(reads) >= 4
    assert {value for pair in reads for value in pair} <= {20, 5}, reads
