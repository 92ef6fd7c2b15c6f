"""CREATE OR REPLACE TABLE on real Spark, crashed at every crash point (in-process) x the three forms x binlog on
and off, partitioned tables included. After each crash and recovery: binlogged => the new schema and rows, else the
old ones; exactly the expected tables (no TMP, no BACKUP); no orphan directory; no active chain; a second recovery
changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests import crashkit
from tests.spark.sweep_support import crash_then_recover, restore, snapshot, spark_worthy, table_state

pytestmark = pytest.mark.spark

OLD = "CREATE TABLE t USING parquet {part} AS SELECT CAST(id AS INT) AS a, concat('x', id % 3) AS b FROM range(50)"
FORMS: dict[str, Callable[[AtomicDDL], Any]] = {
    "columns": lambda d: d.create_or_replace_table("t", schema="k BIGINT COMMENT 'key', v STRING",
                                                   properties={"team": "etl"}, comment="new"),
    "like": lambda d: d.create_or_replace_table("t", like="src"),
    "select": lambda d: d.create_or_replace_table("t", as_select="SELECT id AS n, 'new' AS w FROM range(30)"),
}
PARTITIONED = lambda d: d.create_or_replace_table(  # noqa: E731
    "t", as_select="SELECT id AS n, concat('p', id % 4) AS w FROM range(40)", partitioned_by=["w"])


SRC = "CREATE TABLE src (s DOUBLE, z STRING) USING parquet"


Points = list[tuple[str, int]]


def sweep(spark: Any, warehouse: Any, tmp_path: Any, statement: Callable[[AtomicDDL], Any], *, binlog: bool,
          partitioned: bool = False, points: Callable[[Points], Points] = spark_worthy,
          open_home: Callable[..., AtomicDDL] | None = None) -> list[str]:
    """Crash ``statement`` at each of ``points`` (of its trace; default every point worth a Spark run), recover, and
    check the outcome; the outcomes in point order (tests/cluster runs this on a standalone cluster too).
    ``open_home(home, **settings)``: how the home is opened (default an AtomicDDL on ``spark``; tests/attached attach
    a session)."""
    def world(label: str) -> Callable[[], AtomicDDL]:
        if open_home is not None:
            return lambda: open_home(tmp_path / label, binlog=binlog, compact_bytes=0, grace_seconds=0)
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, binlog=binlog, compact_bytes=0, grace_seconds=0)

    setup = [OLD.format(part="PARTITIONED BY (b)" if partitioned else ""), SRC]
    for sql in setup:
        spark.sql(sql)
    before = snapshot(spark, warehouse)
    trace = crashkit.trace(world("trace"), statement)
    after = snapshot(spark, warehouse)
    old, new = before.rows("t"), after.rows("t")
    assert new != old
    restore(spark, warehouse, setup, before, after)
    outcomes = []
    for index, (point, nth) in enumerate(points(trace)):
        opener = world(f"case{index}")
        events = crash_then_recover(opener, statement, point, nth)
        state = snapshot(spark, warehouse)
        if binlog:
            assert len(events) <= 1
            assert state.rows("t") == (new if events else old), (point, nth)
        else:
            assert events == [] and state.rows("t") in (old, new), (point, nth)
        outcomes.append("new" if state.rows("t") == new else "old")
        assert state.names() == {"t", "src"}, (point, nth)
        assert state.dirs == state.table_dirs({"t", "src"}), (point, nth)
        assert state.kind("t") == "MANAGED", (point, nth)
        second = opener()
        assert second.last_recovery.nothing_to_do
        second.close()
        assert table_state(spark, "t") == state.rows("t")
        # The next point starts from exactly the prepared state (the whole snapshot says so).
        restore(spark, warehouse, setup, before, state)
    assert outcomes == sorted(outcomes, key=lambda o: o == "new"), outcomes
    assert "old" in outcomes and "new" in outcomes
    return outcomes


@pytest.mark.parametrize(("form", "binlog"), [("columns", True), ("like", True), ("select", True), ("select", False)],
                         ids=["columns-binlog", "like-binlog", "select-binlog", "select-no-binlog"])
def test_crash_at_every_point_leaves_old_or_new_table(spark, warehouse, tmp_path, clean_spark, form, binlog):
    """Binlog off changes only the commit point (closing the chain commits), which is engine-independent: every form
    x binlog on/off is swept at every point on the in-memory catalog; on Spark, every form with the binlog and one
    without it."""
    sweep(spark, warehouse, tmp_path, FORMS[form], binlog=binlog)


def test_crash_at_every_point_of_a_partitioned_replace(spark, warehouse, tmp_path, clean_spark):
    """New partition columns: the metastore cannot change a table's partition keys, so the rename path runs."""
    outcomes = sweep(spark, warehouse, tmp_path, PARTITIONED, binlog=True, partitioned=True)
    assert len(outcomes) > 10


def test_crash_at_every_point_of_a_partitioned_swap(spark, warehouse, tmp_path, clean_spark):
    """The same partition column: the definition swap, its partitions switched in one metastore transaction."""
    def statement(ddl: AtomicDDL) -> Any:
        result = ddl.create_or_replace_table(
            "t", as_select="SELECT id AS n, concat('y', id % 4) AS b FROM range(40)", partitioned_by=["b"])
        assert result.path == "swap", result.swap_refused
        return result

    points = sweep(spark, warehouse, tmp_path, statement, binlog=True, partitioned=True)
    assert len(points) > 10


def test_dataframe_form_crash_at_every_point(spark, warehouse, tmp_path, clean_spark):
    def statement(ddl: AtomicDDL) -> Any:
        return ddl.create_or_replace_table("t", df=spark.range(7).selectExpr("id * 3 AS q"))

    sweep(spark, warehouse, tmp_path, statement, binlog=True)
