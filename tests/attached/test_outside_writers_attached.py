"""A writer outside the log's locks (a session of the same Spark without the extension, as another cluster or job on
the same metastore would be) drops the table and makes its own under the name while a statement issued on an
attached session builds the table's new version. The caller of ``spark.sql`` (or of a DataFrame writer) gets Spark's
``AnalysisException`` naming the change, the project's ``ConcurrentChangeError`` behind it, and the other writer's
table is left whole: the same outcome as through the Python API (``tests/spark/test_outside_writers.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from ddl_log import ConcurrentChangeError, StatementFailedError
from ddl_log.frontends.extension import statement_error
from storage import crashpoints
from tests.spark.sweep_support import assert_clean_log

pytestmark = pytest.mark.spark

CALLS: dict[str, Callable[[Any], Any]] = {
    "spark.sql CREATE OR REPLACE AS SELECT":
        lambda s: s.sql("CREATE OR REPLACE TABLE t USING parquet AS SELECT a + 100 AS a, b FROM t"),
    "spark.sql INSERT OVERWRITE": lambda s: s.sql("INSERT OVERWRITE t SELECT a + 100, b FROM t"),
    "spark.sql TRUNCATE": lambda s: s.sql("TRUNCATE TABLE t"),
    "saveAsTable overwrite":
        lambda s: s.range(3).selectExpr("CAST(id AS INT) AS a", "'new' AS b").write.mode("overwrite").saveAsTable("t"),
    "insertInto overwrite":
        lambda s: s.range(3).selectExpr("CAST(id AS INT) AS a", "'new' AS b").write.insertInto("t", overwrite=True),
}


def concurrent_change(error: BaseException) -> BaseException | None:
    """The ``ConcurrentChangeError`` behind the Spark exception, wherever the engine wrapped it."""
    typed = statement_error(error)
    if isinstance(typed, StatementFailedError):
        typed = typed.cause
    return typed if isinstance(typed, ConcurrentChangeError) else None


@pytest.mark.parametrize("call", CALLS)
def test_a_table_plain_spark_makes_under_the_name_meanwhile_fails_the_attached_statement_untouched(
        spark: Any, attached: Any, call: str) -> None:
    spark.sql("CREATE TABLE t (a INT, b STRING) USING parquet")
    spark.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    committed = attached.ddl.binlog_events()
    acted: list[str] = []

    def plain_spark() -> None:
        spark.sql("DROP TABLE t")
        spark.sql("CREATE TABLE t USING parquet AS SELECT 'someone else' AS who")
        acted.append("done")

    with crashpoints.acting("replace.exchange.before", plain_spark), pytest.raises(AnalysisException) as raised:
        CALLS[call](attached.session)
    assert acted == ["done"], "the statement did not reach its exchange"
    assert concurrent_change(raised.value) is not None, raised.value
    assert "changed outside the DDL log" in str(raised.value)
    assert "Traceback" not in str(raised.value)
    assert [tuple(row) for row in spark.table("t").collect()] == [("someone else",)]
    assert attached.ddl.active_chains() == [] and attached.ddl.binlog_events() == committed
    assert attached.ddl.pending_deletions() == []
    assert_clean_log(attached.ddl)
