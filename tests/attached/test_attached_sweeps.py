"""Crash sweeps of statements issued as ``spark.sql`` on an attached session (and of PySpark's saveAsTable in
overwrite mode): crashed in-process at the crash points of the engine's run (the callback into Python is where the
process dies), then the home attached again (recovery): the catalog is exactly as before (nothing binlogged) or
exactly as after (binlogged once); no work table or directory left; a second recovery has nothing to do.

``make test`` crashes each statement around each catalog operation and at its commit point; ``make
test-attached`` (``DDL_LOG_ATTACHED_LONG=1``) at every point worth a Spark run (the record-level points inside each
log write are swept on the in-memory catalog, tests/unit)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL
from ddl_log.frontends.extension import attach
from tests.attached.conftest import attached_session
from tests.attached.support import crashes_through, routed
from tests.spark.sweep_support import catalog_points, spark_worthy, sweep_statement
from tests.spark.test_replace_sweep import sweep
from tests.spark.test_transactions import transaction_points

pytestmark = pytest.mark.spark

LONG = bool(os.environ.get("DDL_LOG_ATTACHED_LONG"))
POINTS = spark_worthy if LONG else catalog_points


@pytest.fixture
def session(clean_spark: Any) -> Any:
    return attached_session(clean_spark)


def opener_of(session: Any) -> Callable[..., AtomicDDL]:
    return lambda home, **settings: attach(session, home=home, **settings)


REPLACES = {
    "as_select": "CREATE OR REPLACE TABLE t USING parquet AS SELECT id AS n, 'new' AS w FROM range(30)",
    "columns": "CREATE OR REPLACE TABLE t (k BIGINT COMMENT 'key', v STRING) USING parquet COMMENT 'new' "
               "TBLPROPERTIES ('team' = 'etl')",
}


@pytest.mark.parametrize("form", sorted(REPLACES))
def test_create_or_replace_through_spark_sql_crashed_at_every_point(spark, warehouse, tmp_path, session, form):
    outcomes = sweep(spark, warehouse, tmp_path, lambda d: routed(session, REPLACES[form]), binlog=True,
                     points=POINTS, open_home=opener_of(session))
    assert "old" in outcomes and "new" in outcomes


def test_save_as_table_overwrite_crashed_at_every_point(spark, warehouse, tmp_path, session):
    """PySpark's saveAsTable in overwrite mode (Spark 4.0 drops, then creates): routed in Python, atomic as CREATE
    OR REPLACE TABLE ... AS SELECT."""
    def statement(ddl: AtomicDDL) -> Any:
        frame = session.range(30).selectExpr("id AS n", "'new' AS w")
        return crashes_through(lambda: frame.write.mode("overwrite").format("parquet").saveAsTable("t"))

    outcomes = sweep(spark, warehouse, tmp_path, statement, binlog=True, points=POINTS, open_home=opener_of(session))
    assert "old" in outcomes and "new" in outcomes


SETUP = [
    "CREATE TABLE a USING parquet AS SELECT CAST(id AS INT) AS x, concat('a', id) AS y FROM range(20)",
    "CREATE TABLE b USING parquet AS SELECT id AS z FROM range(5)",
]
STATEMENTS = {
    "ctas": "CREATE TABLE c USING parquet AS SELECT x * 2 AS x2 FROM a",
    "insert_overwrite": "INSERT OVERWRITE TABLE a SELECT x + 100, y FROM a WHERE x > 3",
    "insert_into": "INSERT INTO a SELECT x + 100, y FROM a WHERE x > 15",
    "drop": "DROP TABLE b",
    "rename": "ALTER TABLE b RENAME TO b2",
}


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_statement_through_spark_sql_crashed_at_every_point(spark, warehouse, tmp_path, session, name):
    text = STATEMENTS[name]

    def world(label: str) -> Callable[[], AtomicDDL]:
        return lambda: attach(session, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    def statement(ddl: AtomicDDL) -> Any:
        return routed(session, text)

    found = sweep_statement(spark, warehouse, SETUP, world, statement, POINTS)
    assert "after" in [outcome for _, outcome in found]
    for events, _ in found:  # the statement as written (recovery marks a drop it finished as its own)
        assert all(event.statement.startswith(text) for event in events), events


TRANSACTION = [
    "START TRANSACTION",
    "INSERT OVERWRITE TABLE a SELECT x + 100, y FROM a WHERE x > 3",
    "ALTER TABLE b RENAME TO b2",
    "CREATE TABLE c USING parquet AS SELECT 7 AS k",
    "COMMIT",
]


def test_a_transaction_through_spark_sql_crashed_at_every_point(spark, warehouse, tmp_path, session):
    """START TRANSACTION ... COMMIT issued statement by statement as ``spark.sql`` on an attached session, crashed
    around each catalog operation of the statements inside and at every point of the group commit, the home
    attached again: exactly before (nothing binlogged) or exactly after (the three statements binlogged as one
    group, one XID)."""
    def world(label: str) -> Callable[[], AtomicDDL]:
        return lambda: attach(session, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    def statement(ddl: AtomicDDL) -> None:
        for text in TRANSACTION:
            routed(session, text)

    found = sweep_statement(spark, warehouse, SETUP, world, statement, transaction_points, committed_events=3)
    assert {"before", "after"} <= {outcome for _, outcome in found}
    for events, outcome in found:
        if outcome == "after":
            assert len({event.xid for event in events}) == 1 and [e.txn for e in events] == [(1, 3), (2, 3), (3, 3)]
