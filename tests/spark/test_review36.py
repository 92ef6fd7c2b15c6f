"""Regression tests of the hostile review of versions, replication and replay (issue 36) on Spark; each failed on the
code before its fix. (The in-memory ones: tests/unit/test_review36.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = pytest.mark.spark


def rows_of(result: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in result.collect()]


def test_finding3_describe_of_objects_named_history_runs_as_spark_runs_it(clean_spark, tmp_path):
    """``DESCRIBE history.orders`` (a database ``history``), ``DESCRIBE history`` (a table) and ``DESCRIBE history
    x`` (its column x, as Spark reads it) give plain Spark's rows; with no relation ``history``, ``DESCRIBE HISTORY
    x`` is the project's history of x."""
    spark = clean_spark
    spark.sql("CREATE DATABASE history")
    try:
        spark.sql("CREATE TABLE history.orders (id INT, x INT) USING parquet")
        spark.sql("CREATE TABLE history (x INT, y STRING) USING parquet")
        spark.sql("CREATE TABLE x (a INT) USING parquet")
        texts = ["DESCRIBE history.orders", "DESC history.orders", "DESCRIBE history", "DESCRIBE TABLE history",
                 "DESC EXTENDED history", "DESCRIBE history x", "DESC history y", "DESCRIBE history.orders x",
                 "DESCRIBE `history`.`orders`"]
        with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
            for text in texts:
                [result] = ddl.sql(text)
                assert result.kind == "query", text
                assert rows_of(result.result) == rows_of(spark.sql(text)), text
            spark.sql("DROP TABLE history")
            [result] = ddl.sql("DESCRIBE HISTORY x")
            assert result.kind == "ddl" and [row.current for row in result.result.rows] == [True]
    finally:
        spark.sql("DROP DATABASE IF EXISTS history CASCADE")
