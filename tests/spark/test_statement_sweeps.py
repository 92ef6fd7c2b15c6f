"""Every atomic statement of issues 5 and 6 on real Spark, crashed (in-process) around each of its catalog
operations and at its commit point, then recovered: the catalog is exactly as before the statement (nothing
binlogged) or exactly as after it (binlogged once); no reserved-name table, no orphan directory, no active chain;
a second recovery changes nothing. The exhaustive sweep of every crash point runs on the in-memory catalog."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL
from ddl_log.statements.alter_ops import (
    AddColumns,
    AddPartition,
    ChangeColumnType,
    DropColumns,
    DropPartition,
    SetProperties,
)
from tests import crashkit
from tests.spark.sweep_support import assert_clean_log, catalog_points, table_state, warehouse_dirs

pytestmark = pytest.mark.spark
SWAPPED_DIR = re.compile(r"^ddllog_\d+_[0-9a-f]{6}_tmp$")

SETUP = [
    "CREATE TABLE a USING parquet AS SELECT CAST(id AS INT) AS x, concat('a', id) AS y FROM range(20)",
    "CREATE TABLE b USING parquet AS SELECT id AS z FROM range(5)",
    "CREATE TABLE p USING parquet PARTITIONED BY (day) AS SELECT id AS v, concat('d', id % 2) AS day FROM range(8)",
    "CREATE VIEW v1 AS SELECT x FROM a WHERE x < 5",
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
    "insert_overwrite": lambda d: d.insert_overwrite("a", as_select="SELECT x + 100, y FROM a WHERE x > 3"),
    "insert_overwrite_partitioned": lambda d: d.insert_overwrite("p", as_select="SELECT v * 10, day FROM p"),
    "insert_overwrite_dynamic": lambda d: d.insert_overwrite(
        "p", as_select="SELECT v * 10, day FROM p WHERE day = 'd0'", overwrite_mode="dynamic"),
    "insert_overwrite_static_spec": lambda d: d.insert_overwrite("p", as_select="SELECT 99", partition={"day": "d1"}),
    "drop_database_cascade": lambda d: d.drop_database("d2", cascade=True),
    "create_or_replace_view": lambda d: d.create_view("v1", as_select="SELECT y FROM a", or_replace=True),
    "rename_view": lambda d: d.rename_view("v1", "v9"),
    "drop_views": lambda d: d.drop_views(["v1"]),
    "create_function": lambda d: d.create_function(
        "f2", class_name="org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs"),
    "drop_function": lambda d: d.drop_function("f1"),
    "alter_set_properties": lambda d: d.alter_table("a", SetProperties({"team": "etl"})),
    "alter_add_columns": lambda d: d.alter_table("a", AddColumns("extra STRING")),
    "alter_change_type": lambda d: d.alter_table("a", ChangeColumnType("x", "BIGINT")),
    "alter_drop_column": lambda d: d.alter_table("a", DropColumns(("y",))),
    "alter_add_partition": lambda d: d.alter_table("p", AddPartition({"day": "d7"})),
    "alter_drop_partition": lambda d: d.alter_table("p", DropPartition({"day": "d0"})),
}


def snapshot(spark: Any, warehouse: Any) -> tuple[Any, ...]:
    """Tables with schema and rows, views with their text, functions, databases, table properties, partitions."""
    databases = sorted(row[0] for row in spark.sql("SHOW DATABASES").collect())
    objects: dict[str, Any] = {}
    for db in databases:
        views = {r["viewName"] for r in spark.sql(f"SHOW VIEWS IN `{db}`").collect() if not r["isTemporary"]}
        for row in spark.sql(f"SHOW TABLES IN `{db}`").collect():
            if row["isTemporary"]:
                continue
            name = f"`{db}`.`{row['tableName']}`"
            if row["tableName"] in views:
                text = [r for r in spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect() if r[0] == "View Text"]
                objects[name] = ("view", text[0][1] if text else None)
            else:
                props = sorted((r[0], r[1]) for r in spark.sql(f"SHOW TBLPROPERTIES {name}").collect()
                               if not r[0].startswith(("transient_", "spark_ddl_log", "spark.sql.")))
                parts = None
                if "PARTITIONED" in " ".join(str(r[0]) for r in spark.sql(f"DESCRIBE {name}").collect()).upper() \
                        or row["tableName"] == "p":
                    parts = sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {name}").collect())
                objects[name] = ("table", table_state(spark, name), props, parts)
        functions = sorted(r[0] for r in spark.sql(f"SHOW USER FUNCTIONS IN `{db}`").collect())
        objects[f"functions:{db}"] = functions
    # a swapped table lives in its former work directory, whose name has the statement's XID and a random token
    return tuple(databases), objects, sorted(SWAPPED_DIR.sub("ddllog_<xid>_tmp", d) for d in warehouse_dirs(warehouse))


def prepare(spark: Any) -> None:
    for statement in SETUP:
        spark.sql(statement)


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_crash_around_every_catalog_operation_leaves_before_or_after(spark, warehouse, tmp_path, clean_spark, name):
    from tests.conftest import reset_spark

    statement = STATEMENTS[name]

    def world(label: str) -> Callable[[], AtomicDDL]:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    prepare(spark)
    before = snapshot(spark, warehouse)
    points = crashkit.trace(world("trace"), statement)
    after = snapshot(spark, warehouse)
    assert before != after
    reset_spark(spark, warehouse)
    chosen = catalog_points(points)
    assert chosen, points
    outcomes = []
    prepared = False
    for index, (point, nth) in enumerate(chosen):
        if not prepared:
            prepare(spark)
        opener = world(f"case{index}")
        assert crashkit.crash_at(opener, statement, point, nth), (point, nth)
        ddl = opener()
        assert_clean_log(ddl)
        events = ddl.binlog_events()
        ddl.close()
        state = snapshot(spark, warehouse)
        assert state in (before, after), (point, nth, state)
        outcome = "after" if state == after else "before"
        assert len(events) == (1 if outcome == "after" else 0), (point, nth, events)
        second = opener()
        assert second.last_recovery.nothing_to_do
        second.close()
        outcomes.append(outcome)
        # Left exactly as prepared (the whole snapshot says so): the next point starts from here, not from scratch.
        prepared = outcome == "before"
        if not prepared:
            reset_spark(spark, warehouse)
    assert outcomes == sorted(outcomes, key=lambda o: o == "after"), outcomes
