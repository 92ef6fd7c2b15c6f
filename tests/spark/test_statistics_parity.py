"""A table the project rebuilt describes as plain Spark's statement leaves it, its ``Statistics`` row included: a
CREATE OR REPLACE ... AS SELECT like plain Spark's DROP + CTAS (the metastore counts the new files), an INSERT
OVERWRITE, a TRUNCATE and an ALTER TABLE rebuild like Spark's in-place statements (the table's metastore statistics
stay as they were; Spark's own are dropped), and an ALTER TABLE rebuild as any ALTER of Spark's (the metastore counts
the files: a row when there are some; its bytes are the new files', which plain Spark cannot write: it refuses the
type change)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = pytest.mark.spark


def statistics(spark: Any, table: str) -> list[str]:
    return [row.data_type for row in spark.sql(f"DESC EXTENDED {table}").collect() if row.col_name == "Statistics"]


CASES = {
    # name: (how the table was made, the statement; plain Spark's way where it refuses the statement)
    "insert overwrite of a created table": (
        "CREATE TABLE {t} (a INT) USING parquet; INSERT INTO {t} VALUES (1)", "INSERT OVERWRITE {t} SELECT 5", None),
    "insert overwrite of a CTAS table": (
        "CREATE TABLE {t} USING parquet AS SELECT 1 AS a", "INSERT OVERWRITE {t} SELECT 5", None),
    "truncate of a CTAS table": ("CREATE TABLE {t} USING parquet AS SELECT 1 AS a", "TRUNCATE TABLE {t}", None),
    "truncate of a created table": (
        "CREATE TABLE {t} (a INT) USING parquet; INSERT INTO {t} VALUES (1)", "TRUNCATE TABLE {t}", None),
    "create or replace as select": (
        "CREATE TABLE {t} (a INT) USING parquet; INSERT INTO {t} VALUES (1)",
        "CREATE OR REPLACE TABLE {t} USING parquet AS SELECT 2 AS a",
        "DROP TABLE {t}; CREATE TABLE {t} USING parquet AS SELECT 2 AS a"),
    "alter column type of a created table": (
        "CREATE TABLE {t} (a INT) USING parquet; INSERT INTO {t} VALUES (1)", "ALTER TABLE {t} CHANGE a a BIGINT",
        "ALTER TABLE {t} SET TBLPROPERTIES ('x' = '1')"),
}


def run(spark: Any, script: str, table: str) -> None:
    for statement in script.format(t=table).split("; "):
        spark.sql(statement)


@pytest.mark.parametrize("case", CASES)
def test_a_rebuilt_table_describes_its_statistics_as_plain_sparks_statement_leaves_them(
        clean_spark: Any, tmp_path: Path, case: str) -> None:
    spark = clean_spark
    made, statement, plain_way = CASES[case]
    run(spark, made, "plain")
    run(spark, plain_way or statement, "plain")
    run(spark, made, "ours")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql(statement.format(t="ours"))
    if case.startswith("alter"):
        assert bool(statistics(spark, "ours")) == bool(statistics(spark, "plain"))
    else:
        assert statistics(spark, "ours") == statistics(spark, "plain")
