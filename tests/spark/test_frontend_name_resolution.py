"""The SQL front end resolves names exactly as Spark 4 does: the current catalog and namespace, catalog-qualified
names, temporary views, built-in and temporary functions, ALTER ... RENAME TO within a database.

Each parity case runs the same setup and then the same statement twice, on plain ``spark.sql`` and through
``AtomicDDL.sql``, each in a fresh session of the shared Spark context (its own current catalog, namespace, settings,
temporary views and functions), and compares the outcome (ok, or Spark's error condition) and what is left behind.
A second catalog is a JDBC catalog on an in-memory Derby database (both ship with pyspark)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest

from ddl_log import AtomicDDL
from ddl_log.frontends.sql import UnsupportedStatementError
from tests.spark.conftest import reset_spark

pytestmark = pytest.mark.spark

UDF = "'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'"
JDBC_CATALOG = "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog"
_derby = itertools.count()


@contextmanager
def fresh_session(spark: Any) -> Iterator[Any]:
    """A new session with the catalog ``other`` registered (a new empty Derby database each time); afterwards its
    current catalog and settings are put back, so nothing leaks even if the session object is kept."""
    session = spark.newSession()
    keys = {
        "spark.sql.catalog.other": JDBC_CATALOG,
        "spark.sql.catalog.other.url": f"jdbc:derby:memory:fe_other_{next(_derby)};create=true",
        "spark.sql.catalog.other.driver": "org.apache.derby.jdbc.EmbeddedDriver",
    }
    for key, value in keys.items():
        session.conf.set(key, value)
    try:
        yield session
    finally:
        session.sql("USE spark_catalog.`default`")
        for key in [*keys, "spark.sql.defaultCatalog"]:
            session.conf.unset(key)
        for row in session.sql("SHOW VIEWS IN spark_catalog.global_temp").collect():
            if row["namespace"]:  # global temporary views are shared by every session
                session.catalog.dropGlobalTempView(row["viewName"])


def outcome(run: Any) -> str:
    try:
        run()
    except Exception as error:  # noqa: BLE001 - the outcome is compared, not handled
        condition = getattr(error, "getCondition", None)
        if callable(condition):
            return f"error {condition()}"
        return f"error {getattr(error, 'condition', None) or type(error).__name__}"  # Spark's, as SqlParseError says
    return "ok"


def snapshot(session: Any, probes: tuple[str, ...]) -> dict[str, Any]:
    """What a statement can have changed: session-catalog tables and views (columns, rows), temporary views,
    functions, the ``probes`` (names in the other catalog: do they exist), the current catalog and namespace."""
    objects = {}
    databases = sorted(r[0] for r in session.sql("SHOW DATABASES IN spark_catalog").collect())
    for db in databases:
        for row in session.sql(f"SHOW TABLES IN spark_catalog.`{db}`").collect():
            if not row["isTemporary"]:
                frame = session.table(f"spark_catalog.`{db}`.`{row['tableName']}`")
                objects[f"{db}.{row['tableName']}"] = (tuple(frame.columns), sorted(map(tuple, frame.collect())))
    temp = {}
    for row in session.sql("SHOW VIEWS IN spark_catalog.global_temp").collect():
        name = f"{row['namespace']}.{row['viewName']}" if row["namespace"] else f"`{row['viewName']}`"
        frame = session.table(name)
        temp[name] = (tuple(frame.columns), sorted(map(tuple, frame.collect())))
    functions = sorted(r[0] for r in session.sql("SHOW USER FUNCTIONS IN spark_catalog.`default`").collect())
    other = {name: session.catalog.tableExists(name) for name in probes}
    other["namespaces"] = sorted(r[0] for r in session.sql("SHOW NAMESPACES IN other").collect())
    where = (session.catalog.currentCatalog(), session.catalog.currentDatabase())
    return {"databases": databases, "objects": objects, "temp": temp, "functions": functions, "other": other,
            "where": where}


@attrs.frozen
class Case:
    setup: tuple[str, ...]
    statement: str
    probes: tuple[str, ...] = ()


def run_both(spark: Any, warehouse: Path, home: Path, case: Case, **options: Any) -> tuple[Any, Any]:
    """(plain Spark's outcome and state, the front end's outcome and state), each from a clean catalog."""
    results = []
    for through_front_end in (False, True):
        reset_spark(spark, warehouse)
        with fresh_session(spark) as session:
            for statement in case.setup:
                session.sql(statement)
            if through_front_end:
                with AtomicDDL(spark=session, home=home / f"home{len(results)}") as ddl:
                    done = outcome(lambda: ddl.sql(case.statement, **options))
            else:
                done = outcome(lambda: session.sql(case.statement).collect())
            results.append((done, snapshot(session, case.probes)))
    reset_spark(spark, warehouse)
    return results[0], results[1]


def assert_parity(spark: Any, warehouse: Path, tmp_path: Path, case: Case, **options: Any) -> tuple[str, Any]:
    plain, front = run_both(spark, warehouse, tmp_path, case, **options)
    assert front == plain
    return plain


# ---------------------------------------------------------------------------------------------------- defect 3

OTHER_NS = ("CREATE NAMESPACE other.ns", "CREATE TABLE other.ns.t (a INT)")
HIVE_T = ("CREATE TABLE spark_catalog.`default`.t (a INT) USING parquet",
          "INSERT INTO spark_catalog.`default`.t VALUES (1)")
HIVE_NS_T = ("CREATE DATABASE spark_catalog.ns", "CREATE TABLE spark_catalog.ns.t (a INT) USING parquet")

DEFECT3 = {
    "use_other_catalog_drop_table": Case((*OTHER_NS, *HIVE_T, "USE other.ns"), "DROP TABLE t", ("other.ns.t",)),
    "set_catalog_drop_namespace_qualified": Case((*OTHER_NS, *HIVE_NS_T, "SET CATALOG 'other'"), "DROP TABLE ns.t",
                                                 ("other.ns.t",)),
    "default_catalog_setting_drop_table": Case(
        (*OTHER_NS, *HIVE_NS_T, "SET spark.sql.defaultCatalog = other"), "DROP TABLE ns.t", ("other.ns.t",)),
    "catalog_qualified_name_from_the_session_catalog": Case((*OTHER_NS, *HIVE_NS_T), "DROP TABLE other.ns.t",
                                                            ("other.ns.t",)),
    "use_other_catalog_create_table": Case(("CREATE NAMESPACE other.ns", "USE other.ns"), "CREATE TABLE t (a INT)",
                                           ("other.ns.t",)),
    "use_other_catalog_create_database": Case(("USE other",), "CREATE DATABASE d"),
    "use_other_catalog_truncate": Case((*OTHER_NS, *HIVE_T, "USE other.ns"), "TRUNCATE TABLE t", ("other.ns.t",)),
    "two_part_name_starting_with_spark_catalog_is_a_spark_error": Case(HIVE_T, "DROP TABLE spark_catalog.t"),
}


@pytest.mark.parametrize("case", DEFECT3.values(), ids=DEFECT3.keys())
def test_defect3_names_resolve_in_the_current_catalog_as_in_spark(
    spark: Any, warehouse: Path, tmp_path: Path, case: Case
) -> None:
    assert_parity(spark, warehouse, tmp_path, case)


def test_defect3_a_multi_object_statement_mixing_catalogs_is_refused_naming_the_object(
    spark: Any, warehouse: Path, tmp_path: Path
) -> None:
    reset_spark(spark, warehouse)
    try:
        with fresh_session(spark) as session, AtomicDDL(spark=session, home=tmp_path / "home") as ddl:
            for statement in (*OTHER_NS, *HIVE_T):
                session.sql(statement)
            for script in ("DROP TABLE t, other.ns.t", "RENAME TABLE t TO u, other.ns.t TO other.ns.u"):
                with pytest.raises(UnsupportedStatementError, match=r"`other`\.`ns`\.`t`.*catalog `other`"):
                    ddl.sql(script)
            assert session.catalog.tableExists("other.ns.t") and session.catalog.tableExists("spark_catalog.default.t")
            session.sql("USE other.ns")
            with pytest.raises(UnsupportedStatementError, match=r"`t2`.*would not be atomic"):
                ddl.sql("CREATE TABLE t2 LIKE t")  # Spark's v1 command: the session catalog's current database
            assert not session.catalog.tableExists("spark_catalog.default.t2")
    finally:
        reset_spark(spark, warehouse)


def test_defect3_a_session_catalog_object_while_another_catalog_is_current_is_refused_or_matches_spark(
    spark: Any, warehouse: Path, tmp_path: Path
) -> None:
    """The DDL log's own steps name ``db.t``, which Spark resolves in the current catalog: they would act on
    ``other.db.t``. Refused (USE spark_catalog first); with allow_non_atomic it goes to Spark as written."""
    case = Case((*OTHER_NS, *HIVE_NS_T, "USE other.ns"), "DROP TABLE spark_catalog.ns.t", ("other.ns.t",))
    reset_spark(spark, warehouse)
    try:
        with fresh_session(spark) as session, AtomicDDL(spark=session, home=tmp_path / "home") as ddl:
            for statement in case.setup:
                session.sql(statement)
            with pytest.raises(UnsupportedStatementError, match=r"current catalog is `other`.*USE spark_catalog"):
                ddl.sql(case.statement)
            assert session.catalog.tableExists("other.ns.t") and session.catalog.tableExists("spark_catalog.ns.t")
    finally:
        reset_spark(spark, warehouse)
    assert assert_parity(spark, warehouse, tmp_path / "allowed", case, allow_non_atomic=True)[0] == "ok"


def test_defect3_create_table_like_in_another_current_catalog_matches_spark_when_allowed(
    spark: Any, warehouse: Path, tmp_path: Path
) -> None:
    case = Case((*OTHER_NS, *HIVE_T, "USE other.ns"), "CREATE TABLE t2 LIKE t", ("other.ns.t2",))
    plain = assert_parity(spark, warehouse, tmp_path, case, allow_non_atomic=True)
    if str(spark.version).startswith("4.0"):  # Spark 4.3 refuses this LIKE in the other catalog: the project too
        assert plain[0] == "ok"


# ---------------------------------------------------------------------------------------------------- defect 4

TEMP_T = (*HIVE_T, "CREATE TEMPORARY VIEW t AS SELECT 42 AS a, 'x' AS b")
GLOBAL_G = ("CREATE GLOBAL TEMPORARY VIEW g AS SELECT 1 AS a",)
FUNCTIONS = (f"CREATE FUNCTION f AS {UDF}", f"CREATE TEMPORARY FUNCTION f AS {UDF}", f"CREATE FUNCTION abs AS {UDF}")

DEFECT4 = {
    "drop_table": Case(TEMP_T, "DROP TABLE t"),
    "drop_table_if_exists": Case(TEMP_T, "DROP TABLE IF EXISTS t"),
    "drop_view": Case(TEMP_T, "DROP VIEW t"),
    "alter_table_add_columns": Case(TEMP_T, "ALTER TABLE t ADD COLUMNS (c INT)"),
    "alter_table_set_properties": Case(TEMP_T, "ALTER TABLE t SET TBLPROPERTIES ('k' = 'v')"),
    "alter_table_rename": Case(TEMP_T, "ALTER TABLE t RENAME TO t9"),
    "alter_view_rename": Case(TEMP_T, "ALTER VIEW t RENAME TO t9"),
    "alter_view_as": Case(TEMP_T, "ALTER VIEW t AS SELECT 7 AS z"),
    "truncate": Case(TEMP_T, "TRUNCATE TABLE t"),
    "insert_overwrite": Case(TEMP_T, "INSERT OVERWRITE TABLE t SELECT 5, 'y'"),
    "create_view_beside_a_temporary_view": Case(("CREATE TEMPORARY VIEW v AS SELECT 1 AS a",),
                                                "CREATE OR REPLACE VIEW v AS SELECT 2 AS b"),
    "drop_global_temporary_view": Case(GLOBAL_G, "DROP VIEW global_temp.g"),
    "rename_global_temporary_view": Case(GLOBAL_G, "ALTER VIEW global_temp.g RENAME TO global_temp.h"),
    "drop_function_with_a_temporary_function": Case(FUNCTIONS, "DROP FUNCTION f"),
    "drop_function_if_exists_with_a_temporary_function": Case(FUNCTIONS, "DROP FUNCTION IF EXISTS f"),
    "drop_function_named_like_a_builtin": Case(FUNCTIONS, "DROP FUNCTION abs"),
    "drop_persistent_function_qualified": Case(FUNCTIONS, "DROP FUNCTION `default`.f"),
}


@pytest.mark.parametrize("case", DEFECT4.values(), ids=DEFECT4.keys())
def test_defect4_temporary_views_and_functions_resolve_as_in_spark(
    spark: Any, warehouse: Path, tmp_path: Path, case: Case
) -> None:
    assert_parity(spark, warehouse, tmp_path, case)


def test_defect4_create_table_like_a_temporary_view_is_refused_or_matches_spark(
    spark: Any, warehouse: Path, tmp_path: Path
) -> None:
    reset_spark(spark, warehouse)
    try:
        with fresh_session(spark) as session, AtomicDDL(spark=session, home=tmp_path / "home") as ddl:
            for statement in TEMP_T:
                session.sql(statement)
            with pytest.raises(UnsupportedStatementError, match=r"temporary view `t`.*would not be atomic"):
                ddl.sql("CREATE TABLE t2 LIKE t")
            assert not session.catalog.tableExists("spark_catalog.default.t2")
    finally:
        reset_spark(spark, warehouse)
    assert assert_parity(spark, warehouse, tmp_path / "allowed", Case(TEMP_T, "CREATE TABLE t2 LIKE t"),
                         allow_non_atomic=True)[0] == "ok"


# ---------------------------------------------------------------------------------------------------- the same class

HIVE_DB_R = ("CREATE DATABASE db", "CREATE TABLE db.r (a INT) USING parquet", "CREATE VIEW db.v AS SELECT 1 AS a")

RENAMES_AND_LIKE = {
    "rename_keeps_the_database_of_the_old_name": Case(HIVE_DB_R, "ALTER TABLE db.r RENAME TO r2"),
    "rename_view_keeps_the_database_of_the_old_name": Case(HIVE_DB_R, "ALTER VIEW db.v RENAME TO v2"),
    "rename_keeps_the_database_after_use": Case((*HIVE_DB_R, *HIVE_T, "USE db"),
                                                "ALTER TABLE `default`.t RENAME TO t5"),
    "rename_into_another_database_is_a_spark_error": Case(HIVE_DB_R, "ALTER TABLE db.r RENAME TO `default`.r"),
    "rename_to_a_three_part_name_is_a_spark_error": Case(HIVE_DB_R, "ALTER TABLE db.r RENAME TO spark_catalog.db.r3"),
    "create_table_like_three_part_is_a_spark_error": Case((*HIVE_DB_R, *HIVE_T),
                                                          "CREATE TABLE spark_catalog.db.lk LIKE t"),
    "drop_database_in_another_catalog": Case(("CREATE NAMESPACE other.d", "CREATE DATABASE spark_catalog.d"),
                                             "DROP DATABASE other.d"),
}


@pytest.mark.parametrize("case", RENAMES_AND_LIKE.values(), ids=RENAMES_AND_LIKE.keys())
def test_rename_like_and_database_names_resolve_as_in_spark(
    spark: Any, warehouse: Path, tmp_path: Path, case: Case
) -> None:
    assert_parity(spark, warehouse, tmp_path, case)


def test_the_api_refuses_to_act_while_another_catalog_is_current(spark: Any, warehouse: Path, tmp_path: Path) -> None:
    """AtomicDDL names objects ``db.name``; Spark would resolve those in the current catalog, so the API refuses
    (naming the catalog, writing nothing) instead of acting on another catalog's table of that name."""
    from storage.errors import CatalogError

    reset_spark(spark, warehouse)
    try:
        with fresh_session(spark) as session, AtomicDDL(spark=session, home=tmp_path / "home") as ddl:
            for statement in (*OTHER_NS, *HIVE_T):
                session.sql(statement)
            session.sql("USE other.ns")
            with pytest.raises(CatalogError) as raised:
                ddl.drop_tables(["ns.t"])
            assert raised.value.name == "other" and ddl.binlog_events() == []
            assert session.catalog.tableExists("other.ns.t") and session.catalog.tableExists("spark_catalog.default.t")
            session.sql("USE spark_catalog.default")
            ddl.drop_tables(["default.t"])
            assert not session.catalog.tableExists("spark_catalog.default.t")
    finally:
        reset_spark(spark, warehouse)
