"""The SQL front end behaves as plain Spark does: the same statements, run once through ``spark.sql`` and once
through ``AtomicDDL.sql`` on two identical databases, succeed or fail alike and leave the same tables, rows, views,
functions and partitions behind (plain Spark's equivalent where it cannot run a statement on parquet tables: see
:mod:`tests.differential.plain`).

Specifications, each a short script; cases that fail today because of a product defect are strict xfails naming it,
so they turn red once the defect is fixed (then drop the mark). A few random scripts of the generator run too;
``make differential`` runs it for a long time and shrinks what it finds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.differential.grammar import PRODUCTIONS, Writer, generate
from tests.differential.harness import ScriptResult, Sides, run_script
from tests.differential.outcomes import classify, documented_difference, documented_refusal, failed, succeeded
from tests.differential.reading import steps_of
from tests.differential.refusal_table import REFUSAL_TABLE, refused_form
from tests.differential.refused_forms import FORMS, LOCATIONS
from tests.differential.script import format_script

T = "CREATE TABLE t (a INT, b STRING COMMENT 'the b') USING parquet"
V = "CREATE VIEW v AS SELECT 1 AS a"


def defect(what: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"defect: {what}")


def case(name: str, *statements: str, marks: Any = ()) -> Any:
    return pytest.param(list(statements), id=name, marks=marks)


AGREES = [
    case("create or replace reads the old table while it builds the new one", T,
         "INSERT INTO t VALUES (1, 'x'), (2, '7')",
         "CREATE OR REPLACE TABLE t USING parquet AS SELECT a + 1 AS a, b FROM t",
         "REPLACE TABLE t (z INT) USING parquet"),
    case("rename table swaps names at once and undoes all when one fails", T,
         "CREATE TABLE u (c INT) USING parquet", "INSERT INTO t VALUES (1, 'x')",
         "RENAME TABLE t TO x, u TO t, x TO u", "RENAME TABLE t TO x, u TO x"),
    case("drop table of several names checks every name before it drops any", T, V, "DROP TABLE t, nope",
         "DROP TABLE t, v", "DROP VIEW v, t", "DROP TABLE IF EXISTS t, nope"),
    case("insert overwrite replaces what the session's partition overwrite mode says",
         "CREATE TABLE t (a INT, p INT) USING parquet PARTITIONED BY (p)", "INSERT INTO t VALUES (1, 1), (2, 2)",
         "INSERT OVERWRITE t PARTITION (p = 1) VALUES (5)", "SET spark.sql.sources.partitionOverwriteMode=dynamic",
         "INSERT OVERWRITE t PARTITION (p) VALUES (6, 2), (7, 3)",
         "INSERT OVERWRITE t PARTITION (p = 1) IF NOT EXISTS VALUES (8)",
         "SET spark.sql.sources.partitionOverwriteMode=static", "INSERT OVERWRITE t SELECT 9, 9"),
    case("views, functions and databases", "CREATE TABLE t (a INT) USING parquet",
         "CREATE VIEW v AS SELECT a FROM t", "CREATE OR REPLACE VIEW v AS SELECT a + 1 AS a FROM t",
         "ALTER VIEW v RENAME TO w", "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1",
         "CREATE OR REPLACE FUNCTION f(x INT) RETURNS INT RETURN x + 2", "CREATE DATABASE «x1»",
         "CREATE TABLE «x1».t (a INT) USING parquet", "DROP DATABASE «x1»", "DROP DATABASE «x1» CASCADE",
         "DROP FUNCTION f", "DROP VIEW IF EXISTS w, nope"),
    case("temporary views shadow names as in Spark; the forms README refuses are refused", T,
         "CREATE TEMPORARY VIEW t AS SELECT 1 AS z", "INSERT OVERWRITE t SELECT 2", "DROP TABLE t", "DROP TABLE t",
         "CREATE TEMPORARY VIEW tv AS SELECT 1 AS z", "CREATE TABLE u LIKE tv", "DROP TABLE tv, u"),
    case("every INSERT form Spark parses: a column list, BY NAME, a leading WITH or FROM (routed since 2026-12-04)", T,
         "CREATE TABLE pt (a INT, b STRING, p INT) USING parquet PARTITIONED BY (p)",
         "INSERT INTO t VALUES (1, 'x')", "INSERT INTO pt VALUES (1, 'x', 1), (2, 'y', 2)",
         "INSERT OVERWRITE t (b, a) VALUES ('q', 6)", "INSERT OVERWRITE t (a) SELECT 7",
         "INSERT OVERWRITE t BY NAME SELECT 'r' AS b, 8 AS a",
         "INSERT OVERWRITE pt PARTITION (p = 1) (b, a) SELECT 'z', 5",
         "WITH s AS (SELECT a + 1 AS a, b FROM pt) INSERT OVERWRITE t SELECT * FROM s",
         "WITH s AS (SELECT 4 AS a) INSERT INTO t (a) SELECT a FROM s",
         "FROM t INSERT OVERWRITE TABLE pt PARTITION (p = 2) SELECT a, b WHERE a > 0",
         "FROM t INSERT INTO t SELECT a * 10, b",
         "WITH s AS (SELECT 1 AS a) INSERT OVERWRITE t (a, b) WITH u AS (SELECT a, 'n' AS b FROM s) SELECT * FROM u",
         "INSERT OVERWRITE pt BY NAME SELECT 3 AS p, 'w' AS b, 9 AS a",
         "INSERT OVERWRITE t (a, nope) SELECT 1, 'x'", "INSERT OVERWRITE t (a, a) SELECT 1, 2",
         "INSERT OVERWRITE t BY NAME SELECT 1 AS nope"),
    case("several partitions in one ADD or DROP and a DROP of some partition columns (routed since 2026-12-04)",
         "CREATE TABLE pq (a INT, p INT, q STRING) USING parquet PARTITIONED BY (p, q)",
         "CREATE TABLE hq (a INT) PARTITIONED BY (d STRING, h INT) STORED AS PARQUET",
         "INSERT INTO pq VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'x')",
         "INSERT INTO hq VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 1)",
         "ALTER TABLE pq ADD PARTITION (p = 3, q = 'x') PARTITION (P = 3, q = 'y')",
         "ALTER TABLE pq ADD PARTITION (p = 4, q = 'x') PARTITION (p = 3, q = 'x')",
         "ALTER TABLE pq ADD IF NOT EXISTS PARTITION (p = 4, q = 'x') PARTITION (p = 3, q = 'x')",
         "ALTER TABLE pq ADD PARTITION (p = 5)", "ALTER TABLE pq DROP PARTITION (q = 'x')",
         "ALTER TABLE pq DROP PARTITION (p = 1), PARTITION (p = 9)",
         "ALTER TABLE pq DROP IF EXISTS PARTITION (p = '01'), PARTITION (p = 9), PARTITION (zz = 1)",
         "ALTER TABLE pq DROP IF EXISTS PARTITION (p = '01'), PARTITION (p = 9) PURGE",
         "ALTER TABLE hq DROP PARTITION (h = 1), PARTITION (d = 'a', h = 2)", "ALTER TABLE hq DROP PARTITION (h = 1)",
         "ALTER TABLE t DROP IF EXISTS PARTITION (a = 1), PARTITION (a = 2)"),
    case("TRUNCATE of some partitions empties those it matches, keeps their records (routed since 2026-12-04)", T,
         "CREATE TABLE pq (a INT, p INT, q STRING) USING parquet PARTITIONED BY (p, q)",
         "CREATE TABLE hq (a INT) PARTITIONED BY (d STRING, h INT) STORED AS PARQUET",
         "INSERT INTO pq VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'x'), (4, 3, NULL)",
         "INSERT INTO hq VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 1)", "ALTER TABLE pq ADD PARTITION (p = 5, q = 'e')",
         "TRUNCATE TABLE pq PARTITION (p = 1, q = 'x')", "TRUNCATE TABLE pq PARTITION (q = 'x')",
         "TRUNCATE TABLE pq PARTITION (p = '02')", "TRUNCATE TABLE pq PARTITION (p = 8)",
         "TRUNCATE TABLE pq PARTITION (p = 8, q = 'x')", "INSERT INTO pq VALUES (5, 1, 'x')",
         "TRUNCATE TABLE pq PARTITION (Q = 'x')", "TRUNCATE TABLE hq PARTITION (h = 1)",
         "TRUNCATE TABLE hq PARTITION (d = 'a', h = 2)", "TRUNCATE TABLE t PARTITION (a = 1)",
         "TRUNCATE TABLE pq PARTITION (zz = 1)", "TRUNCATE TABLE pq PARTITION (p = 3)",
         "CREATE TABLE odd (a INT, s STRING) USING parquet PARTITIONED BY (s)",
         "INSERT INTO odd VALUES (1, 'a/b'), (2, 'x=y'), (3, 'sp ace'), (4, 'ü%'), (5, NULL)",
         "TRUNCATE TABLE odd PARTITION (s = 'x=y')", "TRUNCATE TABLE odd PARTITION (s = 'a/b')",
         "ALTER TABLE odd DROP PARTITION (s = 'sp ace'), PARTITION (s = 'ü%')"),
    case("a type change converts the rows, a value that does not convert fails it", T,
         "INSERT INTO t VALUES (1, 'x')", "ALTER TABLE t ALTER COLUMN a TYPE BIGINT",
         "ALTER TABLE t ALTER COLUMN b TYPE INT", "ALTER TABLE t DROP COLUMN a"),
]

EXTERNAL_INSERT = "INSERT INTO located VALUES (3, 'z')"
"""Refused by the object, not the form: an external table (docs/guarantees.md, External tables)."""
REFUSED_FORMS = [
    "CREATE TABLE pt (a INT, b STRING, p INT) USING parquet PARTITIONED BY (p)",
    "INSERT INTO pt VALUES (1, 'x', 1), (2, 'y', 2)", T, "INSERT INTO t VALUES (1, 'x')",
    "LOAD DATA LOCAL INPATH '/nonexistent/differential.parquet' INTO TABLE t",
    "MSCK REPAIR TABLE pt", "ALTER TABLE pt RECOVER PARTITIONS",
    f"INSERT OVERWRITE DIRECTORY '{LOCATIONS}/«»-directory' USING parquet SELECT * FROM t",
    "EXECUTE IMMEDIATE 'SELECT COUNT(*) FROM t'",
    "FROM t INSERT INTO t SELECT * INSERT INTO t SELECT a + 1, b",
    f"CREATE TABLE located (a INT, b STRING) USING parquet LOCATION '{LOCATIONS}/«»-located'",
    EXTERNAL_INSERT,
    "ALTER TABLE pt PARTITION (p = 1) RENAME TO PARTITION (p = 3)",
    "ALTER TABLE t SET SERDEPROPERTIES ('field.delim' = ',')",
    "INSERT OVERWRITE pt PARTITION (p = NULL) VALUES (5, 'n')",
    "ALTER TABLE t ALTER COLUMN a DROP NOT NULL",
    "COMMENT ON DATABASE «» IS 'the differential run'", "ALTER DATABASE «» SET DBPROPERTIES ('team' = 'etl')",
    "CREATE VIEW v (x COMMENT 'one') AS SELECT 1 AS one",
    "TRUNCATE TABLE IDENTIFIER(concat('«».', 't'))",
    "SET spark.sql.ansi.enabled=true", "SET spark.sql.ansi.doubleQuotedIdentifiers=true",
    "INSERT INTO \"t\" VALUES (4, 'w')", "SET spark.sql.ansi.doubleQuotedIdentifiers=false",
    "ALTER TABLE t ALTER COLUMN a.x COMMENT 'nested'",
    "CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x + 1",
    "CREATE FUNCTION g() RETURNS TABLE (x INT) RETURN SELECT 1 AS x",
]
"""One statement (or two) of every form of the refusal table, about objects that exist: each refused, changing
nothing, then run with ``allow_non_atomic``, and then as on plain Spark."""


def test_every_form_of_the_refusal_table_is_refused_and_then_runs_as_on_plain_spark(sides: Sides) -> None:
    assert {refused_form(statement) for statement in REFUSED_FORMS} - {None} == {form for form, _ in REFUSAL_TABLE}
    result = run(sides, REFUSED_FORMS)
    assert result.differences == [], report(result)
    assert [text for text in REFUSED_FORMS if refused_form(text) or text == EXTERNAL_INSERT] == sides.refused


DEFECTS = [
    case("create table without USING follows spark.sql.sources.default", "SET spark.sql.sources.default=json",
         "CREATE TABLE t (a INT)", "CREATE TABLE u AS SELECT 1 AS a"),
    case("types Spark refuses are refused", *(f"CREATE TABLE t (a {bad}) USING parquet" for bad in (
        "TIME", "DATETIME", "TEXT", "BIT", "INT64", "TIMESTAMPTZ", "DOUBLE PRECISION"))),
    case("NOT NULL", "CREATE TABLE t (a INT NOT NULL, p INT NOT NULL) USING parquet PARTITIONED BY (p)"),
    case("DEFAULT", "CREATE TABLE t (a INT DEFAULT 7, b STRING) USING parquet"),
    case("CLUSTERED BY and SORTED BY",
         "CREATE TABLE t (a INT, b STRING) USING parquet CLUSTERED BY (a) SORTED BY (b) INTO 4 BUCKETS"),
    case("OPTIONS", "CREATE TABLE t (a INT) USING parquet OPTIONS ('compression' = 'snappy')"),
    case("LIKE with USING or TBLPROPERTIES", T, "CREATE TABLE u LIKE t USING json",
         "CREATE TABLE w LIKE t TBLPROPERTIES ('k' = 'v')"),
    case("CREATE VIEW IF NOT EXISTS", V, "CREATE VIEW IF NOT EXISTS v AS SELECT 2 AS a"),
    case("CREATE FUNCTION IF NOT EXISTS", "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1",
         "CREATE FUNCTION IF NOT EXISTS f(x INT) RETURNS INT RETURN x + 2"),
    case("REPLACE TABLE of a missing table fails", "REPLACE TABLE t (a INT) USING parquet"),
    case("CREATE TABLE IF NOT EXISTS over a view does nothing", V,
         "CREATE TABLE IF NOT EXISTS v (a INT) USING parquet"),
    case("a type change fails on a value that does not convert with ANSI off too", T,
         "INSERT INTO t VALUES (1, 'x')", "SET spark.sql.ansi.enabled=false", "ALTER TABLE t ALTER COLUMN b TYPE INT"),
    case("a type change keeps the column comment", T, "ALTER TABLE t ALTER COLUMN b TYPE INT"),
    case("a type change to VARCHAR keeps VARCHAR", T, "ALTER TABLE t ALTER COLUMN b TYPE VARCHAR(3)"),
    case("rebuilds keep the bucket spec", "CREATE TABLE t (a INT, b STRING, c INT) USING parquet CLUSTERED BY (a) "
         "INTO 2 BUCKETS", "ALTER TABLE t DROP COLUMN c"),
    case("PARTITIONED BY before USING is a syntax error",
         "CREATE TABLE t (a INT, p INT) PARTITIONED BY (p) USING parquet"),
    case("SQL-standard quote doubling is a syntax error", "CREATE TABLE t (a INT) USING parquet COMMENT 'it''s'"),
    case("ADD COLUMN with a parenthesised list", T, "ALTER TABLE t ADD COLUMN (c CHAR(3) COMMENT 'x', d INT)"),
    # found by this harness
    case("rebuilds keep empty partitions", "CREATE TABLE t (a INT, p INT) USING parquet PARTITIONED BY (p)",
         "ALTER TABLE t ADD PARTITION (p = 3)", "ALTER TABLE t ALTER COLUMN a TYPE BIGINT"),
    case("property lists without '='", T, "ALTER TABLE t SET TBLPROPERTIES ('k' 'v')"),
    case("CHANGE COLUMN a a TYPE COMMENT", T, "ALTER TABLE t CHANGE COLUMN a a INT COMMENT 'new'"),
    case("UNSET of a property that is not set", T, "ALTER TABLE t UNSET TBLPROPERTIES ('nope')"),
    case("view properties", "CREATE VIEW v TBLPROPERTIES ('k' = 'v') AS SELECT 1 AS a",
         "ALTER VIEW v SET TBLPROPERTIES ('k' = 'w')"),
    case("a view where a table is expected, and the other way round", V, "INSERT OVERWRITE v SELECT 2",
         "TRUNCATE TABLE v", "CREATE OR REPLACE TABLE v (a INT) USING parquet"),
    case("CREATE TABLE IF NOT EXISTS t LIKE a missing table", T, "CREATE TABLE IF NOT EXISTS t LIKE nope"),
    case("DROP TABLE ... PURGE", T, "DROP TABLE t PURGE"),
    case("a type change to CHAR(3) fails on a longer value", T, "INSERT INTO t VALUES (1, 'abcd')",
         "ALTER TABLE t ALTER COLUMN b TYPE CHAR(3)"),
    case("a column named twice", "CREATE TABLE t (a INT, A INT) USING parquet"),
    case("a partition value that does not convert to the column's type", "CREATE TABLE t (a INT, p INT) USING "
         "parquet PARTITIONED BY (p)", "ALTER TABLE t DROP IF EXISTS PARTITION (p = 'y')",
         "ALTER TABLE t DROP PARTITION (p = 'y')"),
    case("INSERT OVERWRITE of a table from itself", T, "INSERT INTO t VALUES (1, 'x')",
         "INSERT OVERWRITE t SELECT * FROM t"),
    case("a rename to a name the catalog cannot store, also of a table the project rebuilt",
         "CREATE TABLE t2 (c STRUCT<x:INT,y:STRING>, p INT) USING parquet PARTITIONED BY (p)",
         "ALTER TABLE t2 RENAME TO `my table`", "ALTER TABLE t2 ALTER COLUMN c TYPE STRING",
         "ALTER TABLE t2 RENAME TO `my table`"),
]

SEEDS = [pytest.param(5, id="seed 5"), pytest.param(12, id="seed 12"),
         pytest.param(1, id="seed 1")]


@pytest.fixture
def sides(clean_spark: Any, tmp_path: Path) -> Iterator[Sides]:
    both = Sides(clean_spark, tmp_path)
    yield both
    both.close()


@pytest.fixture
def attached_sides(clean_spark: Any, tmp_path: Path) -> Iterator[Sides]:
    """The project's side as ``spark.sql`` on an attached session (README "Attached sessions")."""
    both = Sides(clean_spark, tmp_path, attached=True)
    yield both
    both.close()


def report(result: ScriptResult) -> str:
    lines = []
    for difference, before in result.differences:
        lines += [difference.describe(), "after:", format_script(before)]
    return "\n".join(lines)


def run(sides: Sides, statements: list[str]) -> ScriptResult:
    return run_script(sides, steps_of(statements), keep_going=False)


@pytest.mark.parametrize("statements", AGREES)
def test_the_front_end_agrees_with_plain_spark(sides: Sides, statements: list[str]) -> None:
    result = run(sides, statements)
    assert result.differences == [], report(result)


@pytest.mark.parametrize("statements", DEFECTS)
def test_known_differences_are_gone(sides: Sides, statements: list[str]) -> None:
    result = run(sides, statements)
    assert result.differences == [], report(result)


def test_a_replace_that_changes_the_partition_columns_after_an_earlier_replace_runs_as_plain_spark_does(
        sides: Sides) -> None:
    """The rename path once needed ``<db>/t``, where the first replace kept the table's previous version, and was
    refused there until RELEASE TABLE NAME; the new table is now made at a directory of its own, so it runs as
    plain Spark's DROP + CREATE does."""
    result = run(sides, [T, "INSERT OVERWRITE t SELECT 1, 'x'",
                         "CREATE OR REPLACE TABLE t (a INT, b STRING) USING parquet PARTITIONED BY (b)"])
    assert result.differences == [] and result.documented == [], report(result)


def test_a_create_of_a_name_the_catalog_cannot_store_is_refused_every_time_where_plain_spark_leaves_data(
        sides: Sides) -> None:
    """Plain Spark's CTAS of `my table` fails after writing its data, so its next CREATE of that name fails with
    LOCATION_ALREADY_EXISTS; the project refuses the name before it writes anything (README, differences)."""
    result = run(sides, ["CREATE TABLE t1 (a INT) USING parquet",
                         "CREATE TABLE `my table` USING json AS SELECT 1 AS a",
                         "CREATE TABLE IF NOT EXISTS `my table` AS SELECT * FROM t1"])
    assert result.differences == [], report(result)
    assert [d.documented.split(" leaves ")[0] for d in result.documented] == [
        "plain Spark's failed CREATE TABLE AS SELECT of a name its catalog cannot store"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_script_behaves_as_on_plain_spark(sides: Sides, seed: int) -> None:
    result = run_script(sides, generate(seed, 10), keep_going=False)
    assert result.differences == [], f"{report(result)}\n(python -m tests.differential.run --seed {seed} ...)"


ATTACHED_LONG = bool(os.environ.get("DDL_LOG_ATTACHED_LONG"))
"""``make test-attached``: every case and seed through an attached session too (``make test``: the AGREES cases and
one seed)."""


@pytest.mark.parametrize("statements", AGREES + (DEFECTS if ATTACHED_LONG else []))
def test_spark_sql_on_an_attached_session_agrees_with_plain_spark(attached_sides: Sides,
                                                                   statements: list[str]) -> None:
    result = run(attached_sides, statements)
    assert result.differences == [], report(result)


@pytest.mark.skipif(not ATTACHED_LONG, reason="make test-attached runs it (make test: the same forms through "
                                              "AtomicDDL.sql)")
def test_every_form_of_the_refusal_table_on_an_attached_session_is_refused_and_then_runs_as_on_plain_spark(
        attached_sides: Sides) -> None:
    result = run(attached_sides, REFUSED_FORMS)
    assert result.differences == [], report(result)
    assert [text for text in REFUSED_FORMS if refused_form(text) or text == EXTERNAL_INSERT] == attached_sides.refused


@pytest.mark.parametrize("seed", SEEDS if ATTACHED_LONG else SEEDS[:1])
def test_a_random_script_through_an_attached_session_behaves_as_on_plain_spark(attached_sides: Sides,
                                                                              seed: int) -> None:
    result = run_script(attached_sides, generate(seed, 10), keep_going=False)
    assert result.differences == [], f"{report(result)}\n(python -m tests.differential.run --attached --seed {seed})"


def test_a_seed_always_writes_the_same_script() -> None:
    assert generate(7, 40) == generate(7, 40)
    assert generate(7, 40) != generate(8, 40)


def test_the_grammar_writes_every_production_and_mostly_about_existing_objects() -> None:
    written = {step.production for seed in range(30) for step in generate(seed, 40)}
    expected = {"create_table", "create_or_replace", "replace_table", "insert_into", "insert_overwrite", "truncate",
                "alter_properties", "add_columns", "column_comment", "column_type", "drop_columns", "add_partition",
                "drop_partition", "rename", "rename_many", "drop_table", "drop_many", "create_view", "alter_view",
                "drop_view", "create_function", "drop_function", "database", "use", "set", "documented"}
    assert expected <= written, expected - written
    assert len(PRODUCTIONS) == len({name for name, _, _ in PRODUCTIONS})


def test_the_grammar_writes_a_statement_of_every_form_of_the_refusal_table() -> None:
    writer = Writer(3)
    for _ in range(40):  # tables, partitioned ones among them, for the forms to be about
        writer.step()
    written = {refused_form(form(writer).text) for form in FORMS for _ in range(25)}
    assert written == {form for form, _ in REFUSAL_TABLE}
    assert "documented" in {step.production for seed in range(30) for step in generate(seed, 40)}


def test_only_the_forms_readme_documents_may_be_refused() -> None:
    assert (documented_refusal("MSCK REPAIR TABLE t") or "").startswith("MSCK")
    assert documented_refusal("LOAD DATA LOCAL INPATH '/x' INTO TABLE t") == "LOAD DATA"
    assert (documented_refusal("ALTER TABLE t SET SERDEPROPERTIES ('k' = 'v')")
            == "ALTER TABLE ... SET SERDE | SERDEPROPERTIES")
    assert documented_refusal("INSERT OVERWRITE t PARTITION (p = NULL) SELECT 1") is not None
    assert documented_refusal("CREATE TABLE t (a INT) USING parquet LOCATION '/x'") is not None
    assert documented_refusal("CREATE TABLE u LIKE tv", temp_views={"tv"}) is not None
    assert documented_refusal("DROP TABLE tv, u", temp_views={"tv"}, relations=["tv", "u"]) is not None
    for spark_runs_it in ("DROP TABLE t PURGE", "CREATE TABLE t (a INT) USING parquet OPTIONS ('k' = 'v')",
                          "ALTER VIEW v SET TBLPROPERTIES ('k' = 'v')", "CREATE TABLE u LIKE t USING json",
                          "TRUNCATE TABLE t", "TRUNCATE TABLE t PARTITION (p = 1)",
                          "ALTER TABLE t DROP PARTITION (p = 1), PARTITION (p = 2)",
                          "ALTER TABLE t ADD PARTITION (p = 1) PARTITION (p = 2)"):
        assert documented_refusal(spark_runs_it, temp_views={"tv"}) is None, spark_runs_it


def test_differences_readme_documents_are_told_apart() -> None:
    refused = failed("other:leftover files", "LeftoverFilesError: ... holds a replaced version of db.t kept until ...")
    assert documented_difference("RENAME TABLE u TO t", succeeded(), refused, []) is None  # it moves aside now
    held = failed("StatementFailedError", "... where a previous version of db.t is kept until ...")
    assert documented_difference("CREATE OR REPLACE TABLE t (a INT) PARTITIONED BY (a)", succeeded(), held,
                                 []) is not None
    assert documented_difference("CREATE OR REPLACE TABLE t (a INT)", succeeded(), refused, []) is None
    spark_refuses = failed("refused", "[UNSUPPORTED_OVERWRITE.TABLE] Can't overwrite the target",
                           "UNSUPPORTED_OVERWRITE")
    overwrite = "INSERT OVERWRITE TABLE t SELECT * FROM t"
    assert documented_difference(overwrite, spark_refuses, succeeded(), []) is not None
    assert documented_difference(overwrite, succeeded(), spark_refuses, []) is None
    assert documented_difference("TRUNCATE TABLE t", spark_refuses, succeeded(), []) is None


def test_a_broken_view_renamed_to_its_own_name_is_a_documented_difference() -> None:
    plain = failed("other:INCOMPATIBLE_VIEW_SCHEMA_CHANGE", "...", "INCOMPATIBLE_VIEW_SCHEMA_CHANGE",
                   "INCOMPATIBLE_VIEW_SCHEMA_CHANGE")
    ours = failed("exists", "ObjectExistsError: v1 already exists", "ObjectExistsError", "TABLE_OR_VIEW_ALREADY_EXISTS")
    assert documented_difference("ALTER VIEW v1 RENAME TO v1", plain, ours, []) is not None
    assert documented_difference("ALTER VIEW v1 RENAME TO v1", ours, ours, []) is None


def test_errors_are_compared_by_class() -> None:
    from ddl_log import CatalogError, NoSuchObjectError, StatementFailedError

    missing = NoSuchObjectError("table db.t does not exist", "db.t")
    assert classify(missing).classes == {"missing"}
    assert classify(StatementFailedError("DROP TABLE", "db.t", missing)).classes == {"missing"}
    assert classify(CatalogError("db.v is a view; use DROP VIEW", "db.v")).classes == {"refused"}
    assert classify(RuntimeError("?")).classes == {"other:RuntimeError"}


def test_failures_of_one_class_agree_only_with_the_same_spark_condition() -> None:
    from ddl_log import NoSuchObjectError, StatementFailedError

    table = NoSuchObjectError.relation("table db.t does not exist", "db.t")
    database = NoSuchObjectError.database("database db does not exist", "db")
    assert classify(StatementFailedError("DROP TABLE", "db.t", table)).condition == "TABLE_OR_VIEW_NOT_FOUND"
    assert classify(table).agrees(classify(table))
    assert not classify(table).agrees(classify(database))  # both "missing", but not what Spark would say
    emulated = failed("missing", "plain Spark has no such statement")
    assert emulated.condition is None and emulated.agrees(classify(database))
