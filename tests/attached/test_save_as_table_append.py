"""``df.write.mode("append").saveAsTable(t)`` on a table that is there, on an attached session, as on plain Spark:
the DataFrame's columns go to the table's by name (in any order, any case), and Spark's own checks refuse a writer
whose format, partitioning or column count does not match the table, with Spark's own error and nothing written.
Before 2026-12-04 (sixth), on Spark 4.1+ (whose writer plans the append as ``SaveAsV1TableCommand``) the log took the
columns by position (a reordered DataFrame failed to cast, or went into the wrong columns) and ran none of the checks
(a DataFrame of one column of two was appended, NULL in the other)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytestmark = pytest.mark.spark

SETUP = (
    "CREATE TABLE {t} (a INT, b STRING, p STRING) USING parquet PARTITIONED BY (p)",
    "INSERT INTO {t} VALUES (1, 'x', 'x'), (2, 'y', 'y')",
    "CREATE TABLE {t}_u (a INT, b STRING) USING parquet",
    "INSERT INTO {t}_u VALUES (1, 'x')",
    "CREATE TABLE {t}_h (a INT, b STRING) STORED AS parquet",
)


def append(rows: str, table: str = "{t}", **writer: Any) -> Callable[[Any, str], None]:
    def run(spark: Any, t: str) -> None:
        write = spark.sql(rows).write.mode("append")
        if "partition_by" in writer:
            write = write.partitionBy(writer["partition_by"])
        if "format" in writer:
            write = write.format(writer["format"])
        write.saveAsTable(table.format(t=t))
    return run


CALLS = {
    "columns in another order": append("SELECT 'n' AS b, 9 AS a", "{t}_u"),
    "columns in another case": append("SELECT 'n' AS B, 9 AS A", "{t}_u"),
    "partitioned, partitionBy given, reordered": append("SELECT 'x' AS p, 'n' AS b, 9 AS a", partition_by="p"),
    "partitioned, no partitionBy": append("SELECT 9 AS a, 'n' AS b, 'x' AS p"),
    "another partitionBy": append("SELECT 9 AS a, 'n' AS b", "{t}_u", partition_by="b"),
    "fewer columns": append("SELECT 9 AS a", "{t}_u"),
    "more columns": append("SELECT 9 AS a, 'n' AS b, 1 AS c", "{t}_u"),
    "another format": append("SELECT 9 AS a, 'n' AS b", "{t}_u", format="json"),
    "a Hive serde table, the writer's default format": append("SELECT 'n' AS b, 9 AS a", "{t}_h"),
    "a Hive serde table, format hive, reordered": append("SELECT 'n' AS b, 9 AS a", "{t}_h", format="hive"),
}


def outcome(call: Callable[[Any, str], None], spark: Any, table: str) -> str | None:
    """None where the call ran, else the error condition it raised and its message's first line (the table's name
    as ``T``)."""
    try:
        call(spark, table)
    except Exception as error:  # noqa: BLE001 - compared with plain Spark's
        condition = getattr(error, "getCondition", None)
        shown = condition() if callable(condition) else type(error).__name__
        return f"{shown}: {str(error).splitlines()[0].replace(table, 'T')}"
    return None


def rows(spark: Any, table: str) -> list[list[tuple[str, ...]]]:
    found = []
    for name in (table, f"{table}_u", f"{table}_h"):
        spark.catalog.refreshTable(name)
        found.append(sorted(tuple(map(str, row)) for row in spark.table(name).collect()))
    return found


@pytest.mark.parametrize("call", CALLS)
def test_a_save_as_table_append_runs_and_refuses_as_on_plain_spark(clean_spark: Any, attached: Any,
                                                                     call: str) -> None:
    spark = clean_spark
    for statement in SETUP:
        spark.sql(statement.format(t="ours"))
        spark.sql(statement.format(t="plain"))
    ours, plain = outcome(CALLS[call], attached.session, "ours"), outcome(CALLS[call], spark, "plain")
    assert ours == plain
    assert rows(spark, "ours") == rows(spark, "plain")
    assert len(attached.ddl.binlog_events()) == (ours is None)
