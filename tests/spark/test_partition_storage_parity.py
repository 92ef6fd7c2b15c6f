"""A partition of a table the project built describes as one of the same table made by plain Spark: its ``Storage
Properties`` name the table's own directory (Spark copies the table's ``path`` into each partition it adds), never a
directory the table is no longer at (found by the golden-file run: ``DESC FORMATTED f PARTITION (...)`` after a
partitioned CTAS showed ``path=.../ddllog_<n>_tmp``, the work table's directory before the rename that put it under
its name). A replaced table's directory is the one its statement wrote (README's differences): compared as the
table's own location."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = pytest.mark.spark

CTAS = ("CREATE TABLE {t} USING {fmt} PARTITIONED BY (b) AS SELECT 'x' AS a, 1 AS b",
        "CREATE OR REPLACE TABLE {t} USING {fmt} PARTITIONED BY (b) AS SELECT 'y' AS a, 1 AS b")


def storage_properties(spark: Any, table: str) -> list[str]:
    """The partition's ``Storage Properties`` row, the table's own location masked."""
    location = next(row.data_type for row in spark.sql(f"DESC FORMATTED {table}").collect()
                    if row.col_name == "Location")
    rows = spark.sql(f"DESC FORMATTED {table} PARTITION (b = 1)").collect()
    return [row.data_type.replace(location, "<location>") for row in rows if row.col_name == "Storage Properties"]


@pytest.mark.parametrize("fmt", ["json", "parquet"])
@pytest.mark.parametrize("statement", CTAS, ids=["ctas", "create or replace as select"])
def test_a_built_tables_partitions_name_the_tables_directory_as_plain_sparks_do(
        clean_spark: Any, tmp_path: Path, statement: str, fmt: str) -> None:
    spark = clean_spark
    spark.sql(CTAS[0].format(t="plain", fmt=fmt))
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        if statement is CTAS[1]:
            ddl.sql(CTAS[0].format(t="ours", fmt=fmt))
        ddl.sql(statement.format(t="ours", fmt=fmt))
    assert storage_properties(spark, "ours") == storage_properties(spark, "plain")
