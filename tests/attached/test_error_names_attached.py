"""A statement that fails while its new version is built (a Hive serde table's work table, a partitioned CTAS, an
INSERT OVERWRITE's query failing at run time or refused by Spark's analysis of the work table's INSERT) names the
user's table, as plain Spark's error would, never a work table of the log: not in the message ``spark.sql``
raises, not in Spark's message parameters it carries, not in the project's typed error behind it nor in that
error's cause. Before 2026-12-04 (sixth) seven of these statements showed ``ddllog_<xid>_<token>_tmp``."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.errors import AnalysisException

from ddl_log.frontends.extension import statement_error

pytestmark = pytest.mark.spark

BOOM = "CAST(raise_error('boom') AS INT)"
SETUP = (
    "CREATE TABLE hv (a INT, b STRING) STORED AS parquet",
    "CREATE TABLE hp (a INT) PARTITIONED BY (p STRING) STORED AS parquet",
    "CREATE TABLE dp (a INT, p STRING) USING parquet PARTITIONED BY (p)",
    "INSERT INTO hv VALUES (1, 'x')",
)
FAILING = {  # the statement, the table its error must name
    "Hive serde CTAS, run time": (f"CREATE TABLE n2 STORED AS parquet AS SELECT {BOOM} AS a", "n2"),
    "partitioned CTAS, run time": (f"CREATE TABLE n3 USING parquet PARTITIONED BY (p) AS SELECT {BOOM} AS a, 'x' AS p",
                                   "n3"),
    "Hive serde CREATE OR REPLACE, run time": (f"CREATE OR REPLACE TABLE hv STORED AS parquet AS SELECT {BOOM} AS a",
                                               "hv"),
    "partitioned CREATE OR REPLACE, run time": (
        f"CREATE OR REPLACE TABLE dp USING parquet PARTITIONED BY (p) AS SELECT {BOOM} AS a, 'x' AS p", "dp"),
    "Hive serde INSERT OVERWRITE, run time": (f"INSERT OVERWRITE TABLE hv SELECT {BOOM}, 'z'", "hv"),
    "Hive serde INSERT OVERWRITE of a partition, run time": (
        f"INSERT OVERWRITE TABLE hp PARTITION (p='x') SELECT {BOOM}", "hp"),
    "Hive serde INSERT OVERWRITE, too few columns": ("INSERT OVERWRITE TABLE hv SELECT 1", "hv"),
    "Hive serde INSERT OVERWRITE, a value that cannot be stored": ("INSERT OVERWRITE TABLE hv SELECT 'str', 'z'",
                                                                   "hv"),
    "Hive serde INSERT OVERWRITE, an unknown column": ("INSERT OVERWRITE TABLE hv (a, zz) SELECT 1, 'z'", "hv"),
}


def texts_of(error: BaseException) -> list[str]:
    """What a caller can read of ``error``: its message, Spark's message parameters, and the project's typed error
    behind it with its cause, their messages and the objects they name."""
    found = [str(error), *map(str, (getattr(error, "getMessageParameters", dict)() or {}).values())]
    typed = statement_error(error)
    for layer in (typed, getattr(typed, "cause", None)):
        if layer is not None:
            found += [str(layer), str(getattr(layer, "name", ""))]
    return found


@pytest.fixture
def tables(clean_spark: Any) -> Any:
    for statement in SETUP:
        clean_spark.sql(statement)
    return clean_spark


@pytest.mark.parametrize("failing", FAILING)
def test_a_failure_while_the_new_version_is_built_names_the_users_table(tables: Any, attached: Any,
                                                                          failing: str) -> None:
    text, table = FAILING[failing]
    attached.session.conf.set("spark.sql.ansi.enabled", "true")
    with pytest.raises(AnalysisException) as raised:
        attached.session.sql(text)
    shown = texts_of(raised.value)
    assert not [line for line in shown if "ddllog_" in line], shown
    assert f"default.{table}" in shown[0] or f"`default`.`{table}`" in shown[0], shown[0]
    assert attached.ddl.binlog_events() == [] and attached.ddl.active_chains() == []


@pytest.mark.parametrize("failing", ["Hive serde INSERT OVERWRITE, too few columns",
                                     "partitioned CREATE OR REPLACE, run time"])
def test_inside_a_transaction_too(tables: Any, attached: Any, failing: str) -> None:
    """The statement fails inside ``START TRANSACTION``: the same error, about the user's table."""
    text, table = FAILING[failing]
    attached.session.conf.set("spark.sql.ansi.enabled", "true")
    attached.session.sql("START TRANSACTION")
    try:
        with pytest.raises(AnalysisException) as raised:
            attached.session.sql(text)
    finally:
        attached.session.sql("ROLLBACK")
    shown = texts_of(raised.value)
    assert not [line for line in shown if "ddllog_" in line], shown
    assert f"default.{table}" in shown[0] or f"`default`.`{table}`" in shown[0], shown[0]
