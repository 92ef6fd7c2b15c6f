"""The SQL front end's reading and routing, against a fake engine that records the typed statements it is asked to
run (real Spark behaviour of each statement is tested elsewhere): every route, pass-through, unsupported forms,
script splitting, parse errors. Each route is checked down to the typed statement it becomes, compared with the one
the Python API's constructor makes of the same arguments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from actions.results import StatementResult
from ddl_log.engine import alter_ops
from ddl_log.engine.alter import AlterTable
from ddl_log.engine.create_statements import CreateOrReplaceTable, CreateTable, InsertOverwrite, TruncateTable
from ddl_log.engine.history_statements import DescribeHistory, ShowTablesDropped
from ddl_log.engine.insert import InsertInto
from ddl_log.engine.kind_replace import CreateOrReplaceAnyKind
from ddl_log.engine.tables import CreateDatabase, DropDatabase, DropTables, RenameTables
from ddl_log.engine.typed import Statement
from ddl_log.engine.version_statements import RestoreTable, UndropTable
from ddl_log.engine.views import AlterView, CreateFunction, CreateView, DropFunction, DropViews, RenameView
from ddl_log.frontends.sql import (
    SqlParseError,
    UnsupportedStatementError,
    run_sql,
    split_statements,
)
from storage.catalogs.interface import TableSpec
from storage.catalogs.names import TableName


class FakeFrame:
    def __init__(self, text: str, rows: list[Any] | None = None) -> None:
        self.text = text
        self.columns = ["text"]
        self.rows = rows or []

    def collect(self) -> list[Any]:
        return self.rows


@attrs.frozen
class FakeFunction:
    name: str
    isTemporary: bool  # noqa: N815 - pyspark's name


class FakeConf:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)


class FakeSpark:
    """Statements run (``statements``), and what the front end asked to resolve names (``probes``)."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.probes: list[str] = []
        self.current = "default"
        self.current_catalog = "spark_catalog"
        self.temp_views: set[str] = set()
        self.temp_functions: set[str] = set()
        self.catalog = self
        self.conf = FakeConf()

    def currentDatabase(self) -> str:  # noqa: N802 - pyspark's name
        return self.current

    def listFunctions(self, db: str, pattern: str) -> list[FakeFunction]:  # noqa: N802 - pyspark's name
        self.probes.append(f"functions {db} {pattern}")
        return [FakeFunction(name, True) for name in self.temp_functions]

    def tableExists(self, name: str) -> bool:  # noqa: N802 - pyspark's name
        self.probes.append(f"table exists {name}")
        return name.strip("`") in self.temp_views

    def sql(self, text: str) -> FakeFrame:
        if text == "SHOW VIEWS IN `spark_catalog`.`global_temp`":
            self.probes.append(text)
            return FakeFrame(text, [{"viewName": view, "namespace": ""} for view in sorted(self.temp_views)])
        if text == "SELECT current_catalog(), current_database()":
            self.probes.append(text)
            return FakeFrame(text, [(self.current_catalog, self.current)])
        self.statements.append(text)
        words = text.split()
        if words[0].upper() == "USE":
            self.current = words[-1].strip("`")
        if [w.upper() for w in words[:3]] == ["CREATE", "TEMPORARY", "VIEW"]:
            self.temp_views.add(words[3])
        return FakeFrame(text)


class FakeDDL:
    """An engine that records the statements it runs (``ran``), on a fake Spark session."""

    def __init__(self) -> None:
        self.ran: list[Statement] = []
        self.spark = FakeSpark()
        self.spark_started = True
        self.uses_custom_catalog = False

    def run(self, statement: Statement) -> StatementResult:
        self.ran.append(statement)
        return StatementResult(detail=f"{type(statement).__name__} done")


BUILDERS: dict[str, Callable[..., Statement]] = {
    "create_or_replace_table": CreateOrReplaceTable.of, "create_table": CreateTable.of,
    "truncate_table": TruncateTable.of, "insert_overwrite": InsertOverwrite.of, "rename_tables": RenameTables.of,
    "drop_tables": DropTables.of, "drop_database": DropDatabase.of, "create_database": CreateDatabase.of,
    "create_view": CreateView.of, "alter_view": AlterView.of, "rename_view": RenameView.of,
    "drop_views": DropViews.of, "create_function": CreateFunction.of, "create_sql_function": CreateFunction.sql,
    "drop_function": DropFunction.of, "alter_table": AlterTable.of, "restore_table": RestoreTable.of,
    "undrop_table": UndropTable.of, "describe_history": DescribeHistory.of,
    "show_tables_dropped": ShowTablesDropped.of,
    "replace_as_table": CreateOrReplaceAnyKind.as_table, "replace_as_view": CreateOrReplaceAnyKind.as_view,
}
"""The Python API method of each statement and the constructor it calls."""


def comparable(statement: Statement) -> Statement:
    """A statement without its texts (the SQL one keeps what was written, the API one its canonical form)."""
    spec = getattr(statement, "spec", None)
    if isinstance(spec, TableSpec):
        statement = attrs.evolve(statement, spec=attrs.evolve(spec, text=None))  # type: ignore[misc]
    target = getattr(statement, "target", None)
    if isinstance(target, Statement):  # a statement wrapping another (CREATE OR REPLACE of any kind)
        statement = attrs.evolve(statement, target=comparable(target))  # type: ignore[misc]
    return attrs.evolve(statement, text=None)


def names_in(value: Any) -> list[TableName]:
    """Every table name a statement holds, at any depth of its fields."""
    if isinstance(value, TableName):
        return [value]
    if attrs.has(type(value)):
        return [name for field in attrs.fields(type(value)) for name in names_in(getattr(value, field.name))]
    if isinstance(value, list | tuple):
        return [name for item in value for name in names_in(item)]
    return []


def statement_of(sql: str, ddl: FakeDDL | None = None) -> Statement:
    """Run one DDL statement on a fake; check it became exactly one typed statement whose text is the SQL's."""
    ddl = ddl or FakeDDL()
    results = run_sql(ddl, sql)
    assert len(ddl.ran) == 1, ddl.ran
    assert ddl.spark.statements == []
    statement = ddl.ran[0]
    [text] = split_statements(sql)
    assert statement.text == text
    spec = getattr(statement, "spec", None)
    if isinstance(spec, TableSpec) and spec.text is not None:  # a CREATE TABLE: Spark runs it as written
        assert text.endswith(spec.text.body), (text, spec.text)
    assert [r.kind for r in results] == ["ddl"]
    return statement


T = "`default`.`t`"

ROUTES: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = [
    # --- CREATE [OR REPLACE] TABLE / REPLACE TABLE
    (
        "CREATE OR REPLACE TABLE db.t (a INT, b STRING COMMENT 'x;y') USING parquet PARTITIONED BY (b) COMMENT 'c' "
        "TBLPROPERTIES ('k'='v', n = 1, a.b=false, 'neg' = -2)",
        "create_or_replace_table",
        ("`db`.`t`",),
        {
            "schema": "a INT, b STRING COMMENT 'x;y'",
            "using": "parquet",
            "partitioned_by": ["b"],
            "comment": "c",
            "properties": {"k": "v", "n": "1", "a.b": "false", "neg": "-2"},
        },
    ),
    ("REPLACE TABLE t (a INT) USING parquet", "create_or_replace_table", (T,),
     {"schema": "a INT", "using": "parquet", "must_exist": True}),
    ("REPLACE TABLE t AS SELECT 1 AS a", "create_or_replace_table", (T,), {"as_select": "SELECT 1 AS a",
                                                                          "must_exist": True}),
    (
        "create or replace table t as\n  select a, /* keep ; me */ 'x;y' AS b\n  from s -- trailing comment",
        "create_or_replace_table",
        (T,),
        {"as_select": "select a, /* keep ; me */ 'x;y' AS b\n  from s"},
    ),
    ("CREATE OR REPLACE TABLE t LIKE s", "create_or_replace_table", (T,), {"like": "`default`.`s`"}),
    # a relation of either kind (dbt's materializations): a view becomes the table, a table the view
    ("create /* dbt's comment */ or replace /* spark_ddl_log: any kind */ table t using parquet as select 1 AS a",
     "replace_as_table", (T,), {"using": "parquet", "as_select": "select 1 AS a"}),
    ("CREATE OR REPLACE /* spark_ddl_log: ANY KIND */ VIEW t COMMENT 'c' AS SELECT 1", "replace_as_view", (T,),
     {"as_select": "SELECT 1", "comment": "c"}),
    ("CREATE TABLE t (a INT)", "create_table", (T,), {"if_not_exists": False, "schema": "a INT"}),
    ("CREATE TABLE IF NOT EXISTS t LIKE db.s", "create_table", (T,), {"if_not_exists": True, "like": "`db`.`s`"}),
    (
        "CREATE TABLE t USING parquet PARTITIONED BY (p, q) AS WITH x AS (SELECT 1 AS p, 2 AS q) SELECT * FROM x",
        "create_table",
        (T,),
        {
            "if_not_exists": False,
            "using": "parquet",
            "partitioned_by": ["p", "q"],
            "as_select": "WITH x AS (SELECT 1 AS p, 2 AS q) SELECT * FROM x",
        },
    ),
    ("CREATE TABLE t AS (SELECT 1)", "create_table", (T,), {"if_not_exists": False, "as_select": "(SELECT 1)"}),
    # clauses the DDL log does not read go to Spark as written (Spark decides what they mean)
    ("CREATE TABLE t (a INT) USING parquet OPTIONS ('a'='b')", "create_table", (T,),
     {"if_not_exists": False, "schema": "a INT", "using": "parquet"}),
    ("CREATE TABLE t (a INT) STORED AS PARQUET", "create_table", (T,), {"if_not_exists": False, "schema": "a INT"}),
    ("CREATE TABLE t (a INT, b INT) CLUSTERED BY (a) SORTED BY (b) INTO 4 BUCKETS", "create_table", (T,),
     {"if_not_exists": False, "schema": "a INT, b INT"}),
    ("CREATE TABLE t (a INT) PARTITIONED BY (p STRING COMMENT 'x', q INT)", "create_table", (T,),
     {"if_not_exists": False, "schema": "a INT", "partitioned_by": ["p", "q"]}),
    ("CREATE TABLE t LIKE s USING parquet", "create_table", ("`default`.`t`",),
     {"if_not_exists": False, "like": "`default`.`s`", "using": "parquet"}),
    ("CREATE TABLE t USING parquet SELECT 1 AS a", "create_table", (T,),
     {"if_not_exists": False, "using": "parquet", "as_select": "SELECT 1 AS a"}),
    # --- RENAME
    (
        "RENAME TABLE a TO b, db.c TO `d e`",
        "rename_tables",
        ([("`default`.`a`", "`default`.`b`"), ("`db`.`c`", "`default`.`d e`")],),
        {},
    ),
    ("ALTER TABLE a RENAME TO b", "rename_tables", ([("`default`.`a`", "`default`.`b`")],), {}),
    ("ALTER TABLE db.a RENAME TO b", "rename_tables", ([("`db`.`a`", "`db`.`b`")],), {}),
    ("ALTER TABLE db.a RENAME TO DB.b", "rename_tables", ([("`db`.`a`", "`DB`.`b`")],), {}),
    # --- DROP TABLE, TRUNCATE, INSERT OVERWRITE, DROP DATABASE
    ("DROP TABLE IF EXISTS a, db.b", "drop_tables", (["`default`.`a`", "`db`.`b`"],), {"if_exists": True}),
    ("DROP TABLE t", "drop_tables", ([T],), {"if_exists": False}),
    ("DROP TABLE t PURGE", "drop_tables", ([T],), {"if_exists": False, "purge": True}),
    ("TRUNCATE TABLE db.t", "truncate_table", ("`db`.`t`",), {}),
    ("TRUNCATE TABLE t PARTITION (p = 1, `Q` = 'x')", "truncate_table", (T,), {"partition": {"p": "1", "Q": "x"}}),
    (
        "INSERT OVERWRITE TABLE t SELECT * FROM s WHERE x = ';'",
        "insert_overwrite",
        (T,),
        {"as_select": "SELECT * FROM s WHERE x = ';'"},
    ),
    ("INSERT OVERWRITE t (SELECT 1)", "insert_overwrite", (T,), {"as_select": "(SELECT 1)"}),
    ("INSERT OVERWRITE t VALUES (1), (2)", "insert_overwrite", (T,), {"as_select": "VALUES (1), (2)"}),
    ("INSERT OVERWRITE TABLE t PARTITION (a=1, `B`) SELECT 1, 2", "insert_overwrite", (T,),
     {"as_select": "SELECT 1, 2", "partition": {"a": "1", "B": None}}),
    ("INSERT OVERWRITE TABLE t PARTITION (a='x', b=-2) IF NOT EXISTS SELECT 1", "insert_overwrite", (T,),
     {"as_select": "SELECT 1", "partition": {"a": "x", "b": "-2"}, "if_not_exists": True}),
    ("INSERT OVERWRITE t (b, `A`) SELECT 1, 2", "insert_overwrite", (T,),
     {"as_select": "SELECT 1, 2", "columns": ["b", "A"]}),
    ("INSERT OVERWRITE TABLE t PARTITION (p=1) (a) VALUES (1)", "insert_overwrite", (T,),
     {"as_select": "VALUES (1)", "partition": {"p": "1"}, "columns": ["a"]}),
    ("insert overwrite t by name select 1 as a", "insert_overwrite", (T,),
     {"as_select": "select 1 as a", "by_name": True}),
    # clauses before the INSERT are its query's, as Spark reads them: put in front of it
    ("WITH x AS (SELECT 1) INSERT OVERWRITE TABLE t SELECT * FROM x", "insert_overwrite", (T,),
     {"as_select": "WITH x AS (SELECT 1)\nSELECT * FROM x"}),
    ("FROM s INSERT OVERWRITE TABLE t PARTITION (p=1) SELECT a WHERE a > 0", "insert_overwrite", (T,),
     {"as_select": "FROM s\nSELECT a WHERE a > 0", "partition": {"p": "1"}}),
    ("WITH x AS (SELECT 1 AS a) FROM x INSERT OVERWRITE t SELECT a", "insert_overwrite", (T,),
     {"as_select": "WITH x AS (SELECT 1 AS a) FROM x\nSELECT a"}),
    ("WITH x AS (SELECT 1 AS a) INSERT OVERWRITE t (a) /* c */ WITH y AS (SELECT a FROM x) SELECT * FROM y",
     "insert_overwrite", (T,),
     {"as_select": "WITH x AS (SELECT 1 AS a)\nSELECT * FROM (\nWITH y AS (SELECT a FROM x) SELECT * FROM y\n)",
      "columns": ["a"]}),
    ("DROP DATABASE IF EXISTS d CASCADE", "drop_database", ("d",), {"if_exists": True, "cascade": True}),
    ("DROP SCHEMA `my db` RESTRICT", "drop_database", ("my db",), {"if_exists": False, "cascade": False}),
    ("CREATE DATABASE IF NOT EXISTS d COMMENT 'x'", "create_database", ("d",), {"if_not_exists": True, "comment": "x"}),
    # --- views
    (
        "CREATE OR REPLACE VIEW v (a, b) COMMENT 'vc' AS SELECT 1, 2",
        "create_view",
        ("`default`.`v`",),
        {"as_select": "SELECT 1, 2", "or_replace": True, "comment": "vc", "columns": ("a", "b")},
    ),
    (
        "CREATE VIEW db.v AS SELECT * FROM t",
        "create_view",
        ("`db`.`v`",),
        {"as_select": "SELECT * FROM t", "or_replace": False, "comment": None},
    ),
    ("ALTER VIEW v AS SELECT 2", "alter_view", ("`default`.`v`",), {"as_select": "SELECT 2"}),
    ("ALTER VIEW db.v RENAME TO w", "rename_view", ("`db`.`v`", "`db`.`w`"), {}),
    ("DROP VIEW IF EXISTS v1, v2", "drop_views", (["`default`.`v1`", "`default`.`v2`"],), {"if_exists": True}),
    # --- functions
    (
        "CREATE FUNCTION f AS 'com.x.Y' USING JAR 'a.jar', FILE 'b.txt', ARCHIVE 'c.zip'",
        "create_function",
        ("`default`.`f`",),
        {
            "class_name": "com.x.Y",
            "or_replace": False,
            "resources": [("jar", "a.jar"), ("file", "b.txt"), ("archive", "c.zip")],
        },
    ),
    (
        "CREATE OR REPLACE FUNCTION db.f AS 'com.x.Y'",
        "create_function",
        ("`db`.`f`",),
        {"class_name": "com.x.Y", "resources": [], "or_replace": True},
    ),
    ("DROP FUNCTION IF EXISTS db.f", "drop_function", ("`db`.`f`",), {"if_exists": True}),
    (
        "CREATE OR REPLACE FUNCTION f(x INT, y INT) RETURNS DECIMAL(10, 2) RETURN x + y * 1.5",
        "create_sql_function",
        ("`default`.`f`",),
        {"params": "x INT, y INT", "returns": "DECIMAL(10, 2)", "body": "x + y * 1.5", "or_replace": True},
    ),
    # --- ALTER TABLE
    (
        "ALTER TABLE t ADD COLUMNS (c INT COMMENT 'x', d STRING)",
        "alter_table",
        (T, alter_ops.AddColumns("c INT COMMENT 'x', d STRING")),
        {},
    ),
    ("ALTER TABLE t ADD COLUMN c INT", "alter_table", (T, alter_ops.AddColumns("c INT")), {}),
    (
        "ALTER TABLE t SET TBLPROPERTIES ('a'='b', 'n' = 1)",
        "alter_table",
        (T, alter_ops.SetProperties({"a": "b", "n": "1"})),
        {},
    ),
    (
        "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a', b.c)",
        "alter_table",
        (T, alter_ops.UnsetProperties(("a", "b.c"), if_exists=True)),
        {},
    ),
    ("ALTER TABLE t UNSET TBLPROPERTIES ('a')", "alter_table", (T, alter_ops.UnsetProperties(("a",))), {}),
    ("ALTER TABLE t ALTER COLUMN c COMMENT 'new'", "alter_table", (T, alter_ops.ColumnComment("c", "new")), {}),
    ("ALTER TABLE t CHANGE COLUMN `c d` COMMENT 'new'", "alter_table", (T, alter_ops.ColumnComment("c d", "new")), {}),
    ("ALTER TABLE t ALTER COLUMN c TYPE BIGINT", "alter_table", (T, alter_ops.ChangeColumnType("c", "BIGINT")), {}),
    (
        "ALTER TABLE t ALTER COLUMN c TYPE STRUCT<a: INT, b: ARRAY<STRING>>",
        "alter_table",
        (T, alter_ops.ChangeColumnType("c", "STRUCT<a: INT, b: ARRAY<STRING>>")),
        {},
    ),
    ("ALTER TABLE t DROP COLUMNS (a, b)", "alter_table", (T, alter_ops.DropColumns(("a", "b"))), {}),
    ("ALTER TABLE t DROP COLUMN IF EXISTS a", "alter_table", (T, alter_ops.DropColumns(("a",), if_exists=True)), {}),
    (
        "ALTER TABLE t ADD IF NOT EXISTS PARTITION (p=1, q='x')",
        "alter_table",
        (T, alter_ops.AddPartition({"p": "1", "q": "x"}, if_not_exists=True)),
        {},
    ),
    ("ALTER TABLE t DROP PARTITION (p = 1)", "alter_table", (T, alter_ops.DropPartition({"p": "1"})), {}),
    ("ALTER TABLE t ADD PARTITION (p=1) PARTITION (p=2)", "alter_table",
     (T, alter_ops.AddPartition([{"p": "1"}, {"p": "2"}])), {}),
    ("ALTER TABLE t DROP IF EXISTS PARTITION (p=1), PARTITION (p=2, q='x') PURGE", "alter_table",
     (T, alter_ops.DropPartition([{"p": "1"}, {"p": "2", "q": "x"}], if_exists=True, purge=True)), {}),
    # --- table versions
    ("RESTORE TABLE t TO VERSION AS OF 12", "restore_table", (T,), {"version": 12}),
    ("RESTORE TABLE db.t TO TIMESTAMP AS OF '2026-11-25 08:30:00'", "restore_table", ("`db`.`t`",),
     {"timestamp": "2026-11-25 08:30:00"}),
    ("UNDROP TABLE db.t", "undrop_table", ("`db`.`t`",), {}),
    ("DESCRIBE HISTORY t", "describe_history", (T,), {}),
    ("DESC HISTORY db.t", "describe_history", ("`db`.`t`",), {}),
    ("SHOW TABLES DROPPED", "show_tables_dropped", (), {}),
    ("SHOW TABLES DROPPED IN db", "show_tables_dropped", ("db",), {}),
]


@pytest.mark.parametrize(("sql", "method", "args", "kwargs"), ROUTES, ids=[r[0][:50] for r in ROUTES])
def test_route(sql: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """The SQL statement becomes the typed statement the Python API's method makes of the same arguments."""
    assert comparable(statement_of(sql)) == comparable(BUILDERS[method](*args, **kwargs))


def test_every_statement_type_has_a_route_and_an_api_method() -> None:
    from ddl_log import AtomicDDL

    routed = {type(statement_of(sql)) for sql, *_ in ROUTES}
    assert routed == {getattr(builder, "__self__") for builder in BUILDERS.values()}  # noqa: B009 - the class
    assert all(callable(getattr(AtomicDDL, method)) for method in BUILDERS)


def test_statement_text_is_the_original_with_its_comments_and_spacing() -> None:
    sql = "CREATE  OR REPLACE TABLE t\n  AS SELECT 1 AS a /* one */ , 2 AS b;  -- done"
    ddl = FakeDDL()
    run_sql(ddl, sql)
    [statement] = ddl.ran
    assert isinstance(statement, CreateOrReplaceTable)
    assert statement.text == "CREATE  OR REPLACE TABLE t\n  AS SELECT 1 AS a /* one */ , 2 AS b"
    assert statement.spec.as_select == "SELECT 1 AS a /* one */ , 2 AS b"


def test_names_are_backquoted_so_odd_names_survive() -> None:
    statement = statement_of("DROP TABLE `my db`.`we``ird.name`, spark_catalog.db.t")
    assert isinstance(statement, DropTables)
    assert statement.names == (TableName("my db", "we`ird.name"), TableName("db", "t"))


def test_unqualified_names_use_the_current_database_after_use() -> None:
    ddl = FakeDDL()
    results = run_sql(ddl, "USE sales; DROP TABLE orders; USE `default`; TRUNCATE TABLE t")
    assert [r.kind for r in results] == ["query", "ddl", "query", "ddl"]
    assert ddl.spark.statements == ["USE sales", "USE `default`"]
    assert ddl.ran == [DropTables.of(["sales.orders"], text="DROP TABLE orders"),
                       TruncateTable.of(T, text="TRUNCATE TABLE t")]


PASS_THROUGH = [
    "SELECT * FROM t WHERE a = 'x;y'",
    "SHOW TABLES",
    "SHOW TABLES LIKE 'a;b'",
    "DESCRIBE TABLE EXTENDED t",
    "EXPLAIN INSERT INTO t SELECT 1",
    "SET spark.sql.shuffle.partitions = 4",
    "EXPLAIN CREATE TABLE t (a INT)",
    "CREATE TEMPORARY VIEW tv AS SELECT 1",
    "CREATE OR REPLACE TEMPORARY VIEW tv AS SELECT 1",
    "CREATE GLOBAL TEMPORARY VIEW gv AS SELECT 1",
    "CREATE TEMPORARY FUNCTION f AS 'com.x.Y'",
    "DROP TEMPORARY FUNCTION IF EXISTS f",
    "CACHE TABLE t",
    "ANALYZE TABLE t COMPUTE STATISTICS",
    "VALUES (1, 2)",
    "WITH x AS (SELECT 1) SELECT * FROM x",
]


@pytest.mark.parametrize("sql", PASS_THROUGH)
def test_other_statements_go_to_spark_unchanged(sql: str) -> None:
    ddl = FakeDDL()
    results = run_sql(ddl, sql + ";")
    assert ddl.ran == []
    assert ddl.spark.statements == [sql]
    assert len(results) == 1 and results[0].kind == "query" and results[0].result.text == sql


UNSUPPORTED = [
    ("CREATE TABLE t (a INT) USING parquet LOCATION '/tmp/x'", "LOCATION"),
    ("CREATE EXTERNAL TABLE t (a INT) LOCATION '/x'", "EXTERNAL"),
    ("ALTER TABLE t RECOVER PARTITIONS", "RECOVER PARTITIONS"),
    ("ALTER TABLE t SET LOCATION '/x'", "SET LOCATION"),
    ("ALTER TABLE t ADD PARTITION (p=1) LOCATION '/x'", "LOCATION"),
    ("ALTER TABLE t ADD PARTITION (p=1) PARTITION (p=2) LOCATION '/x'", "LOCATION"),
    ("ALTER TABLE t ALTER COLUMN c SET DEFAULT 1", "ALTER COLUMN"),
    ("ALTER TABLE t ALTER COLUMN s.x COMMENT 'y'", "nested column"),
    ("ALTER DATABASE d SET DBPROPERTIES ('a'='b')", "ALTER DATABASE"),
    ("INSERT OVERWRITE TABLE t PARTITION (p=NULL) SELECT 1", "NULL static partition value"),
    ("INSERT OVERWRITE DIRECTORY '/x' SELECT 1", "DIRECTORY"),
    ("FROM s INSERT INTO t SELECT * INSERT INTO u SELECT *", "INSERT INTO"),
    ("WITH x AS (SELECT 1) FROM x INSERT OVERWRITE TABLE t SELECT * INSERT OVERWRITE TABLE u SELECT *",
     "INSERT OVERWRITE"),
    ("MSCK REPAIR TABLE t", "MSCK"),
    ("LOAD DATA INPATH '/x' OVERWRITE INTO TABLE t", "LOAD DATA"),
    ("EXECUTE IMMEDIATE 'DROP TABLE t'", "EXECUTE IMMEDIATE"),
    ("CREATE VIEW v (a COMMENT 'x') AS SELECT 1", "column comments"),
    ("CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x", "RETURNS"),
    ("CREATE DATABASE d LOCATION '/x'", "LOCATION"),
]


@pytest.mark.parametrize(("sql", "what"), UNSUPPORTED, ids=[u[0][:50] for u in UNSUPPORTED])
def test_unsupported_ddl_is_refused_and_nothing_of_the_script_runs(sql: str, what: str) -> None:
    ddl = FakeDDL()
    with pytest.raises(UnsupportedStatementError) as caught:
        run_sql(ddl, f"CREATE TABLE ok (a INT);\nSELECT 1;\n{sql}")
    message = str(caught.value)
    assert what in message
    assert "line 3" in message and "would not be atomic" in message and "allow_non_atomic" in message
    assert ddl.ran == [] and ddl.spark.statements == []


@pytest.mark.parametrize(("sql", "what"), UNSUPPORTED[:5], ids=[u[0][:50] for u in UNSUPPORTED[:5]])
def test_allow_non_atomic_passes_unsupported_ddl_to_spark(sql: str, what: str) -> None:
    ddl = FakeDDL()
    results = run_sql(ddl, sql, allow_non_atomic=True)
    assert ddl.spark.statements == [sql] and ddl.ran == []
    assert results[0].kind == "query"


# ---------------------------------------------------------------------------------------------------- scripts


def test_split_respects_strings_comments_and_backquotes() -> None:
    script = (
        "SELECT ';' AS a, \"b;\" AS b;\n"
        "-- a comment; with a semicolon\n"
        "SELECT `x;y` FROM t /* ; */ WHERE c = 'it''s; \\';' ;;\n"
        "/* nested /* ; */ still ; comment */ SHOW TABLES LIKE 'a;b'\n"
        ";   -- only a comment after the last ;"
    )
    assert split_statements(script) == [
        "SELECT ';' AS a, \"b;\" AS b",
        "SELECT `x;y` FROM t /* ; */ WHERE c = 'it''s; \\';'",
        "SHOW TABLES LIKE 'a;b'",
    ]


def test_empty_and_comment_only_scripts_run_nothing() -> None:
    ddl = FakeDDL()
    assert run_sql(ddl, "  ;; -- nothing\n/* here */ ;") == []
    assert ddl.spark.statements == [] and ddl.ran == []


def test_a_script_runs_in_order() -> None:
    ddl = FakeDDL()
    results = run_sql(ddl, "CREATE TABLE a (x INT); INSERT INTO a VALUES (1); RENAME TABLE a TO b; SELECT * FROM b")
    assert [r.kind for r in results] == ["ddl", "ddl", "ddl", "query"]
    assert [type(statement) for statement in ddl.ran] == [CreateTable, InsertInto, RenameTables]
    assert ddl.spark.statements == ["SELECT * FROM b"]


@pytest.mark.parametrize(("sql", "body"), [
    ("INSERT INTO t VALUES (1, 'a')", "VALUES (1, 'a')"),
    ("INSERT INTO TABLE t PARTITION (p = 1, q) (a, b) SELECT 1, 2", "PARTITION (p = 1, q) (a, b) SELECT 1, 2"),
    ("insert into t by name select 1 as a /* c */", "by name select 1 as a"),
    ("INSERT INTO t(a) VALUES (1)", "(a) VALUES (1)"),
    ("WITH x AS (SELECT 1 AS a) INSERT INTO t SELECT * FROM x", "WITH x AS (SELECT 1 AS a)\nSELECT * FROM x"),
    ("WITH x AS (SELECT 1 AS a) INSERT INTO t PARTITION (p = 1) (a) VALUES (2)",
     "PARTITION (p = 1) (a) WITH x AS (SELECT 1 AS a)\nVALUES (2)"),
    ("FROM s INSERT INTO TABLE t BY NAME SELECT a", "BY NAME FROM s\nSELECT a"),
])
def test_insert_into_runs_through_the_log_with_the_rest_of_its_text_as_written(sql: str, body: str) -> None:
    ddl = FakeDDL()
    assert [r.kind for r in run_sql(ddl, sql)] == ["ddl"]
    [statement] = ddl.ran
    assert isinstance(statement, InsertInto) and statement.name == TableName.of(T)
    assert statement.fill.insert_text == body


@pytest.mark.parametrize(("script", "statements"), [
    ("/*/**/*/ DROP TABLE t", ["DROP TABLE t"]),
    ("/* a /* b */ c */ DROP TABLE t; /**/SELECT 1", ["DROP TABLE t", "SELECT 1"]),
    ("SELECT '/*' AS a; DROP TABLE t", ["SELECT '/*' AS a", "DROP TABLE t"]),
    ("/* it's */ DROP TABLE t -- /* not a comment's start\n", ["DROP TABLE t"]),
])
def test_bracketed_comments_nest_as_sparks_lexer_reads_them(script: str, statements: list[str]) -> None:
    """Spark's lexer nests bracketed comments and reads a quote inside one as text (sqlglot ends a comment at its
    first ``*/``): the statements are the ones Spark sees."""
    assert split_statements(script) == statements


def test_an_unclosed_comment_is_sparks_unclosed_bracketed_comment() -> None:
    with pytest.raises(SqlParseError) as caught:
        run_sql(FakeDDL(), "DROP TABLE t /* open")
    assert (caught.value.condition, caught.value.sqlstate) == ("UNCLOSED_BRACKETED_COMMENT", "42601")


@pytest.mark.parametrize(("sql", "kind", "names"), [
    ("INSERT INTO IDENTIFIER('ta' || 'b') VALUES (1)", InsertInto, [TableName("default", "tab")]),
    ("DROP TABLE IDENTIFIER('db.t'), IDENTIFIER('u')", DropTables, [TableName("db", "t"), TableName("default", "u")]),
    ("CREATE TABLE IDENTIFIER('`a.b`') (x INT) USING parquet", CreateTable, [TableName("default", "a.b")]),
    ("CREATE OR REPLACE TABLE IDENTIFIER('t' 'x') USING parquet AS SELECT 1", CreateOrReplaceTable,
     [TableName("default", "tx")]),
    ("TRUNCATE TABLE identifier('db' || '.' || 't')", TruncateTable, [TableName("db", "t")]),
    ("DROP VIEW IDENTIFIER('v')", DropViews, [TableName("default", "v")]),
])
def test_an_identifier_clause_names_the_object_as_sparks_parser_reads_it(sql: str, kind: type, names: list) -> None:
    """Spark's ``IDENTIFIER(<constant string>)`` in place of a name: the string, literals concatenated, read as a
    (multi-part) name; not a table named ``identifier``."""
    ddl = FakeDDL()
    run_sql(ddl, sql)
    [statement] = ddl.ran
    assert isinstance(statement, kind)
    found = getattr(statement, "names", None) or [statement.name]  # type: ignore[attr-defined]
    assert list(found) == names


def test_an_identifier_clause_of_anything_but_string_literals_is_refused_before_anything_runs() -> None:
    ddl = FakeDDL()
    with pytest.raises(UnsupportedStatementError, match="IDENTIFIER"):
        run_sql(ddl, "DROP TABLE IDENTIFIER('t' || current_user())")
    assert ddl.ran == [] and ddl.spark.statements == []


@pytest.mark.parametrize(("sql", "mode"), [
    ("CREATE VIEW v WITH SCHEMA BINDING AS SELECT 1", "BINDING"),
    ("CREATE OR REPLACE VIEW v (a) COMMENT 'c' WITH SCHEMA TYPE EVOLUTION TBLPROPERTIES ('p'='1') AS SELECT 1",
     "TYPE EVOLUTION"),
    ("CREATE VIEW v with schema compensation AS SELECT 1", "COMPENSATION"),
])
def test_a_views_schema_binding_mode_is_part_of_its_definition(sql: str, mode: str) -> None:
    ddl = FakeDDL()
    run_sql(ddl, sql)
    [statement] = ddl.ran
    assert isinstance(statement, CreateView) and statement.definition.schema_mode == mode
    assert f"WITH SCHEMA {mode}" in statement.canonical_text()


def test_alter_view_with_schema_changes_only_the_mode() -> None:
    ddl = FakeDDL()
    run_sql(ddl, "ALTER VIEW v WITH SCHEMA EVOLUTION")
    [statement] = ddl.ran
    assert isinstance(statement, AlterView) and (statement.as_select, statement.schema_mode) == (None, "EVOLUTION")


PARSE_ERRORS = [
    # script, line, column, near-text, reason fragment
    ("CREATE TABLE t (a INT", 1, 19, "INT", "Expecting )"),
    ("SELECT 1;\nSELECT 'abc", 2, 8, "'abc", "unterminated string"),
    ("SELECT 1; /* open\ncomment", 1, 11, "/* open", "unclosed bracketed comment"),
    ("SELECT 1; /* a /* nested */ still open", 1, 11, "/* a /* nested */ s", "unclosed bracketed comment"),
    ("SELECT `open", 1, 8, "`open", "unterminated backquoted name"),
    ("SELECT 1;\n\n  SELECT (1 +", 3, 13, "+", "incomplete expression"),
    ("RENAME TABLE a b", 1, 16, "b", "expected TO"),
    ("RENAME TABLE a TO b,", 1, 20, ",", "expected a table name"),
    ("DROP FUNCTION f, g", 1, 16, ",", ""),
    ("CREATE TABLE t (a INT) AS SELECT 1", 1, 24, "AS", "cannot be combined with a column list"),
    ("CREATE OR REPLACE TABLE IF NOT EXISTS t (a INT)", 1, 25, "IF", "cannot be used together"),
    ("ALTER TABLE t ALTER COLUMN c TYPE NOT_A_TYPE", 1, 35, "NOT_A_TYPE", "expected a data type"),
    ("CREATE FUNCTION f AS 'x' USING POTATO 'y'", 1, 32, "POTATO", "expected JAR, FILE or ARCHIVE"),
    ("CREATE TABLE t (a INT) COMMENT 'a' COMMENT 'b'", 1, 36, "COMMENT", "given twice"),
]


@pytest.mark.parametrize(
    ("script", "line", "column", "near", "reason"), PARSE_ERRORS, ids=[p[0][:40] for p in PARSE_ERRORS]
)
def test_parse_errors_name_line_column_and_text(script: str, line: int, column: int, near: str, reason: str) -> None:
    ddl = FakeDDL()
    with pytest.raises(SqlParseError) as caught:
        run_sql(ddl, script)
    error = caught.value
    assert (error.line, error.column) == (line, column), str(error)
    assert error.text.startswith(near), str(error)
    assert reason in str(error)
    assert f"line {line}, column {column}" in str(error)
    assert ddl.ran == [] and ddl.spark.statements == []


def test_a_parse_error_anywhere_runs_nothing() -> None:
    ddl = FakeDDL()
    with pytest.raises(SqlParseError, match="line 3"):
        run_sql(ddl, "CREATE TABLE a (x INT);\nDROP TABLE b;\nSELECT (;")
    assert ddl.ran == [] and ddl.spark.statements == []


def test_errors_are_ddl_log_errors() -> None:
    from ddl_log import DDLLogError

    assert issubclass(SqlParseError, DDLLogError)
    assert issubclass(UnsupportedStatementError, DDLLogError)


# ---------------------------------------------------------------------------------------------------- alter ops


def test_alter_ops_render_canonical_quoted_clauses() -> None:
    assert (
        alter_ops.alter_table_text("`db`.`t`", alter_ops.SetProperties({"a'b": "c"}))
        == "ALTER TABLE `db`.`t` SET TBLPROPERTIES ('a\\'b' = 'c')"
    )
    assert (  # the column list as written: Spark reads its types and options itself
        alter_ops.AddColumns("c INT COMMENT 'x', `d e` STRING").clause()
        == "ADD COLUMNS (c INT COMMENT 'x', `d e` STRING)"
    )
    assert alter_ops.UnsetProperties(["a"], if_exists=True).clause() == "UNSET TBLPROPERTIES IF EXISTS ('a')"
    assert alter_ops.ColumnComment("c", "n").clause() == "ALTER COLUMN `c` COMMENT 'n'"
    assert alter_ops.ChangeColumnType("c", "BIGINT").clause() == "ALTER COLUMN `c` TYPE BIGINT"
    assert alter_ops.DropColumns(["a", "b`"]).clause() == "DROP COLUMNS (`a`, `b```)"
    assert alter_ops.AddPartition({"p": "1"}, if_not_exists=True).clause() == "ADD IF NOT EXISTS PARTITION (`p` = '1')"
    assert alter_ops.DropPartition({"p": "x"}).clause() == "DROP PARTITION (`p` = 'x')"
    assert (alter_ops.AddPartition([{"p": "1"}, {"p": "2"}]).clause()
            == "ADD PARTITION (`p` = '1') PARTITION (`p` = '2')")
    assert (alter_ops.DropPartition([{"p": "1"}, {"q": "y"}], if_exists=True, purge=True).clause()
            == "DROP IF EXISTS PARTITION (`p` = '1'), PARTITION (`q` = 'y') PURGE")


# ---------------------------------------------------------------------------------------------------- real API


def test_real_atomic_ddl_on_a_memory_catalog_binlogs_what_the_user_wrote(tmp_path: Path) -> None:
    """End to end without Spark: the statement text reaches the binlog as written."""
    from ddl_log import AtomicDDL
    from storage.catalogs.memory import memory_catalog

    statements = ["CREATE TABLE t (a INT)", "RENAME TABLE t TO u", "DROP  TABLE  u"]
    with AtomicDDL(home=tmp_path / "home", catalog=memory_catalog()) as ddl:
        results = run_sql(ddl, ";\n".join(statements))
        assert [r.kind for r in results] == ["ddl"] * 3
        assert [e.statement for e in ddl.binlog_events()] == statements
        assert not ddl.spark_started, "names resolved without starting Spark"


# ---------------------------------------------------------------------------------------------------- name resolution


def passed_through(ddl: FakeDDL, sql: str, **options: Any) -> bool:
    """Whether ``sql`` went to Spark unchanged (and not to the DDL log)."""
    before = len(ddl.ran)
    results = run_sql(ddl, sql, **options)
    if results[-1].kind == "query":
        assert ddl.spark.statements[-1] == sql and len(ddl.ran) == before
        return True
    return False


def test_a_statement_in_another_current_catalog_goes_to_spark_unchanged() -> None:
    ddl = FakeDDL()
    ddl.spark.current_catalog = "other"
    for sql in ("DROP TABLE t", "DROP TABLE ns.t", "CREATE TABLE t (a INT)", "TRUNCATE TABLE t", "CREATE DATABASE d",
                "ALTER TABLE t RENAME TO u", "DROP FUNCTION f", "CREATE VIEW v AS SELECT 1"):
        assert passed_through(ddl, sql), sql
    with pytest.raises(UnsupportedStatementError, match=r"`db`.`t` in the session catalog while the current catalog "
                                                         r"is `other`.*USE spark_catalog") as caught:
        run_sql(ddl, "DROP TABLE spark_catalog.db.t")  # the DDL log's own steps would resolve in `other`
    assert caught.value.name == "`db`.`t`"
    assert passed_through(ddl, "DROP TABLE spark_catalog.db.t", allow_non_atomic=True)
    assert ddl.ran == []


def test_a_first_part_is_a_catalog_only_when_one_is_registered() -> None:
    ddl = FakeDDL()
    ddl.spark.conf.values["spark.sql.catalog.other"] = "some.CatalogPlugin"
    assert passed_through(ddl, "DROP TABLE other.ns.t")
    assert passed_through(ddl, "DROP DATABASE other.d")
    assert not passed_through(ddl, "DROP TABLE nocatalog.t")  # a database of the current (session) catalog
    assert ddl.ran[-1] == DropTables.of(["nocatalog.t"], text="DROP TABLE nocatalog.t")
    assert not passed_through(ddl, "DROP DATABASE Spark_Catalog.d")
    assert ddl.ran[-1] == DropDatabase.of("d", text="DROP DATABASE Spark_Catalog.d")
    for spark_refuses in ("DROP TABLE a.b.c", "DROP TABLE spark_catalog.t", "CREATE DATABASE x.y"):
        assert passed_through(ddl, spark_refuses), spark_refuses  # Spark's own error, not a guess


def test_temporary_views_come_first_where_spark_looks_them_up() -> None:
    ddl = FakeDDL()
    ddl.spark.temp_views = {"t"}
    for sql in ("DROP TABLE t", "DROP VIEW IF EXISTS T", "ALTER TABLE t ADD COLUMNS (c INT)",
                "ALTER VIEW t AS SELECT 1", "ALTER TABLE t RENAME TO u", "ALTER VIEW t RENAME TO u", "TRUNCATE TABLE t",
                "INSERT OVERWRITE t SELECT 1", "DROP VIEW global_temp.g", "ALTER TABLE global_temp.g RENAME TO h"):
        assert passed_through(ddl, sql), sql
    for sql in ("CREATE TABLE t (a INT)", "CREATE OR REPLACE VIEW t AS SELECT 1", "DROP TABLE `default`.t"):
        assert not passed_through(ddl, sql), sql
        assert TableName("default", "t") in names_in(ddl.ran[-1]), sql


def test_a_session_is_asked_again_after_every_statement_spark_ran() -> None:
    ddl = FakeDDL()
    results = run_sql(ddl, "DROP TABLE t; CREATE TEMPORARY VIEW t AS SELECT 1; DROP TABLE t; USE db; DROP TABLE u")
    assert [r.kind for r in results] == ["ddl", "query", "query", "query", "ddl"]
    assert [statement.names for statement in ddl.ran] == [  # type: ignore[attr-defined]
        (TableName("default", "t"),), (TableName("db", "u"),)]


def test_a_form_spark_cannot_run_is_refused_when_it_names_an_object_outside_the_session_catalog() -> None:
    ddl = FakeDDL()
    ddl.spark.temp_views = {"t"}
    ddl.spark.conf.values["spark.sql.catalog.other"] = "some.CatalogPlugin"
    for sql, name in (("DROP TABLE a, t", "`t`"), ("DROP VIEW v, other.ns.v", "`other`.`ns`.`v`"),
                      ("RENAME TABLE t TO u", "`t`"), ("RENAME TABLE a TO b, other.x.c TO d", "`other`.`x`.`c`"),
                      ("CREATE OR REPLACE TABLE n LIKE t", "`t`")):
        with pytest.raises(UnsupportedStatementError) as caught:
            run_sql(ddl, sql, allow_non_atomic=True)
        assert caught.value.name.startswith(f"the temporary view {name}") or caught.value.name.startswith(name), sql
        assert "was not run" in str(caught.value) and name in str(caught.value)
    assert ddl.ran == [] and ddl.spark.statements == []


def test_create_table_like_a_temporary_view_is_not_atomic_on_spark() -> None:
    ddl = FakeDDL()
    ddl.spark.temp_views = {"t"}
    with pytest.raises(UnsupportedStatementError, match=r"temporary view `t`.*would not be atomic") as caught:
        run_sql(ddl, "CREATE TABLE n LIKE t")
    assert caught.value.name == "the temporary view `t`"
    assert passed_through(ddl, "CREATE TABLE n LIKE t", allow_non_atomic=True)
    assert not passed_through(ddl, "CREATE TABLE n LIKE s")
    statement = ddl.ran[-1]
    assert isinstance(statement, CreateTable)
    assert statement.name == TableName("default", "n") and statement.spec.like == TableName("default", "s")
    ddl.spark.current_catalog = "other"  # Spark's v1 command: the session catalog's current database, unknown here
    with pytest.raises(UnsupportedStatementError, match=r"`n`.*current catalog is `other`"):
        run_sql(ddl, "CREATE TABLE n LIKE db.s")
    with pytest.raises(UnsupportedStatementError, match=r"`db`.`n` in the session catalog while the current"):
        run_sql(ddl, "CREATE TABLE db.n LIKE db.s")
    assert passed_through(ddl, "CREATE TABLE spark_catalog.db.n LIKE db.s")  # a Spark parse error


def test_drop_function_of_a_builtin_or_temporary_name_is_sparks_error() -> None:
    ddl = FakeDDL()
    ddl.spark.temp_functions = {"f"}
    assert passed_through(ddl, "DROP FUNCTION F")
    assert passed_through(ddl, "DROP FUNCTION IF EXISTS f")
    assert not passed_through(ddl, "DROP FUNCTION `default`.f")
    assert not passed_through(ddl, "DROP FUNCTION g")
    assert ddl.ran[-1] == DropFunction.of("default.g", text="DROP FUNCTION g")


def test_rename_to_another_database_is_sparks_error() -> None:
    ddl = FakeDDL()
    for sql in ("ALTER TABLE a RENAME TO db.b", "ALTER TABLE db.a RENAME TO spark_catalog.db.b",
                "ALTER VIEW v RENAME TO db.w"):
        assert passed_through(ddl, sql), sql
    ddl.spark.current = "db"
    assert not passed_through(ddl, "ALTER TABLE `default`.a RENAME TO b")
    assert ddl.ran[-1] == RenameTables.of([("default.a", "default.b")], text="ALTER TABLE `default`.a RENAME TO b")
