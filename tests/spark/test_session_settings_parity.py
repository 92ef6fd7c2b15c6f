"""Session settings that change what Spark's own statement makes, against the statements the log runs without a
work table (the direct create, the write path) and with one: each statement on a session with the setting equals
plain Spark's same statement on that session (DESCRIBE, the metastore record, rows), or fails where Spark's fails.
A setting changes the provider a CREATE without USING takes, how values are cast into a table, what CHAR columns
become, how names match, how files are compressed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests.spark.test_statistics_parity import run
from tests.spark.test_write_path import described, recorded

pytestmark = pytest.mark.spark

EXISTING = "CREATE TABLE {t} (a INT, b STRING) USING parquet; INSERT INTO {t} VALUES (1, 'x'), (2, 'y')"

NEW_TABLE = {"CTAS": "CREATE TABLE {t} AS SELECT 1 AS a, CAST('q' AS CHAR(3)) AS c",
             "columns": "CREATE TABLE {t} (a INT, c CHAR(3))"}
"""A new table without USING: the provider comes from the session."""
OVERFLOW = "INSERT OVERWRITE {t} SELECT 3000000000L, 5"
"""A value its INT column cannot hold: cast as the store assignment policy and ANSI say, or refused."""
REPLACE = "CREATE OR REPLACE TABLE {t} USING parquet AS SELECT id AS a, 'n' AS b FROM range(3)"

CASES = {
    # id: (setting, value, what exists before, the statement, plain Spark's way where it refuses the statement)
    **{f"{label}, {form}": (key, value, None, text, None)
       for label, key, value in [("hive serde by default", "spark.sql.legacy.createHiveTableByDefault", "true"),
                                 ("ORC by default", "spark.sql.sources.default", "orc")]
       for form, text in NEW_TABLE.items()},
    **{label: (key, value, EXISTING, OVERFLOW, None)
       for label, key, value in [("legacy store assignment", "spark.sql.storeAssignmentPolicy", "LEGACY"),
                                 ("ANSI off", "spark.sql.ansi.enabled", "false"),
                                 ("ANSI on (an overflow)", "spark.sql.ansi.enabled", "true")]},
    "CHAR as STRING": ("spark.sql.legacy.charVarcharAsString", "true", None,
                       "CREATE TABLE {t} USING parquet AS SELECT CAST('q' AS CHAR(3)) AS c,"
                       " CAST('w' AS VARCHAR(4)) AS v", None),
    "case-sensitive names": ("spark.sql.caseSensitive", "true", None,
                             "CREATE TABLE {t} USING parquet AS SELECT 1 AS A, 2 AS a", None),
    "gzip parquet, replace": ("spark.sql.parquet.compression.codec", "gzip", EXISTING, REPLACE,
                              "DROP TABLE {t}; " + REPLACE.replace("OR REPLACE ", "")),
}


def shown(spark: Any, name: str) -> list[tuple[str, str]]:
    """DESCRIBE's rows of ``name`` without the metastore's time of the last change (a Hive serde table shows it)."""
    return [(key, re.sub(r"transient_lastDdlTime=\d+", "transient_lastDdlTime", value))
            for key, value in described(spark, name)]


def outcome(spark: Any, run_it: Any) -> str | None:
    try:
        run_it()
    except Exception as error:  # noqa: BLE001 - each side's error class is compared, not handled
        return type(error).__name__
    return None


@pytest.mark.parametrize("case", CASES)
def test_a_statement_on_a_session_with_a_setting_is_plain_sparks_on_that_session(clean_spark: Any, tmp_path: Path,
                                                                                  case: str) -> None:
    spark = clean_spark
    key, value, existing, statement, plain_way = CASES[case]
    spark.conf.set(key, value)
    try:
        if existing is not None:
            run(spark, existing, "ours")
            run(spark, existing, "plain")
        with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
            ours = outcome(spark, lambda: ddl.sql(statement.format(t="ours")))
        plain = outcome(spark, lambda: run(spark, plain_way or statement, "plain"))
        assert (ours is None) == (plain is None), (ours, plain)
        assert shown(spark, "ours") == shown(spark, "plain")
        assert recorded(spark, "ours") == recorded(spark, "plain")
        assert sorted(map(str, spark.table("ours").collect())) == sorted(map(str, spark.table("plain").collect()))
    finally:
        spark.conf.unset(key)
