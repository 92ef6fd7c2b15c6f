"""Views' schema binding modes (``WITH SCHEMA BINDING | COMPENSATION | EVOLUTION | TYPE EVOLUTION``, Spark 4.0) on
real Spark: routed through the log, each mode stored as plain Spark stores it, kept by ``ALTER VIEW ... AS``,
changed by ``ALTER VIEW ... WITH SCHEMA``, and put back whole when a crash anywhere undoes a replace of the view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests import crashkit

pytestmark = pytest.mark.spark


def mode_of(spark: Any, view: str) -> tuple[str, str]:
    """The view's schema mode and query text, as DESCRIBE ... AS JSON reports them."""
    described = json.loads(spark.sql(f"DESCRIBE TABLE EXTENDED {view} AS JSON").collect()[0][0])
    return described["view_schema_mode"], described["view_text"]


def test_each_mode_is_stored_as_plain_spark_stores_it_and_alter_view_keeps_or_changes_it(
        clean_spark: Any, tmp_path: Path) -> None:
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        for mode in ("BINDING", "COMPENSATION", "EVOLUTION", "TYPE EVOLUTION"):
            spark.sql(f"CREATE OR REPLACE VIEW plain_v WITH SCHEMA {mode} AS SELECT a FROM t")
            ddl.sql(f"CREATE OR REPLACE VIEW v WITH SCHEMA {mode} AS SELECT a FROM t")
            assert mode_of(spark, "v") == mode_of(spark, "plain_v") == (mode, "SELECT a FROM t")
        ddl.sql("ALTER VIEW v AS SELECT a + 1 AS b FROM t")
        assert mode_of(spark, "v") == ("TYPE EVOLUTION", "SELECT a + 1 AS b FROM t"), "ALTER VIEW AS keeps the mode"
        ddl.sql("ALTER VIEW v WITH SCHEMA BINDING")
        assert mode_of(spark, "v") == ("BINDING", "SELECT a + 1 AS b FROM t")
        assert [event.statement for event in ddl.binlog_events()][-1] == "ALTER VIEW v WITH SCHEMA BINDING"


@pytest.mark.parametrize("statement", ["CREATE OR REPLACE VIEW v WITH SCHEMA EVOLUTION AS SELECT a, a AS c FROM t",
                                       "ALTER VIEW v WITH SCHEMA EVOLUTION"])
def test_a_crash_anywhere_in_a_change_of_the_view_leaves_its_old_mode_or_the_new_one(
        clean_spark: Any, tmp_path: Path, statement: str) -> None:
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")

    def fresh() -> AtomicDDL:
        spark.sql("CREATE OR REPLACE VIEW v WITH SCHEMA BINDING AS SELECT a FROM t")
        return AtomicDDL(spark=spark, home=tmp_path / "trace")

    def run(ddl: AtomicDDL) -> object:
        return ddl.sql(statement)

    points = crashkit.trace(fresh, run)
    assert points, "the statement passes crash points"
    outcomes = set()
    for index, (point, nth) in enumerate(points):
        spark.sql("CREATE OR REPLACE VIEW v WITH SCHEMA BINDING AS SELECT a FROM t")
        home = tmp_path / f"h{index}"
        assert crashkit.crash_at(lambda home=home: AtomicDDL(spark=spark, home=home), run, point, nth), point
        with AtomicDDL(spark=spark, home=home) as recovered:
            committed = bool(recovered.binlog_events())
            assert recovered.active_chains() == []
        mode = mode_of(spark, "v")[0]
        assert mode == ("EVOLUTION" if committed else "BINDING"), (point, nth, committed, mode)
        outcomes.add(committed)
    assert outcomes == {False, True}, "the sweep crosses the commit point"


def described(spark: Any, view: str) -> list[tuple[str, str]]:
    """The view's columns and its schema mode, as DESCRIBE EXTENDED shows them."""
    rows = spark.sql(f"DESCRIBE EXTENDED {view}").collect()
    columns = []
    for row in rows:
        if not row.col_name:
            break
        columns.append((row.col_name, row.data_type))
    return columns + [(row.col_name, row.data_type) for row in rows if row.col_name == "View Schema Mode"]


def test_a_schema_mode_change_keeps_the_views_stored_columns_as_sparks_does(clean_spark: Any, tmp_path: Path) -> None:
    """Found by the golden-file run (Spark's ``view-schema-compensation.sql``): the project re-created the view for
    ``ALTER VIEW ... WITH SCHEMA``, which took its sources' new types."""
    spark = clean_spark
    for side in ("plain", "ours"):
        spark.sql(f"CREATE TABLE {side}_t (c1 INT) USING parquet")
        spark.sql(f"CREATE VIEW {side}_v WITH SCHEMA BINDING AS SELECT * FROM {side}_t")
        spark.sql(f"DROP TABLE {side}_t")
        spark.sql(f"CREATE TABLE {side}_t (c1 STRING) USING parquet")
    spark.sql("ALTER VIEW plain_v WITH SCHEMA COMPENSATION")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("ALTER VIEW ours_v WITH SCHEMA COMPENSATION")
        assert len(ddl.binlog_events()) == 1
    assert described(spark, "ours_v") == described(spark, "plain_v")
    assert ("c1", "int") in described(spark, "ours_v")
