"""Bad input and failing queries on real Spark: a clear typed error naming the object, and no side effect at all
(catalog, data, warehouse directories, log state, binlog exactly as before)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import (
    AtomicDDL,
    CatalogError,
    DDLLogError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    StatementFailedError,
)
from tests.spark.sweep_support import table_state, user_tables, warehouse_dirs

pytestmark = pytest.mark.spark

FAILING_SELECT = "SELECT CASE WHEN id = 5000 THEN raise_error('boom at 5000') ELSE id END AS x FROM range(10000)"

CASES: dict[str, tuple[Callable[[AtomicDDL], Any], type[DDLLogError], str]] = {
    "replace: SELECT fails at run time mid-job": (
        lambda d: d.create_or_replace_table("t", as_select=FAILING_SELECT), StatementFailedError, "boom at 5000"),
    "replace: LIKE source missing": (
        lambda d: d.create_or_replace_table("t", like="missing"), NoSuchObjectError, "missing"),
    "replace: bad column type": (
        lambda d: d.create_or_replace_table("t", schema="a NOT_A_TYPE"), CatalogError, "NOT_A_TYPE"),
    "replace: SELECT does not analyse": (
        lambda d: d.create_or_replace_table("t", as_select="SELECT nope FROM t"), CatalogError, "nope"),
    "replace: partition column not in the table": (
        lambda d: d.create_or_replace_table("t", schema="a INT", partitioned_by=["zz"]), CatalogError, "zz"),
    "replace: reserved name": (
        lambda d: d.create_or_replace_table("ddllog_1_tmp", schema="a INT"), InvalidNameError, "reserved"),
    "ctas: SELECT fails at run time": (
        lambda d: d.create_table("c", as_select=FAILING_SELECT), StatementFailedError, "boom"),
    "ctas: table exists": (lambda d: d.create_table("t", as_select="SELECT 1 AS a"), ObjectExistsError, "t"),
    "insert overwrite: SELECT fails at run time": (
        lambda d: d.insert_overwrite("t", as_select=FAILING_SELECT.replace("AS x", "AS a, 'z' AS b")),
        StatementFailedError, "boom"),
    "insert overwrite: missing table": (
        lambda d: d.insert_overwrite("missing", as_select="SELECT 1"), NoSuchObjectError, "missing"),
    "rename: target exists": (lambda d: d.rename_tables([("t", "u")]), ObjectExistsError, "u"),
    "rename: source missing after a valid pair": (
        lambda d: d.rename_tables([("t", "w"), ("missing", "x")]), NoSuchObjectError, "missing"),
    "drop: one missing table drops nothing": (
        lambda d: d.drop_tables(["t", "missing"]), NoSuchObjectError, "missing"),
    "truncate: missing table": (lambda d: d.truncate_table("missing"), NoSuchObjectError, "missing"),
    "drop database: not empty without cascade": (lambda d: d.drop_database("default"), CatalogError, "default"),
}


def state(spark: Any, warehouse: Any) -> tuple[Any, ...]:
    return (sorted(user_tables(spark)), table_state(spark, "t"), table_state(spark, "u"),
            sorted(warehouse_dirs(warehouse)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_failure_is_typed_and_has_no_side_effect(spark, warehouse, tmp_path, clean_spark, case):
    statement, error, mentions = CASES[case]
    spark.sql("CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, 'x' AS b FROM range(10)")
    spark.sql("CREATE TABLE u USING parquet AS SELECT 1 AS one")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home")
    before = state(spark, warehouse)
    with pytest.raises(error) as raised:
        statement(ddl)
    message = str(raised.value)
    assert mentions in message
    assert "Traceback" not in message and "at org.apache" not in message and len(message) < 600
    assert state(spark, warehouse) == before
    assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
    assert ddl.binlog_events() == []
    ddl.close()
    reopened = AtomicDDL(spark=spark, home=tmp_path / "home")
    assert reopened.last_recovery.nothing_to_do
    reopened.close()


def test_truncate_and_insert_overwrite_keep_table_properties_and_comment(spark, tmp_path, clean_spark):
    """As Spark's own TRUNCATE / INSERT OVERWRITE do (found by the soak: LIKE alone copies neither)."""
    spark.sql("CREATE TABLE t (a INT, b STRING) USING parquet COMMENT 'hello' TBLPROPERTIES ('team' = 'etl')")
    spark.sql("INSERT INTO t VALUES (1, 'x')")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home")
    for run in (lambda: ddl.truncate_table("t"), lambda: ddl.insert_overwrite("t", as_select="SELECT 2, 'y'")):
        run()
        metadata = ddl.catalog.definitions.table_metadata(ddl_table("t"))
        assert metadata is not None and metadata.comment == "hello"
        assert dict(metadata.properties)["team"] == "etl"
    assert [tuple(r) for r in spark.table("t").collect()] == [(2, "y")]
    ddl.close()


def ddl_table(name: str) -> Any:
    from storage.catalogs.names import TableName

    return TableName.of(name)
