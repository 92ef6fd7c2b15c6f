"""DDL transactions (issue 39) on real Spark: a short crash sweep (around each catalog operation of the statements
inside, and at every point of the group commit) of transactions of 1 (ALTER TABLE SWAP WITH), 2 and 3 statements
of different kinds, each
recovered to exactly before (nothing binlogged) or exactly after (the group binlogged: one XID, one event per
statement); and real SIGKILLs during COMMIT (``DDL_LOG_CRASH_AT``), recovered by a new process. The exhaustive
sweep of every crash point runs on the in-memory catalog (tests/unit/test_transactions.py). And isolation: nothing
of a transaction is seen by another session before COMMIT publishes it."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL, NoSuchObjectError
from ddl_log.errors import NotTransactionalError, UnpublishedReadError
from storage.catalogs.names import TableName
from tests.spark.sweep_support import catalog_points, snapshot, spark_worthy, sweep_statement
from tests.spark.test_replace_kill import kill_each, module_worker

pytestmark = [pytest.mark.spark]

SETUP = [
    "CREATE TABLE a USING parquet AS SELECT CAST(id AS INT) AS x, concat('a', id) AS y FROM range(20)",
    "CREATE TABLE b USING parquet AS SELECT id AS z FROM range(5)",
    "CREATE TABLE p USING parquet PARTITIONED BY (day) AS SELECT id AS v, concat('d', id % 2) AS day FROM range(8)",
    "CREATE VIEW v1 AS SELECT x FROM a WHERE x < 5",
]

BODIES: dict[str, list[Callable[[AtomicDDL], Any]]] = {
    "swap": [lambda d: d.swap_tables("a", "b")],
    "ctas+drop": [lambda d: d.create_table("c", as_select="SELECT x * 2 AS x2 FROM a"),
                  lambda d: d.drop_tables(["b"])],
    "overwrite+rename+view+truncate+ctas": [
        lambda d: d.insert_overwrite("a", as_select="SELECT x + 100, y FROM a WHERE x > 3"),
        lambda d: d.rename_tables([("b", "b2")]),
        lambda d: d.create_view("v1", as_select="SELECT v FROM p", or_replace=True),
        lambda d: d.truncate_table("p"),
        lambda d: d.create_table("c", as_select="SELECT 7 AS k")],
    "truncate partition+overwrite": [lambda d: d.truncate_table("p", partition={"day": "d0"}),
                                     lambda d: d.insert_overwrite("a", as_select="SELECT x + 100, y FROM a")],
}
"""One, two and five statements of different kinds (issue 39's sweeps); the in-memory sweep has the same sizes."""


def transaction_points(points: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Around each catalog operation of the statements inside, and every point of the group commit."""
    chosen = set(catalog_points(points)) | {p for p in spark_worthy(points) if p[0].startswith("txn.commit.")}
    return [point for point in points if point in chosen]


@pytest.mark.parametrize("name", sorted(BODIES))
def test_crash_around_every_catalog_operation_and_the_group_commit(spark, warehouse, tmp_path, clean_spark, name):
    body = BODIES[name]

    def statement(ddl: AtomicDDL) -> None:
        with ddl.transaction():
            for run in body:
                run(ddl)

    def world(label: str) -> Callable[[], AtomicDDL]:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    found = sweep_statement(spark, warehouse, SETUP, world, statement, transaction_points,
                            committed_events=len(body))
    for events, outcome in found:
        if outcome == "after":
            assert len({event.xid for event in events}) == 1
            assert [event.txn for event in events] == [(i, len(body)) for i in range(1, len(body) + 1)]


def test_a_failing_statement_on_spark_undoes_the_transaction(spark, warehouse, tmp_path, clean_spark):
    for sql in SETUP:
        spark.sql(sql)
    before = snapshot(spark, warehouse)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        with pytest.raises(NoSuchObjectError):
            ddl.sql("START TRANSACTION; CREATE OR REPLACE TABLE a USING parquet AS SELECT 1 AS one; DROP TABLE b; "
                    "TRUNCATE TABLE missing; COMMIT")
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert snapshot(spark, warehouse) == before


def test_a_form_spark_runs_only_non_atomically_is_refused_inside_and_never_run_beside(spark, warehouse, tmp_path,
                                                                                      clean_spark):
    """allow_non_atomic lets ddl.sql hand Spark a form the log cannot make atomic (INSERT OVERWRITE of an external
    table); inside a transaction that form is refused and the transaction rolled back, and Spark's own statement is
    not run after all: the external table keeps its rows, the replaced table its old version."""
    for sql in SETUP:
        spark.sql(sql)
    spark.sql(f"CREATE TABLE ext (n INT) USING parquet LOCATION '{tmp_path / 'ext'}'")
    spark.sql("INSERT INTO ext VALUES (1)")
    before = snapshot(spark, warehouse)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        with pytest.raises(NotTransactionalError, match="INSERT OVERWRITE"), ddl.transaction():
            ddl.sql("CREATE OR REPLACE TABLE a USING parquet AS SELECT 1 AS one")
            ddl.sql("INSERT OVERWRITE ext SELECT 2", allow_non_atomic=True)
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert [tuple(row) for row in spark.table("ext").collect()] == [(1,)]
    assert snapshot(spark, warehouse) == before


def test_other_sessions_see_nothing_before_commit_then_all_of_it(spark, warehouse, tmp_path, clean_spark):
    """Isolation on Spark: every statement's new version is built aside, so until COMMIT another session reads each
    table, view and name exactly as before (a replaced table's old rows, a truncated one's rows, a created table and
    a renamed one's new name missing, a view's old query); COMMIT publishes all of it, within the publish window it
    measures. A statement reading what the transaction changed is refused (UnpublishedReadError), all undone."""
    for sql in SETUP:
        spark.sql(sql)
    other = spark.newSession()

    def seen() -> dict[str, Any]:
        present = {row.tableName for row in other.sql("SHOW TABLES IN default").collect()
                   if not row.isTemporary and not TableName("default", row.tableName).is_reserved}  # work tables
        for name in present:  # another session caches what it read (grace 0: the old files are gone at COMMIT)
            other.catalog.refreshTable(name)
        return {name: sorted(tuple(row) for row in other.table(name).collect()) for name in sorted(present)}

    before = seen()
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        with ddl.transaction() as transaction:
            ddl.create_or_replace_table("a", as_select="SELECT 1 AS x, 'n' AS y")
            ddl.create_table("c", as_select="SELECT 5 AS k")
            ddl.truncate_table("p")
            ddl.rename_tables([("b", "b2")])
            ddl.create_view("v1", as_select="SELECT 7 AS seven", or_replace=True)
            assert seen() == before
        assert transaction.committed is not None and 0 < transaction.committed.publish_seconds < 30
        after = seen()
        assert (after["a"], after["c"], after["p"], after["v1"]) == ([(1, "n")], [(5,)], [], [(7,)])
        assert "b" not in after and after["b2"] == before["b"]
        with pytest.raises(UnpublishedReadError, match=r"reads default\.a"), ddl.transaction():
            ddl.truncate_table("c")
            ddl.create_or_replace_table("a", as_select="SELECT 2 AS x, 'm' AS y")
            ddl.create_table("d", df=spark.sql("SELECT * FROM a"))  # a DataFrame over a: its plan reads it
        assert seen() == after and len(ddl.binlog_events()) == 5


KILLS = [("create_view.do.after", False), ("txn.commit.before_binlog", False), ("txn.commit.after_binlog", True)]
"""The first kill is inside COMMIT's publishing: the replaced table and the view published, nothing committed."""


txn_worker = module_worker("tests.spark.txn_kill_worker")


@pytest.mark.xdist_group("sigkill_transaction")
def test_sigkill_during_commit_then_recovery_in_a_new_process(tmp_path):
    kills = kill_each(tmp_path / "home", crashes=KILLS, run=txn_worker)
    for crash_at, committed in KILLS:
        kill = kills[crash_at]
        assert kill.killed.returncode == -signal.SIGKILL, kill.killed.stderr[-2000:]
        report = kill.report
        assert report is not None, kill.inspector_stderr[-2000:]
        assert report["active"] == 0 and report["second_recovery_nothing_to_do"], report
        assert report["dirs"] == report["table_dirs"], report
        old_t, old_u = kill.old
        if committed:
            assert [e["txn"] for e in kill.new_events] == [[1, 3], [2, 3], [3, 3]]
            assert len({e["xid"] for e in kill.new_events}) == 1
            assert report["t"][1] == 3000 and report["u"] is None and report["tables"] == ["t", "v"]
        else:
            assert kill.new_events == []
            assert report["t"] == old_t and report["u"] == old_u and report["tables"] == ["t", "u"]
