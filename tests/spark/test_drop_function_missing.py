"""DROP FUNCTION of a function that does not exist fails with the running Spark's own condition (Spark 4.0:
UNRESOLVED_ROUTINE, Spark 4.3: ROUTINE_NOT_FOUND; the session profile's ``missing_function_condition``), through
the SQL text and the Python API alike, and logs nothing. Run on both lines (``make smoke-oldest`` runs it on 4.0)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests.spark_lines import DROP_TABLE_DROPS_VIEWS, at_least

pytestmark = pytest.mark.spark


def condition_of(run: Callable[[], Any]) -> str | None:
    try:
        run()
    except Exception as error:  # noqa: BLE001 - the condition is what is compared
        return getattr(error, "condition", None) or getattr(error, "getCondition", lambda: None)()
    return None


def test_drop_function_of_a_missing_function_fails_with_the_running_sparks_condition(clean_spark: Any,
                                                                                     tmp_path: Path) -> None:
    spark = clean_spark
    plain = condition_of(lambda: spark.sql("DROP FUNCTION no_such_fn"))
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        through_sql = condition_of(lambda: ddl.sql("DROP FUNCTION no_such_fn"))
        through_api = condition_of(lambda: ddl.drop_function("no_such_fn"))
        assert ddl.binlog_events() == []
    assert plain == ("ROUTINE_NOT_FOUND" if at_least(spark.version, DROP_TABLE_DROPS_VIEWS) else "UNRESOLVED_ROUTINE")
    assert through_sql == through_api == plain
