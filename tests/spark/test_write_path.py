"""INSERT OVERWRITE of an unpartitioned table on real Spark takes the write path
(:mod:`replace_table.plans.write_path`): the new rows are written straight into the new version's own directory and
the table is pointed there in one metastore call; no work table is ever in the metastore, no data is renamed, and a
statement that fails leaves catalog, warehouse, log and binlog as they were. The crash sweep of the path is a proof
(``make proofs``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests import crashkit
from tests.spark.test_replace_sweep import sweep

pytestmark = pytest.mark.spark


@pytest.fixture
def ddl(spark: Any, tmp_path: Path, clean_spark: Any) -> Any:
    spark.sql("CREATE TABLE t (a INT, b STRING) USING parquet COMMENT 'kept' TBLPROPERTIES ('team' = 'etl')")
    spark.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    atomic = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    yield atomic
    atomic.close()


def rows(spark: Any, name: str = "t") -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in spark.table(name).collect())


def names(spark: Any) -> set[str]:
    return {row["tableName"] for row in spark.sql("SHOW TABLES").collect()}


def warehouse_entries(warehouse: Path) -> set[str]:
    return {entry.name for entry in warehouse.iterdir()}


def test_an_overwrite_writes_its_rows_into_a_new_directory_with_no_work_table(ddl, spark, warehouse):
    old_location = ddl.catalog.definitions.table_location(ddl_table("t"))
    result = ddl.insert_overwrite("t", as_select="SELECT a + 10, upper(b) FROM t UNION ALL SELECT 3, 'z'")
    assert result.path == "write"
    assert rows(spark) == [(3, "z"), (11, "X"), (12, "Y")]  # the query read the table it replaced
    location = ddl.catalog.definitions.table_location(ddl_table("t"))
    assert location != old_location and names(spark) == {"t"}
    metadata = ddl.catalog.definitions.table_metadata(ddl_table("t"))
    assert metadata is not None and metadata.comment == "kept" and dict(metadata.properties)["team"] == "etl"
    assert ddl.binlog_events()[-1].statement.startswith("INSERT OVERWRITE")


def test_a_dataframe_is_written_the_same_way(ddl, spark):
    frame = spark.range(3).selectExpr("CAST(id AS INT) AS a", "'d' AS b")
    assert ddl.insert_overwrite("t", df=frame).path == "write"
    assert rows(spark) == [(0, "d"), (1, "d"), (2, "d")]


def test_spark_casts_the_rows_to_the_table_types_as_its_insert_does(ddl, spark):
    ddl.insert_overwrite("t", as_select="SELECT 7L, 8")
    assert rows(spark) == [(7, "8")]
    assert [field.dataType.simpleString() for field in spark.table("t").schema] == ["int", "string"]


@pytest.mark.parametrize("query", ["SELECT 1", "SELECT nope FROM range(1)", "SELECT raise_error('boom'), 'x'"])
def test_a_failed_overwrite_leaves_everything_as_it_was(ddl, spark, warehouse, query):
    """Refused by Spark's analysis (before anything is logged) or failed while its job ran (the directory removed)."""
    before = (rows(spark), names(spark), warehouse_entries(warehouse), len(ddl.binlog_events()))
    with pytest.raises(Exception):  # noqa: B017 - each the INSERT's own error, checked by the differential suite
        ddl.insert_overwrite("t", as_select=query)
    assert (rows(spark), names(spark), warehouse_entries(warehouse), len(ddl.binlog_events())) == before


def test_a_partitioned_table_is_still_built_under_a_work_table(ddl, spark):
    spark.sql("CREATE TABLE p (a INT, d STRING) USING parquet PARTITIONED BY (d)")
    spark.sql("INSERT INTO p VALUES (1, 'x')")
    assert ddl.insert_overwrite("p", as_select="SELECT 2, 'y'").path == "swap"
    assert rows(spark, "p") == [(2, "y")]


def test_the_path_makes_no_work_table_at_any_step(ddl, tmp_path):
    """The trace of the statement's crash points: the work table's create never runs."""
    trace = crashkit.trace(lambda: AtomicDDL(spark=ddl.spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.insert_overwrite("t", as_select="SELECT a + 1, b FROM t"))
    points = [point for point, _ in trace]
    assert "replace.fill_tmp.before" in points and "replace.exchange.before" in points
    assert not any(point.startswith("replace.create_tmp") for point in points)


def test_crash_at_every_point_of_an_overwrite_written_in_place(spark, warehouse, tmp_path, clean_spark):
    """Every crash point, then recovery: the old rows or the new, exactly the expected tables, no orphan directory."""
    overwrite = lambda d: d.insert_overwrite("t", as_select="SELECT a + 100, b FROM t")  # noqa: E731
    outcomes = sweep(spark, warehouse, tmp_path, overwrite, binlog=True)
    assert outcomes[0] == "old" and outcomes[-1] == "new"


def ddl_table(name: str) -> Any:
    from storage.catalogs.names import TableName

    return TableName.of(name)
