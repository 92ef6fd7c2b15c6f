"""A type the running Spark parses but keeps off by a session setting (Spark 4.1+'s ``TIME``, off while
``spark.sql.timeType.enabled`` is false) is refused before anything is logged, with Spark's own condition: plain
Spark's analyzer passes such a CREATE and only running it fails, so the project says then what Spark says at the end.
On Spark 4.0, which does not parse ``TIME``, the same statements are refused by the parser alike. With the setting on,
the project does what plain Spark does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ddl_log import AtomicDDL, DDLLogError
from tests.spark.sweep_support import user_tables
from tests.spark_lines import SAVE_AS_V1_TABLE_PLANNED, at_least

pytestmark = pytest.mark.spark

FORMS = [
    "CREATE TABLE {t} (a TIME, b INT) USING parquet",
    "CREATE TABLE {t} (a STRUCT<x: TIME>) USING parquet",
    "CREATE TABLE {t} (a ARRAY<TIME>, b INT) USING orc PARTITIONED BY (b)",
]
HIVE_SERDE = "CREATE TABLE {t} (a ARRAY<TIME>) STORED AS PARQUET"
"""A Hive serde table of such a type fails on its Hive types when it runs (another condition): the same condition as
plain Spark, nothing changed (the statement's chain is undone)."""
SETTING = "spark.sql.timeType.enabled"


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Any) -> Iterator[AtomicDDL]:
    with AtomicDDL(spark=clean_spark, home=tmp_path / "home") as opened:
        yield opened
    if _has_setting(clean_spark):
        clean_spark.conf.unset(SETTING)


def _has_setting(spark: Any) -> bool:
    return at_least(spark.version, SAVE_AS_V1_TABLE_PLANNED)


def plain_condition(spark: Any, statement: str) -> str | None:
    try:
        spark.sql(statement)
    except Exception as error:  # noqa: BLE001 - the condition is what is compared
        return str(error.getCondition()) if hasattr(error, "getCondition") else type(error).__name__
    return None


@pytest.mark.parametrize("form", FORMS)
def test_a_type_the_session_keeps_off_is_refused_before_anything_is_logged_with_sparks_condition(ddl, form):
    spark = ddl.spark
    expected = plain_condition(spark, form.format(t="plain"))
    assert expected is not None, "plain Spark created a table of a type it keeps off"
    log_size = ddl.log.size
    with pytest.raises(DDLLogError) as raised:
        ddl.sql(form.format(t="mine"))
    assert raised.value.condition == expected
    assert "mine" not in user_tables(spark)
    assert ddl.log.size == log_size, "the statement was logged before it was refused"
    assert ddl.binlog_events() == [] and ddl.active_chains() == []


def test_a_hive_serde_table_of_such_a_type_fails_with_sparks_condition_and_changes_nothing(ddl):
    spark = ddl.spark
    expected = plain_condition(spark, HIVE_SERDE.format(t="plain"))
    assert expected is not None
    with pytest.raises(DDLLogError) as raised:
        ddl.sql(HIVE_SERDE.format(t="mine"))
    assert raised.value.condition == expected
    assert "mine" not in user_tables(spark)
    assert ddl.binlog_events() == [] and ddl.active_chains() == []


@pytest.mark.parametrize("form", FORMS[:2])
def test_with_the_setting_on_the_project_does_what_plain_spark_does(ddl, form):
    spark = ddl.spark
    if not _has_setting(spark):
        pytest.skip("Spark 4.0 has no TIME type to turn on")
    spark.conf.set(SETTING, "true")
    expected = plain_condition(spark, form.format(t="plain"))
    try:
        ddl.sql(form.format(t="mine"))
        got = None
    except DDLLogError as error:
        got = error.condition
    assert got == expected
    assert ("mine" in user_tables(spark)) == (expected is None)
