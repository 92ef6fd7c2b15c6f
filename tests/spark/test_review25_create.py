"""Regression tests of the second outside review (issue 25) for CREATE TABLE: a routed CREATE does exactly what
Spark does with the same text and session (defects 5, 6, 7, 8, 12 and 14), because the statement as written is what
Spark runs, under the TMP name. Each failed on the code before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL, CatalogError, NoSuchObjectError, SqlParseError
from tests.definitions import table_definition
from tests.spark.sweep_support import user_tables, warehouse_dirs

pytestmark = pytest.mark.spark


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Any) -> Any:
    with AtomicDDL(spark=clean_spark, home=tmp_path / "home") as opened:
        yield opened
    clean_spark.conf.unset("spark.sql.sources.default")


def plain_error(spark: Any, statement: str) -> str | None:
    """The error condition plain Spark gives ``statement`` (None: it runs); whatever it made is dropped again."""
    try:
        spark.sql(statement)
    except Exception as error:  # noqa: BLE001 - the condition is what is compared
        condition = error.getCondition() if hasattr(error, "getCondition") else None
        return str(condition or type(error).__name__)
    return None


@pytest.mark.parametrize("statement", ["CREATE TABLE j (a INT)", "CREATE TABLE j AS SELECT 1 AS a"])
def test_defect5_create_without_using_takes_the_sessions_default_source(ddl, statement):
    ddl.spark.sql("SET spark.sql.sources.default=json")
    ddl.sql(statement)
    assert table_definition(ddl.spark, "default", "j").provider == "json"


UNSUPPORTED_TYPES = ["TIME", "DATETIME", "TEXT", "UUID", "CLOB", "NVARCHAR(3)", "BIT", "INT64", "BLOB",
                     "TIMESTAMPTZ", "DOUBLE PRECISION"]


@pytest.mark.parametrize("type_text", UNSUPPORTED_TYPES)
def test_defect7_a_type_spark_refuses_is_refused_with_sparks_reason_and_nothing_happens(ddl, warehouse, type_text):
    spark = ddl.spark
    expected = plain_error(spark, f"CREATE TABLE plain (a {type_text}) USING parquet")
    assert expected is not None, f"Spark 4.0.1 accepts {type_text} after all"
    before = warehouse_dirs(warehouse)
    for run in (lambda: ddl.sql(f"CREATE TABLE t (a {type_text}) USING parquet"),
                lambda: ddl.create_table("t", schema=f"a {type_text}", using="parquet")):
        with pytest.raises((SqlParseError, CatalogError)) as raised:
            run()
        assert type_text.split("(")[0].split()[-1] in str(raised.value).upper()
    assert "t" not in user_tables(spark) and warehouse_dirs(warehouse) == before
    assert ddl.binlog_events() == [] and ddl.active_chains() == []


def test_defect6_create_table_if_not_exists_over_a_view_does_nothing_as_in_spark(ddl, warehouse):
    spark = ddl.spark
    spark.sql("CREATE VIEW v AS SELECT 1 AS x")
    before, size = warehouse_dirs(warehouse), ddl.log.size
    assert ddl.create_table("v", schema="a INT", if_not_exists=True).done is False
    ddl.sql("CREATE TABLE IF NOT EXISTS v (a INT) USING parquet")
    assert warehouse_dirs(warehouse) == before and ddl.log.size == size, "no TMP table was built"
    assert [tuple(r) for r in spark.table("v").collect()] == [(1,)]
    with pytest.raises(CatalogError, match="is a view"):
        ddl.sql("CREATE TABLE v (a INT) USING parquet")
    assert ddl.log.size == size


def test_defect8_replace_table_of_a_missing_table_fails_as_spark_requires_the_table(ddl, warehouse):
    before = warehouse_dirs(warehouse)
    with pytest.raises(NoSuchObjectError) as raised:
        ddl.sql("REPLACE TABLE nosuch (a INT) USING parquet")
    assert raised.value.name == "default.nosuch"
    assert "nosuch" not in user_tables(ddl.spark) and warehouse_dirs(warehouse) == before
    assert ddl.binlog_events() == []
    ddl.spark.sql("CREATE TABLE nosuch (a INT) USING parquet")
    ddl.sql("REPLACE TABLE nosuch (b STRING) USING parquet")
    assert [f.name for f in table_definition(ddl.spark, "default", "nosuch").fields] == ["b"]
    assert [e.statement for e in ddl.binlog_events()] == ["REPLACE TABLE nosuch (b STRING) USING parquet"]


VALID_FORMS = {
    "not null": "CREATE TABLE t (a INT NOT NULL, b STRING) USING parquet",
    "default": "CREATE TABLE t (a INT DEFAULT 5, b STRING DEFAULT 'x') USING parquet",
    "bucketed and sorted": "CREATE TABLE t (a INT, b STRING) USING parquet CLUSTERED BY (a) SORTED BY (b) "
                           "INTO 4 BUCKETS",
    "options": "CREATE TABLE t (a INT) USING parquet OPTIONS ('compression'='zstd')",
    "hive serde": "CREATE TABLE t (a INT, b STRING) STORED AS ORC",
    "hive partitions": "CREATE TABLE t (a INT) PARTITIONED BY (p STRING COMMENT 'part') STORED AS PARQUET",
    "like using": "CREATE TABLE t LIKE src USING json",
    "ctas without AS": "CREATE TABLE t USING parquet SELECT 1 AS a",
    "every clause": "CREATE TABLE t (a INT COMMENT 'x\\'s', b INT, p INT) USING parquet PARTITIONED BY (p) "
                    "CLUSTERED BY (a) INTO 2 BUCKETS OPTIONS ('k'='v') COMMENT 'c' TBLPROPERTIES ('k'='v')",
}


@pytest.mark.parametrize("form", sorted(VALID_FORMS))
def test_defect12_every_create_form_spark_runs_is_atomic_with_spark_s_definition(ddl, form):
    """The atomic CREATE leaves exactly the definition plain Spark's own statement leaves."""
    spark = ddl.spark
    spark.sql("CREATE TABLE src (a INT, b STRING) USING parquet")
    statement = VALID_FORMS[form]
    spark.sql(statement.replace("CREATE TABLE t ", "CREATE TABLE plain ", 1))
    expected = table_definition(spark, "default", "plain")
    [result] = ddl.sql(statement)
    assert result.kind == "ddl"
    assert table_definition(spark, "default", "t") == expected
    assert [e.statement for e in ddl.binlog_events()] == [statement]


def test_defect12_view_and_function_if_not_exists_are_atomic_and_do_nothing_when_present(ddl):
    spark = ddl.spark
    ddl.sql("CREATE VIEW IF NOT EXISTS v AS SELECT 1 AS x")
    ddl.sql("CREATE VIEW IF NOT EXISTS v AS SELECT 2 AS x")
    assert [tuple(r) for r in spark.table("v").collect()] == [(1,)]
    ddl.sql("CREATE FUNCTION IF NOT EXISTS f(x INT) RETURNS INT RETURN x + 1")
    ddl.sql("CREATE FUNCTION IF NOT EXISTS f(x INT) RETURNS INT RETURN x + 2")
    assert spark.sql("SELECT f(1)").collect()[0][0] == 2
    assert len(ddl.binlog_events()) == 2


REFUSED_BY_SPARK = [
    "CREATE TABLE t (a INT, p INT) PARTITIONED BY (p) USING parquet",  # USING comes first in Spark's grammar
    "CREATE TABLE t (a INT) USING parquet COMMENT 'it''s'",  # '' is no escape in Spark 4.0's COMMENT (4.3: a quote)
    "CREATE TABLE t (a INT) USING parquet COMMENT 'a' COMMENT 'b'",
]


@pytest.mark.parametrize("statement", REFUSED_BY_SPARK)
def test_defect14_text_spark_refuses_is_refused_with_sparks_reason(ddl, statement):
    expected = plain_error(ddl.spark, statement.replace("CREATE TABLE t ", "CREATE TABLE plain ", 1))
    if expected is None:  # the running Spark line parses it after all: then it runs alike through the log
        ddl.sql(f"SELECT 1;\n{statement}")
        assert table_definition(ddl.spark, "default", "t") == table_definition(ddl.spark, "default", "plain")
        return
    with pytest.raises(SqlParseError) as raised:
        ddl.sql(f"SELECT 1;\n{statement}")
    assert raised.value.line == 2 and raised.value.condition == expected
    assert "t" not in user_tables(ddl.spark) and ddl.binlog_events() == []


def test_defect14_text_spark_parses_is_parsed_and_refused_for_sparks_own_reason(ddl):
    spark = ddl.spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    statement = "ALTER TABLE t ADD COLUMN (b CHAR(3) NOT NULL, c INT)"
    assert plain_error(spark, statement) is not None
    with pytest.raises(CatalogError, match="NOT NULL"):
        ddl.sql(statement)
    assert [f.name for f in table_definition(spark, "default", "t").fields] == ["a"]
    ddl.sql("ALTER TABLE t ADD COLUMN (b CHAR(3), c INT DEFAULT 7)")
    spark.sql("CREATE TABLE plain (a INT) USING parquet")
    spark.sql("ALTER TABLE plain ADD COLUMN (b CHAR(3), c INT DEFAULT 7)")
    assert table_definition(spark, "default", "t").fields == table_definition(spark, "default", "plain").fields
