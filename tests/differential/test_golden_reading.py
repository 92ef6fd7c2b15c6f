"""The golden-file runner reads Spark's inputs as Spark's suite does and names each comparison rightly (texts written
here, not Spark's files; no Spark needed)."""

from __future__ import annotations

from tests.differential.golden_compare import (
    EQUAL,
    ERROR_DIFFERS,
    FAILING_ALIKE,
    NOT_COMPARED,
    ONE_FAILS,
    OUTPUT_DIFFERS,
    STATE_DIFFERS,
    Result,
    answer,
    head,
    kind_of,
)
from tests.differential.golden_files import read_golden
from tests.differential.golden_known import known_as
from tests.differential.refusal_table import refused_form

SCRIPT = """--SET spark.sql.ansi.enabled=true, spark.sql.caseSensitive = false
--CONFIG_DIM1 spark.a=1
--CONFIG_DIM1 spark.a=2
--CONFIG_DIM2 spark.b=x
--CONFIG_DIM2 spark.b=y, spark.c=z
-- a comment; with a semicolon
CREATE TABLE t (a INT) USING parquet; -- after the statement
  -- an indented comment line
INSERT INTO t
VALUES (1);
SELECT 'a\\;b' AS escaped;
--QUERY-DELIMITER-START
/* one; block */
SELECT 1;
--QUERY-DELIMITER-END
CREATE FUNCTION f AS 'test.org.apache.spark.sql.MyDoubleAvg';
SELECT udf(a) FROM t;
;
DROP TABLE t
"""


def test_statements_split_at_semicolons_as_sparks_suite_splits_them() -> None:
    golden = read_golden(SCRIPT, "mine.sql")
    assert [text for _, text in golden.statements] == [
        "CREATE TABLE t (a INT) USING parquet",
        "INSERT INTO t\nVALUES (1)",
        "SELECT 'a\\;b' AS escaped",
        "/* one; block */\nSELECT 1",
        "DROP TABLE t",
    ]
    assert [position for position, _ in golden.statements] == [1, 2, 3, 4, 7]


def test_directives_give_the_sessions_settings_and_the_first_config_combination() -> None:
    golden = read_golden(SCRIPT, "mine.sql")
    assert golden.settings == (("spark.sql.ansi.enabled", "true"), ("spark.sql.caseSensitive", "false"),
                               ("spark.a", "1"), ("spark.b", "x"))
    assert golden.config_sets == 4


def test_what_needs_sparks_test_classes_or_an_import_is_skipped_and_counted() -> None:
    golden = read_golden(SCRIPT, "mine.sql")
    assert dict(golden.skipped) == {"needs a class of Spark's test jar": 1, "needs the suite's test UDF": 1}
    imported = read_golden("--IMPORT other.sql\nSELECT 1;\n", "importing.sql")
    assert imported.statements == () and imported.skipped_file.startswith("imports another input")
    assert read_golden("SELECT 1;", "udf/udf-join.sql").skipped_file


def test_answers_are_compared_without_what_differs_between_two_runs() -> None:
    rows = [("b", "2"), ("a", "1"), ("Created Time", "Sat Nov 28 15:00:00 UTC 2026", ""),
            ("transient_lastDdlTime", "1795880244"), ("Table Properties", "[transient_lastDdlTime=17, p=1]", "")]
    got = answer("SHOW TBLPROPERTIES t", rows)
    assert got[0] == ("Created Time", NOT_COMPARED)
    assert ("transient_lastDdlTime", NOT_COMPARED) in got
    assert ("Table Properties", f"[transient_lastDdlTime={NOT_COMPARED}, p=1]", "") in got
    assert got == tuple(sorted(got)), "a query's rows are compared as a set"
    described = answer("DESC EXTENDED t", [("b", "int", None), ("a", "int", None)])
    assert described == (("b", "int", "NULL"), ("a", "int", "NULL")), "DESCRIBE keeps its order"


def test_each_comparison_is_named_by_what_differs_first() -> None:
    ok, other = Result(True, (("1",),)), Result(True, (("2",),))
    missing, exists = Result(False, condition="TABLE_OR_VIEW_NOT_FOUND"), Result(False, condition="SCHEMA_NOT_FOUND")
    path = [("database default/table t/rows", (), (("1",),))]
    assert kind_of(ok, ok, []) == EQUAL
    assert kind_of(missing, missing, []) == FAILING_ALIKE
    assert kind_of(ok, other, []) == OUTPUT_DIFFERS
    assert kind_of(missing, exists, []) == ERROR_DIFFERS
    assert kind_of(ok, missing, []) == ONE_FAILS
    assert kind_of(ok, ok, path) == STATE_DIFFERS
    assert kind_of(missing, missing, path) == STATE_DIFFERS
    assert head("/* c */ desc  formatted t PARTITION (a=1)") == "DESC FORMATTED T"


def test_documented_refusals_and_known_classes_are_recognised() -> None:
    assert (refused_form("alter table p add partition (k='a') location 'x'") or "").startswith("LOCATION")
    assert refused_form("ALTER TABLE t SET SERDEPROPERTIES ('a'='b')") == \
        "ALTER TABLE ... SET SERDE | SERDEPROPERTIES"
    assert refused_form("CREATE VIEW v (a COMMENT 'x') AS SELECT 1") == "view column comments"
    assert refused_form("CREATE VIEW v AS SELECT 1") is None
    assert (refused_form("DROP TABLE IDENTIFIER(var || 'table')") or "").startswith("IDENTIFIER")
    assert refused_form("DROP TABLE IDENTIFIER('ta' || 'b')") is None
    assert (refused_form('CREATE SCHEMA "s"') or "").startswith("names as double-quoted")
    assert refused_form("CREATE TABLE t (a STRING DEFAULT 'x\"') USING parquet") is None

    class Seen:
        def __init__(self, kind: str, statement: str, plain: Result, atomic: Result) -> None:
            self.kind, self.statement, self.plain, self.atomic = kind, statement, plain, atomic

    tagged = Result(True, (("spark_ddl_log.tag", "x"),))
    assert known_as(Seen(OUTPUT_DIFFERS, "SHOW TBLPROPERTIES t", Result(True), tagged)) == ""  # a table's: a defect
    tagged_view = Result(True, (("Type", "VIEW", ""), ("View Properties", "[spark_ddl_log.view=x]", "")))
    assert known_as(Seen(OUTPUT_DIFFERS, "DESC EXTENDED v", Result(True), tagged_view)) == ""  # a view's too
    plain_desc = Result(True, (("a", "int", ""), ("Location", "file:/w/t", "")))
    built_desc = Result(True, (("a", "int", ""), ("Statistics", "458 bytes, 0 rows", ""),
                               ("Location", "file:/w/ddllog_27_ab12cd_tmp", "")))
    assert "directory its statement wrote" in known_as(Seen(OUTPUT_DIFFERS, "DESC FORMATTED t", plain_desc,
                                                            built_desc))
    assert known_as(Seen(OUTPUT_DIFFERS, "DESC FORMATTED t", plain_desc,
                         Result(True, (("a", "bigint", ""), *built_desc.rows[1:])))) == ""  # another row differs
    refused = Result(False, condition="NOT_SUPPORTED_CHANGE_COLUMN")
    assert known_as(Seen(ONE_FAILS, "ALTER TABLE t CHANGE a a STRING", refused, Result(True))).startswith("documented")
    assert known_as(Seen(ONE_FAILS, "DROP TABLE t", Result(True), refused)) == ""
    v1 = Result(False, condition="UNSUPPORTED_FEATURE.TABLE_OPERATION")
    assert known_as(Seen(ONE_FAILS, "REPLACE TABLE t (a INT) USING csv", v1, Result(True))).startswith("documented")
