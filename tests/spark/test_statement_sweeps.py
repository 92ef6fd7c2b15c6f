"""Every atomic statement of issues 5 and 6 on real Spark, crashed (in-process) around each of its catalog
operations and at its commit point, then recovered: the catalog is exactly as before the statement (nothing
binlogged) or exactly as after it (binlogged once); no reserved-name table, no orphan directory, no active chain;
a second recovery changes nothing. The exhaustive sweep of every crash point runs on the in-memory catalog."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL
from ddl_log.engine.alter_ops import (
    AddColumns,
    AddPartition,
    ChangeColumnType,
    DropColumns,
    DropPartition,
    SetProperties,
)
from tests.spark.sweep_support import catalog_points, restore, snapshot, sweep_statement

pytestmark = pytest.mark.spark

SETUP = [
    "CREATE TABLE a USING parquet AS SELECT CAST(id AS INT) AS x, concat('a', id) AS y FROM range(20)",
    "CREATE TABLE b USING parquet AS SELECT id AS z FROM range(5)",
    "CREATE TABLE p USING parquet PARTITIONED BY (day) AS SELECT id AS v, concat('d', id % 2) AS day FROM range(8)",
    "CREATE VIEW v1 AS SELECT x FROM a WHERE x < 5",
    "CREATE VIEW v3 WITH SCHEMA BINDING AS SELECT x FROM a",
    "CREATE DATABASE d2",
    "CREATE TABLE d2.t USING parquet AS SELECT 1 AS one",
    "CREATE VIEW d2.v AS SELECT one FROM d2.t",
    "CREATE FUNCTION d2.f AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'",
    "CREATE FUNCTION f1 AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'",
]

STATEMENTS: dict[str, Callable[[AtomicDDL], Any]] = {
    "ctas": lambda d: d.create_table("c", as_select="SELECT x * 2 AS x2 FROM a"),
    "create_like": lambda d: d.create_table("c", like="p"),
    "rename_swap": lambda d: d.rename_tables([("a", "tmp1"), ("b", "a"), ("tmp1", "b")]),
    "drop_tables": lambda d: d.drop_tables(["a", "b"]),
    "truncate_partitioned": lambda d: d.truncate_table("p"),
    "truncate_partition": lambda d: d.truncate_table("p", partition={"day": "d0"}),
    "insert_overwrite": lambda d: d.insert_overwrite("a", as_select="SELECT x + 100, y FROM a WHERE x > 3"),
    "insert_overwrite_partitioned": lambda d: d.insert_overwrite("p", as_select="SELECT v * 10, day FROM p"),
    "insert_overwrite_dynamic": lambda d: d.insert_overwrite(
        "p", as_select="SELECT v * 10, day FROM p WHERE day = 'd0'", overwrite_mode="dynamic"),
    "insert_overwrite_static_spec": lambda d: d.insert_overwrite("p", as_select="SELECT 99", partition={"day": "d1"}),
    # a session that does not manage file source partitions: the new version keeps the records as they were
    "insert_overwrite_dynamic_untracked": lambda d: untracked(d, lambda: d.insert_overwrite(
        "p", as_select="SELECT v * 10, day FROM p WHERE day = 'd0' UNION ALL SELECT 5, 'd5'",
        overwrite_mode="dynamic")),
    "truncate_partitioned_untracked": lambda d: untracked(d, lambda: d.truncate_table("p")),
    # forms Spark parses: a leading WITH (put in front of the query) and a column list; BY NAME, dynamic
    "insert_overwrite_leading_with_columns": lambda d: d.sql(
        "WITH s AS (SELECT y, x + 100 AS x FROM a WHERE x > 3) INSERT OVERWRITE a (y, x) SELECT * FROM s"),
    "insert_overwrite_by_name_dynamic": lambda d: d.insert_overwrite(
        "p", as_select="SELECT 'd0' AS day, v * 10 AS v FROM p WHERE day = 'd0'", by_name=True,
        overwrite_mode="dynamic"),
    "drop_database_cascade": lambda d: d.drop_database("d2", cascade=True),
    "create_or_replace_view": lambda d: d.create_view("v1", as_select="SELECT y FROM a", or_replace=True),
    # Views Spark stores otherwise than they were given: the log knows each as Spark stores it, with no mark on it.
    "create_view_odd_text": lambda d: d.create_view("v2", as_select="  /* lead */ SELECT y FROM a -- tail\n ;"),
    "create_view_own_names": lambda d: d.create_view("v2", as_select="SELECT x, y FROM a", columns=("x", "y")),
    "create_view_columns_evolution": lambda d: d.sql("CREATE VIEW v2 (z) WITH SCHEMA EVOLUTION AS SELECT x FROM a"),
    "create_view_default_mode": lambda d: d.sql("CREATE VIEW v2 WITH SCHEMA COMPENSATION AS SELECT x FROM a"),
    "alter_view_default_mode": lambda d: d.sql("ALTER VIEW v3 WITH SCHEMA COMPENSATION"),
    "rename_view": lambda d: d.rename_view("v1", "v9"),
    "alter_view_properties": lambda d: d.alter_view_properties("v1", set={"team": "etl"}),
    "drop_views": lambda d: d.drop_views(["v1"]),
    "create_function": lambda d: d.create_function(
        "f2", class_name="org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs"),
    "drop_function": lambda d: d.drop_function("f1"),
    "alter_set_properties": lambda d: d.alter_table("a", SetProperties({"team": "etl"})),
    "comment_on_table": lambda d: d.sql("COMMENT ON TABLE b IS 'the new comment'"),
    "alter_add_columns": lambda d: d.alter_table("a", AddColumns("extra STRING")),
    "alter_change_type": lambda d: d.alter_table("a", ChangeColumnType("x", "BIGINT")),
    "alter_drop_column": lambda d: d.alter_table("a", DropColumns(("y",))),
    "alter_add_partition": lambda d: d.alter_table("p", AddPartition({"day": "d7"})),
    "alter_drop_partition": lambda d: d.alter_table("p", DropPartition({"day": "d0"})),
    "alter_add_partitions": lambda d: d.sql("ALTER TABLE p ADD PARTITION (day = 'd7') PARTITION (day = 'd8')"),
    "alter_drop_partitions": lambda d: d.sql("ALTER TABLE p DROP PARTITION (day = 'd0'), PARTITION (day = 'd1')"),
    "view_becomes_table": lambda d: d.replace_as_table("v1", as_select="SELECT x * 3 AS x3 FROM a", using="parquet"),
    "table_becomes_view": lambda d: d.replace_as_view("b", as_select="SELECT x AS z FROM a WHERE x > 15"),
}


def untracked(ddl: AtomicDDL, statement: Callable[[], Any]) -> Any:
    """``statement`` on the session with ``spark.sql.hive.manageFilesourcePartitions`` false
    (``tests/spark/test_untracked_partitions.py``)."""
    ddl.spark.conf.set("spark.sql.hive.manageFilesourcePartitions", "false")
    try:
        return statement()
    finally:
        ddl.spark.conf.unset("spark.sql.hive.manageFilesourcePartitions")


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_crash_around_every_catalog_operation_leaves_before_or_after(spark, warehouse, tmp_path, clean_spark, name):
    statement = STATEMENTS[name]

    def world(label: str) -> Callable[[], AtomicDDL]:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    sweep_statement(spark, warehouse, SETUP, world, statement, catalog_points)


def prepare(spark: Any) -> None:
    for statement in SETUP:
        spark.sql(statement)


MUTATIONS = {
    "view text": "ALTER VIEW v1 AS SELECT x FROM a WHERE x < 6",
    "property": "ALTER TABLE a SET TBLPROPERTIES ('team' = 'etl')",
    "partition": "ALTER TABLE p ADD PARTITION (day = 'd9')",
    "schema": "ALTER TABLE b ADD COLUMNS (w STRING)",
    "row": "INSERT INTO b VALUES (99)",
    "new function": "CREATE FUNCTION f3 AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'",
    "dropped function": "DROP FUNCTION d2.f",
    "temporary function": "CREATE TEMPORARY FUNCTION tf AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'",
    "new table": "CREATE TABLE e (q INT) USING parquet",
    "dropped database": "DROP DATABASE d2 CASCADE",
}


def test_the_snapshot_sees_every_kind_of_change_and_restore_undoes_it(spark, warehouse, clean_spark):
    """The sweep's proof rests on the snapshot (before, after, or neither) and on restore (each point starts from
    exactly the prepared state): each change below is seen, and restore brings back exactly the prepared state."""
    prepare(spark)
    before = snapshot(spark, warehouse)
    for label, sql in MUTATIONS.items():
        spark.sql(sql)
        changed = snapshot(spark, warehouse)
        assert changed != before, label
        restore(spark, warehouse, SETUP, before, changed)  # verifies, else from scratch and asserts
    (warehouse / "stray").mkdir()
    changed = snapshot(spark, warehouse)
    assert changed != before
    restore(spark, warehouse, SETUP, before, changed)
    assert not (warehouse / "stray").exists()
