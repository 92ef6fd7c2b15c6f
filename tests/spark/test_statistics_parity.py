"""A table the project rebuilt describes as plain Spark's statement leaves it, its ``Statistics`` row included: a
CREATE OR REPLACE ... AS SELECT like plain Spark's DROP + CTAS (the metastore counts the new files), an INSERT
OVERWRITE, a TRUNCATE and an INSERT INTO like Spark's in-place statements (the table keeps its statistics until
Spark's ``CommandUtils.updateTableStats``: dropped where it had some, or set to the new size where the session
recomputes sizes), and an ALTER TABLE rebuild as any ALTER of Spark's (the metastore counts the files: a row when
there are some; its bytes are the new files', which plain Spark cannot write: it refuses the type change). The
matrix holds every table state (no statistics, counted by the metastore, analysed; partitioned; Hive serde), so
every path (write, empty, swap, rename), on sessions that do and do not recompute sizes, and compares the record's
statistics parameters too."""

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


RAW_STATISTICS = ("totalSize", "numFiles", "numRows", "rawDataSize", "COLUMN_STATS_ACCURATE")

TABLE_STATES = {
    # how the table is before the statement: what its record holds of statistics
    "no statistics": "CREATE TABLE {t} (a BIGINT, b STRING) USING parquet; INSERT INTO {t} VALUES (1, 'x'), (2, 'y')",
    "counted by the metastore": "CREATE TABLE {t} USING parquet AS SELECT id AS a, 'x' AS b FROM range(2)",
    "analysed": "CREATE TABLE {t} (a BIGINT, b STRING) USING parquet; INSERT INTO {t} VALUES (1, 'x'), (2, 'y');"
                " ANALYZE TABLE {t} COMPUTE STATISTICS",
    "partitioned, analysed": "CREATE TABLE {t} (a BIGINT, b STRING) USING parquet PARTITIONED BY (b);"
                             " INSERT INTO {t} VALUES (1, 'x'), (2, 'y'); ANALYZE TABLE {t} COMPUTE STATISTICS",
    "hive serde, analysed": "CREATE TABLE {t} (a BIGINT, b STRING) STORED AS PARQUET;"
                            " INSERT INTO {t} VALUES (1, 'x'), (2, 'y'); ANALYZE TABLE {t} COMPUTE STATISTICS",
    "hive serde, partitioned": "CREATE TABLE {t} (a BIGINT) PARTITIONED BY (b STRING) STORED AS PARQUET;"
                               " INSERT INTO {t} VALUES (1, 'x'), (2, 'y')",
}
"""Each table state takes a different path: the write and empty paths (unpartitioned data source), the swap path
(partitioned), the rename path (Hive serde)."""

STATEMENTS = {
    "INSERT OVERWRITE": ("INSERT OVERWRITE {t} SELECT id, concat('n', id) FROM range(5)", None),
    "TRUNCATE": ("TRUNCATE TABLE {t}", None),
    "INSERT INTO": ("INSERT INTO {t} SELECT id, concat('n', id) FROM range(5)", None),
    "CREATE OR REPLACE": ("CREATE OR REPLACE TABLE {t} USING parquet AS SELECT id AS a, concat('n', id) AS b"
                          " FROM range(5)",
                          "DROP TABLE {t}; CREATE TABLE {t} USING parquet AS SELECT id AS a, concat('n', id) AS b"
                          " FROM range(5)"),
}
"""Statements on an existing table, with plain Spark's way where it refuses the statement."""


@pytest.fixture(params=["false", "true"], ids=["sizes kept", "sizes recomputed"])
def size_update(clean_spark: Any, request: pytest.FixtureRequest) -> Any:
    """The session's ``spark.sql.statistics.size.autoUpdate.enabled``: off, Spark drops what statistics a write
    makes stale; on, it stores the new size after every write (its CTAS alters the new table once more)."""
    clean_spark.conf.set("spark.sql.statistics.size.autoUpdate.enabled", request.param)
    yield clean_spark
    clean_spark.conf.unset("spark.sql.statistics.size.autoUpdate.enabled")


def raw_statistics(spark: Any, table: str) -> dict[str, str]:
    """The statistics parameters of ``table``'s metastore record, the metastore's and Spark's: what the optimizer and
    another engine read, beyond DESCRIBE's one row."""
    client = spark._jsparkSession.sharedState().externalCatalog().unwrapped().client()
    parameters = dict(client.getRawHiveTable("default", table).rawTable().getParameters())
    return {key: value for key, value in parameters.items()
            if key in RAW_STATISTICS or key.startswith("spark.sql.statistics.")}


@pytest.mark.parametrize("statement", STATEMENTS)
@pytest.mark.parametrize("state", TABLE_STATES)
def test_every_statement_leaves_the_statistics_plain_spark_leaves(size_update: Any, tmp_path: Path, state: str,
                                                                  statement: str) -> None:
    """Whatever statistics the table had, whatever path the statement takes and whether the session recomputes
    sizes: DESCRIBE's row and the record's statistics parameters equal plain Spark's after the same statement."""
    spark = size_update
    text, plain_way = STATEMENTS[statement]
    for table in ("ours", "plain"):
        run(spark, TABLE_STATES[state], table)
    run(spark, plain_way or text, "plain")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        ddl.sql(text.format(t="ours"))
    assert statistics(spark, "ours") == statistics(spark, "plain")
    assert raw_statistics(spark, "ours") == raw_statistics(spark, "plain")


@pytest.mark.parametrize("state", ["partitioned, analysed", "hive serde, partitioned"])
def test_a_truncate_of_some_partitions_leaves_the_statistics_plain_spark_leaves(size_update: Any, tmp_path: Path,
                                                                                state: str) -> None:
    """The empty path (data source) and the work table's (Hive serde) of ``TRUNCATE TABLE ... PARTITION``."""
    spark = size_update
    for table in ("ours", "plain"):
        run(spark, TABLE_STATES[state], table)
    text = "TRUNCATE TABLE {t} PARTITION (b = 'x')"
    run(spark, text, "plain")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        ddl.sql(text.format(t="ours"))
    assert statistics(spark, "ours") == statistics(spark, "plain")
    assert raw_statistics(spark, "ours") == raw_statistics(spark, "plain")


@pytest.mark.parametrize("statement", [
    "CREATE TABLE {t} USING parquet AS SELECT id, 'r' AS s FROM range(5)",
    "CREATE TABLE {t} (a INT, b STRING) USING parquet",
    "CREATE TABLE {t} STORED AS PARQUET AS SELECT id, 'r' AS s FROM range(5)",
], ids=["ctas", "columns", "hive serde ctas"])
def test_a_new_table_has_the_statistics_plain_spark_gives_it(size_update: Any, tmp_path: Path,
                                                              statement: str) -> None:
    """A new table, made in place (the direct create) or under a work table, has plain Spark's statistics: where the
    session recomputes sizes Spark's CTAS alters its table once more, which the direct create does not take."""
    spark = size_update
    run(spark, statement, "plain")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        ddl.sql(statement.format(t="ours"))
    assert statistics(spark, "ours") == statistics(spark, "plain")
    assert raw_statistics(spark, "ours") == raw_statistics(spark, "plain")
