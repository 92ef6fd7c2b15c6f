"""The Spark catalog views and persistent functions (storage.catalogs.spark: views, functions) against the embedded
Spark 4 + Hive metastore. (Databases: test_spark_databases.py.)"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from storage.catalogs.interface import Column, DatabaseObjects, FunctionDefinition, TableSpec, ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.sql.function_records import (
    RECORD_PREFIX,
    decode_records,
    encode_record,
    encode_text,
    record_id,
)
from storage.catalogs.spark.sql.view_statements import VIEW_RECORD
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)
from tests.spark.catalog_support import ABS, HOSTILE, UPPER, T, assert_short

pytestmark = pytest.mark.spark


@pytest.fixture
def fdb(catalog: Catalog) -> str:
    """A database for functions: the clean-up drops it with CASCADE, functions and their records with it."""
    catalog.databases.create_database("fdb")
    return "fdb"


@pytest.fixture
def table(catalog: Catalog) -> TableName:
    name = T("t1")
    catalog.data.create(name, TableSpec(columns=(Column("a", "int"), Column("b c", "string"))), "tag-1")
    return name


@pytest.fixture
def temp_function(clean_spark: Any) -> Iterator[str]:
    """A temporary function ``tf`` (session state the shared clean-up does not know about)."""
    clean_spark.sql(f"CREATE TEMPORARY FUNCTION tf AS '{ABS}'")
    yield "tf"
    clean_spark.sql("DROP TEMPORARY FUNCTION IF EXISTS tf")


def test_spark_catalog_is_a_catalog(spark: Any) -> None:
    assert isinstance(spark_catalog(spark), Catalog)


# ---------------------------------------------------------------------- views


VIEW_DEFINITIONS = [
    ViewDefinition("SELECT a, `b c` FROM `default`.`t1`"),
    ViewDefinition("SELECT a AS x FROM `default`.`t1` WHERE a > 1", comment=HOSTILE),
    ViewDefinition("SELECT * FROM `default`.`t1`", comment="", columns=("x`y", "ü z")),
    ViewDefinition("SELECT a, `b c` FROM `default`.`t1`", columns=("a", "b c")),  # the query's own names
    ViewDefinition("  \n SELECT 'it''s', '\\\\', '\\u0024{x}' AS s -- trailing comment\n ;  "),
    ViewDefinition("/* lead */ WITH q AS (SELECT 1 AS one) SELECT one FROM q"),
    ViewDefinition("SELECT '${spark.app.name}' AS app", columns=("A",)),
    ViewDefinition(" SELECT 'secret' AS token, 'x' AS password ", columns=("access_key", "b")),  # Spark redacts these
]


def test_a_view_is_reported_as_stored_view_foretold_and_re_creates_from_that(catalog: Catalog,
                                                                              table: TableName) -> None:
    for i, definition in enumerate(VIEW_DEFINITIONS):
        name = T(f"v{i}")
        foretold = catalog.views.stored_view(name, definition)
        catalog.views.create_view(name, definition, replace=False)
        assert catalog.views.view_definition(name) == foretold, definition
        catalog.views.create_view(name, foretold, replace=True)
        assert catalog.views.view_definition(name) == foretold, "and again after a re-create from it"
        assert catalog.views.stored_view(name, foretold) == foretold
    assert catalog.databases.list_objects("default").views == tuple(T(f"v{i}") for i in range(len(VIEW_DEFINITIONS)))


def test_stored_view_states_a_definition_as_spark_stores_it(catalog: Catalog, table: TableName) -> None:
    stored = catalog.views.stored_view
    assert stored(T("v"), ViewDefinition(" SELECT a FROM `default`.`t1` -- c\n ; ")) == ViewDefinition(
        "SELECT a FROM `default`.`t1`"), "the View Text"
    assert stored(T("v"), ViewDefinition("SELECT a, `b c` FROM `default`.`t1`", columns=("a", "b c"))) == (
        ViewDefinition("SELECT a, `b c` FROM `default`.`t1`")), "a column list of the query's own names is none"
    assert stored(T("v"), ViewDefinition("SELECT a FROM `default`.`t1`", columns=("x",), schema_mode="EVOLUTION")) == (
        ViewDefinition("SELECT a FROM `default`.`t1`", columns=("x",), schema_mode="TYPE EVOLUTION"))
    assert stored(T("v"), ViewDefinition("SELECT 1 AS x", schema_mode="COMPENSATION")) == ViewDefinition(
        "SELECT 1 AS x"), "Spark's default mode"
    assert stored(T("v"), ViewDefinition("SELECT 1 AS x", properties=(("b", "2"), ("a", "1")))).properties == (
        ("a", "1"), ("b", "2"))
    for bad in (ViewDefinition("SELECT nope FROM `default`.`t1`", columns=("x",)),
                ViewDefinition("SELECT 1 AS x", schema_mode="SOMETIMES"),
                ViewDefinition("SELECT 1 AS x", properties=((VIEW_RECORD, "x"),))):
        with pytest.raises(CatalogError):
            stored(T("v"), bad)
    assert catalog.databases.list_objects("default").views == (), "nothing made"


def test_view_definition_of_views_made_elsewhere(catalog: Catalog, table: TableName, clean_spark: Any) -> None:
    clean_spark.sql("CREATE VIEW `default`.`v1` (x, `y z`) COMMENT 'c' AS  SELECT a, `b c` FROM `default`.`t1` ;")
    clean_spark.sql("CREATE VIEW `default`.`v2` (a, `b c`) AS SELECT * FROM `default`.`t1`")
    clean_spark.sql("CREATE VIEW `default`.`v3` AS SELECT '${spark.app.name}' AS app")
    v1 = catalog.views.view_definition(T("v1"))
    assert v1 == ViewDefinition("SELECT a, `b c` FROM `default`.`t1`", "c", ("x", "y z"))
    assert catalog.views.view_definition(T("v2")) == ViewDefinition("SELECT * FROM `default`.`t1`"), (
        "a column list equal to the query's names cannot be told from none"
    )
    assert catalog.views.view_definition(T("v3")) == ViewDefinition("SELECT 'spark-ddl-log' AS app"), "substituted"
    for name in (T("v1"), T("v2"), T("v3")):
        before = catalog.views.view_definition(name)
        assert before is not None
        catalog.views.create_view(name, before, replace=True)
        assert catalog.views.view_definition(name) == before
    # A record no longer describing the view (ALTER VIEW made outside the log keeps properties) is not used.
    catalog.views.create_view(T("v4"), ViewDefinition(" SELECT 1 AS one "), replace=False)
    clean_spark.sql("ALTER VIEW `default`.`v4` AS SELECT 2 AS two")
    assert catalog.views.view_definition(T("v4")) == ViewDefinition("SELECT 2 AS two")
    # The definition is read without analysing the query: it survives the loss of the table it reads.
    catalog.names.drop(table)
    assert catalog.views.view_definition(T("v1")) == v1


def test_a_view_holds_nothing_of_the_log(catalog: Catalog, table: TableName, clean_spark: Any) -> None:
    catalog.views.create_view(T("v1"), ViewDefinition(" SELECT a FROM `default`.`t1`;", columns=("q",), comment="c",
                                                 properties=(("team", "etl"),)), replace=False)
    shown = [clean_spark.sql(f"{verb} `default`.`v1`").collect()
             for verb in ("SHOW TBLPROPERTIES", "SHOW CREATE TABLE", "DESCRIBE TABLE EXTENDED")]
    assert "spark_ddl_log" not in repr(shown) and "team" in repr(shown)


def test_a_definition_an_older_version_recorded_on_a_view_is_still_read(catalog: Catalog, table: TableName,
                                                                         clean_spark: Any) -> None:
    record = encode_text({"query": " SELECT a FROM `default`.`t1` ;", "text": "SELECT a FROM `default`.`t1`",
                          "columns": ["a"]})
    clean_spark.sql(f"CREATE VIEW `default`.`v1` (a) TBLPROPERTIES ('{VIEW_RECORD}' = '{record}') "
                    "AS SELECT a FROM `default`.`t1`")
    assert catalog.views.view_definition(T("v1")) == ViewDefinition(" SELECT a FROM `default`.`t1` ;", columns=("a",))
    clean_spark.sql("ALTER VIEW `default`.`v1` AS SELECT a AS b FROM `default`.`t1`")
    assert catalog.views.view_definition(T("v1")) == ViewDefinition("SELECT a AS b FROM `default`.`t1`"), (
        "a record no longer describing the view is not used")


def test_create_view_errors(catalog: Catalog, table: TableName, clean_spark: Any) -> None:
    catalog.views.create_view(T("v1"), ViewDefinition("SELECT 1 AS x"), replace=False)
    cases: list[tuple[TableName, ViewDefinition, bool, type[CatalogError], str | None]] = [
        (T("v1"), ViewDefinition("SELECT 2 AS x"), False, ObjectExistsError, "default.v1"),
        (T("t1"), ViewDefinition("SELECT 2 AS x"), False, ObjectExistsError, "default.t1"),
        (T("t1"), ViewDefinition("SELECT 2 AS x"), True, ObjectExistsError, "default.t1"),
        (T("v2"), ViewDefinition("SELECT * FROM `default`.`nope`"), False, NoSuchObjectError, "default.nope"),
        (T("v2", db="nodb"), ViewDefinition("SELECT 1 AS x"), False, NoSuchObjectError, "nodb"),
        (T("v2"), ViewDefinition("SELECT nope FROM `default`.`t1`"), False, InvalidDefinitionError, "default.v2"),
        (T("v2"), ViewDefinition("SELECT 1; DROP TABLE `default`.`t1`"), False, InvalidDefinitionError, "default.v2"),
        (T("v2"), ViewDefinition("  ;  "), False, InvalidDefinitionError, "default.v2"),
        (T("v2"), ViewDefinition("SELECT 1 AS x", columns=("a", "b")), False, InvalidDefinitionError, "default.v2"),
        (T("v2"), ViewDefinition("SELECT 1 AS x", columns=("${x}",)), False, InvalidNameError, "${x}"),
        (T("a b"), ViewDefinition("SELECT 1 AS x"), False, InvalidNameError, "default.a b"),
        (T("v${x}"), ViewDefinition("SELECT 1 AS x"), False, InvalidNameError, "default.v${x}"),
    ]
    for name, definition, replace, error, label in cases:
        with pytest.raises(error) as raised:
            catalog.views.create_view(name, definition, replace=replace)
        assert raised.value.name == label, (name, definition)
        assert_short(raised.value)
    clean_spark.sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    with pytest.raises(InvalidDefinitionError, match="INVALID_TEMP_OBJ_REFERENCE"):
        catalog.views.create_view(T("v2"), ViewDefinition("SELECT * FROM tv"), replace=False)
    assert catalog.views.view_definition(T("v1")) == ViewDefinition("SELECT 1 AS x"), "untouched"
    assert catalog.databases.list_objects("default") == DatabaseObjects(tables=(T("t1"),), views=(T("v1"),))
    assert not [row for row in clean_spark.sql("SHOW VIEWS").collect() if row["viewName"].startswith("ddllog_")]


def test_rename_and_drop_view(catalog: Catalog, table: TableName, clean_spark: Any) -> None:
    definition = ViewDefinition(" SELECT a AS x FROM `default`.`t1` ", HOSTILE, ("X",))
    catalog.views.create_view(T("v1"), definition, replace=False)
    catalog.views.create_view(T("v2"), ViewDefinition("SELECT 2 AS y"), replace=False)
    catalog.views.rename_view(T("v1"), T("v3"))
    assert catalog.views.view_definition(T("v1")) is None
    assert catalog.views.view_definition(T("v3")) == catalog.views.stored_view(T("v3"),
                                                                               definition), "it moves with the view"
    errors: list[tuple[Any, type[CatalogError], str]] = [
        (lambda: catalog.views.rename_view(T("v3"), T("v2")), ObjectExistsError, "default.v2"),
        (lambda: catalog.views.rename_view(T("v3"), T("t1")), ObjectExistsError, "default.t1"),
        (lambda: catalog.views.rename_view(T("nope"), T("v9")), NoSuchObjectError, "default.nope"),
        (lambda: catalog.views.rename_view(T("t1"), T("v9")), WrongObjectKindError, "default.t1"),
        (lambda: catalog.views.rename_view(T("v3"), T("a b")), InvalidNameError, "default.a b"),
        (lambda: catalog.views.rename_view(T("v3"), T("v9", db="other")), CatalogError, "other.v9"),
        (lambda: catalog.views.drop_view(T("nope")), NoSuchObjectError, "default.nope"),
        (lambda: catalog.views.drop_view(T("t1")), WrongObjectKindError, "default.t1"),
        (lambda: catalog.views.drop_view(T("v1", db="nodb")), NoSuchObjectError, "nodb.v1"),
    ]
    for call, error, label in errors:
        with pytest.raises(error) as raised:
            call()
        assert raised.value.name == label
        assert_short(raised.value)
    assert catalog.names.exists(T("t1")) and catalog.views.view_definition(T("v2")) is not None
    catalog.views.drop_view(T("v3"))
    assert catalog.views.view_definition(T("v3")) is None


def test_temporary_views_are_not_persistent_views(catalog: Catalog, clean_spark: Any) -> None:
    clean_spark.sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    clean_spark.sql("CREATE OR REPLACE GLOBAL TEMPORARY VIEW gv AS SELECT 1 AS x")
    try:
        assert catalog.views.view_definition(T("tv")) is None
        assert catalog.views.view_definition(T("gv", db="global_temp")) is None
        with pytest.raises(NoSuchObjectError):
            catalog.views.drop_view(T("tv"))
        with pytest.raises(NoSuchObjectError):
            catalog.views.drop_view(T("gv", db="global_temp"))
        with pytest.raises(NoSuchObjectError):
            catalog.views.rename_view(T("gv", db="global_temp"), T("gv2", db="global_temp"))
        assert catalog.databases.list_objects("default") == DatabaseObjects()
        assert clean_spark.catalog.tableExists("global_temp.gv"), "untouched"
    finally:
        clean_spark.catalog.dropGlobalTempView("gv")


# ---------------------------------------------------------------------- functions


def test_class_function_with_resources_round_trips(catalog: Catalog, fdb: str, clean_spark: Any) -> None:
    definition = FunctionDefinition(
        class_name=ABS,
        resources=(("jar", "file:///no/such/dir/udf.jar"), ("FILE", f"file:///tmp/{HOSTILE}"), ("archive", "a.zip")),
    )
    catalog.functions.create_function(T("f1", fdb), definition, replace=False)
    assert catalog.functions.function_definition(T("f1", fdb)) == definition
    assert catalog.functions.function_definition(T("F1", fdb)) == definition, "function names are case-insensitive"
    secret = FunctionDefinition(class_name=ABS, resources=(("jar", "s3://bucket/secret/token.jar"),))
    catalog.functions.create_function(T("get_token", fdb), secret, replace=False)  # Spark redacts matching properties
    assert catalog.functions.function_definition(T("get_token", fdb)) == secret
    plain = FunctionDefinition(class_name=ABS)
    catalog.functions.create_function(T("f2", fdb), plain, replace=False)
    assert catalog.functions.function_definition(T("f2", fdb)) == plain
    assert clean_spark.sql(f"SELECT `{fdb}`.`f2`(-3) AS v").first()["v"] == 3, "the function works"
    replacement = FunctionDefinition(class_name=UPPER, resources=(("jar", "file:///other.jar"),))
    catalog.functions.create_function(T("f1", fdb), replacement, replace=True)
    assert catalog.functions.function_definition(T("f1", fdb)) == replacement
    catalog.functions.create_function(T("f1", fdb), definition, replace=True)  # undo of the replace
    assert catalog.functions.function_definition(T("f1", fdb)) == definition
    # Replaced outside the log by another class: the record no longer applies, Spark's view is reported.
    clean_spark.sql(f"CREATE OR REPLACE FUNCTION `{fdb}`.`f1` AS '{UPPER}'")
    assert catalog.functions.function_definition(T("f1", fdb)) == FunctionDefinition(class_name=UPPER)
    assert catalog.databases.list_objects(fdb).functions == (T("f1", fdb), T("f2", fdb), T("get_token", fdb))
    catalog.functions.drop_function(T("get_token", fdb))
    catalog.functions.drop_function(T("f1", fdb))
    assert catalog.functions.function_definition(T("f1", fdb)) is None
    assert RECORD_PREFIX not in database_properties(clean_spark, fdb), "the record went with the function"


def database_properties(spark: Any, db: str) -> str:
    rows = spark.sql(f"DESCRIBE DATABASE EXTENDED `{db}`").collect()
    return next(str(row[1]) for row in rows if row[0] == "Properties")


SQL_FUNCTIONS = [
    FunctionDefinition(params="x INT", returns="INT", body="x + 1"),  # Spark's own form: needs no record
    FunctionDefinition(
        params="  x   int , y decimal(10, 2) comment 'it\\'s' default 1.5 ",
        returns="decimal(10,2)",
        body="  x + y  ",
    ),
    FunctionDefinition(params="", returns="STRING NOT DETERMINISTIC COMMENT 'c\\\\'", body="uuid()"),
    FunctionDefinition(params="s STRING", returns="STRING", body="concat(s, '${spark.app.name}', '\\u0024{x}')"),
    FunctionDefinition(
        params="n INT", returns="TABLE (v INT, `w x` STRING)", body="SELECT n, 'w' UNION ALL SELECT 2, 'z'"
    ),
    FunctionDefinition(params="n int", returns="table", body="select n as v"),
    FunctionDefinition(params="", returns="INT", body="(SELECT max(id) FROM range(3))"),
]


def test_sql_function_round_trips_exactly(catalog: Catalog, fdb: str) -> None:
    for i, definition in enumerate(SQL_FUNCTIONS):
        name = T(f"s{i}", fdb)
        catalog.functions.create_function(name, definition, replace=False)
        assert catalog.functions.function_definition(name) == definition, "what create_function was given"
        catalog.functions.create_function(name, catalog.functions.function_definition(name), replace=True)  # type: ignore[arg-type]
        assert catalog.functions.function_definition(name) == definition, "and again after a re-create from it"
    assert len(catalog.databases.list_objects(fdb).functions) == len(SQL_FUNCTIONS)


def test_sql_functions_made_elsewhere_and_replacing_class_functions(
    catalog: Catalog, fdb: str, clean_spark: Any
) -> None:
    clean_spark.sql(
        f"CREATE FUNCTION `{fdb}`.`s1`(x int comment 'p', y string default 'd') RETURNS string "
        "NOT DETERMINISTIC READS SQL DATA SQL SECURITY DEFINER COMMENT 'it\\'s ${spark.app.name}' RETURN y || x"
    )
    reported = catalog.functions.function_definition(T("s1", fdb))
    assert reported == FunctionDefinition(
        params="x INT COMMENT 'p', y STRING DEFAULT 'd'",
        returns="STRING NOT DETERMINISTIC READS SQL DATA COMMENT 'it\\'s spark-ddl-log'",
        body="y || x",
    ), "Spark's normalised form; the characteristics it keeps are part of returns"
    catalog.functions.create_function(T("s1", fdb), reported, replace=True)  # type: ignore[arg-type]
    assert catalog.functions.function_definition(T("s1", fdb)) == reported
    assert clean_spark.sql(f"SELECT `{fdb}`.`s1`(1) AS v").first()["v"] == "d1"
    # A class function cannot be replaced by a SQL one in Spark; create_function drops it first.
    catalog.functions.create_function(
        T("f1", fdb), FunctionDefinition(class_name=ABS, resources=(("jar", "x.jar"),)), replace=False
    )
    sql = FunctionDefinition(params="x int", returns="int", body="x * 2")
    catalog.functions.create_function(T("f1", fdb), sql, replace=True)
    assert catalog.functions.function_definition(T("f1", fdb)) == sql
    catalog.functions.create_function(
        T("f1", fdb), FunctionDefinition(class_name=ABS, resources=(("jar", "x.jar"),)), replace=True
    )
    assert catalog.functions.function_definition(T("f1", fdb)) == FunctionDefinition(
        class_name=ABS, resources=(("jar", "x.jar"),)
    )


def test_long_sql_function_records_are_chunked(catalog: Catalog, fdb: str, clean_spark: Any) -> None:
    rng = random.Random(7)
    words = [f"'{rng.getrandbits(64):016x}'" for _ in range(800)]  # incompressible: ~15 kB of record
    definition = FunctionDefinition(params="x int", returns="string", body=f"concat_ws(',', x, {', '.join(words)})")
    catalog.functions.create_function(T("s1", fdb), definition, replace=False)
    assert catalog.functions.function_definition(T("s1", fdb)) == definition
    properties = database_properties(clean_spark, fdb)
    assert f"{RECORD_PREFIX}{record_id('s1')}.3," in properties, "split below the metastore's 4000-character limit"
    catalog.functions.create_function(T("s1", fdb), FunctionDefinition(params="x int", returns="int", body="x"),
                                      replace=True)
    assert catalog.functions.function_definition(T("s1", fdb)) == FunctionDefinition(params="x int", returns="int",
                                                                                     body="x")
    properties = database_properties(clean_spark, fdb)
    assert f"{record_id('s1')}.0," in properties and f"{record_id('s1')}.1," not in properties, "stale chunks removed"


def test_record_encoding() -> None:
    rng = random.Random(3)
    document = {"def": {"body": HOSTILE + "".join(chr(rng.randrange(32, 0x3000)) for _ in range(5000))}, "prev": None}
    encoded = encode_record("f", document)
    assert len(encoded) > 1 and all(len(value) < 4000 for value in encoded.values())
    text = "((a,1), " + ", ".join(f"({k},{v})" for k, v in sorted(encoded.items())) + ", (z,(x, y)))"
    assert decode_records(text).documents == {record_id("f"): document}
    torn = dict(encoded)
    torn.pop(sorted(torn)[-1])
    assert decode_records(", ".join(f"({k},{v})" for k, v in torn.items())).documents == {}, "torn: ignored"


def test_function_errors(catalog: Catalog, fdb: str, temp_function: str) -> None:
    catalog.functions.create_function(T("f1", fdb), FunctionDefinition(class_name=ABS), replace=False)
    cases: list[tuple[TableName, FunctionDefinition, type[CatalogError], str]] = [
        (T("f1", fdb), FunctionDefinition(class_name=UPPER), ObjectExistsError, "fdb.f1"),
        (T("f2", "nodb"), FunctionDefinition(class_name=ABS), NoSuchObjectError, "nodb"),
        (T("f2", "nodb"), FunctionDefinition(params="", returns="INT", body="1"), NoSuchObjectError, "nodb"),
        (T("f 2", fdb), FunctionDefinition(class_name=ABS), InvalidNameError, "fdb.f 2"),
        (T("fü", fdb), FunctionDefinition(class_name=ABS), InvalidNameError, "fdb.fü"),
        (T("f2", fdb), FunctionDefinition(), InvalidDefinitionError, "fdb.f2"),
        (T("f2", fdb), FunctionDefinition(class_name=ABS, resources=(("egg", "x"),)), InvalidDefinitionError, "fdb.f2"),
        (T("f2", fdb), FunctionDefinition(class_name=ABS, params="x INT"), InvalidDefinitionError, "fdb.f2"),
        (T("f2", fdb), FunctionDefinition(params="x INT", returns="INT", body="y"), InvalidDefinitionError, "fdb.f2"),
        (
            T("f2", fdb),
            FunctionDefinition(params="x INT", returns="nosuchtype", body="x"),
            InvalidDefinitionError,
            "fdb.f2",
        ),
        (T("f2", fdb), FunctionDefinition(params="", returns="INT", body="   "), InvalidDefinitionError, "fdb.f2"),
        (
            T("f2", fdb),
            FunctionDefinition(params="", returns="INT", body="(SELECT * FROM nope)"),
            NoSuchObjectError,
            "nope",
        ),
    ]
    for name, definition, error, label in cases:
        with pytest.raises(error) as raised:
            catalog.functions.create_function(name, definition, replace=False)
        assert raised.value.name == label, (name, definition)
        assert "ddllog_" not in str(raised.value), "the probe's name is never shown"
        assert_short(raised.value)
    # Spark refuses only the persistent function (temporary view), after its record was written and the class
    # function it replaces was dropped: the class function and its record come back.
    catalog.functions.create_function(
        T("f3", fdb), FunctionDefinition(class_name=ABS, resources=(("jar", "a.jar"),)), replace=False
    )
    spark = catalog.backend.spark
    spark.sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    refused = FunctionDefinition(params="x int", returns="int", body="(SELECT max(x) FROM tv)")
    with pytest.raises(InvalidDefinitionError, match="INVALID_TEMP_OBJ_REFERENCE"):
        catalog.functions.create_function(T("f3", fdb), refused, replace=True)
    assert catalog.functions.function_definition(T("f3", fdb)) == FunctionDefinition(
        class_name=ABS, resources=(("jar", "a.jar"),)
    )
    with pytest.raises(InvalidDefinitionError, match="INVALID_TEMP_OBJ_REFERENCE"):
        catalog.functions.create_function(T("f4", fdb), refused, replace=False)
    assert catalog.functions.function_definition(T("f4", fdb)) is None
    assert record_id("f4") not in database_properties(spark, fdb)
    for name in (T("nope", fdb), T("nope", "nodb"), T("a b", fdb), T(temp_function)):
        with pytest.raises(NoSuchObjectError) as missing:
            catalog.functions.drop_function(name)
        assert_short(missing.value)
        assert catalog.functions.function_definition(name) is None
    assert catalog.functions.function_definition(T("abs")) is None, "builtins are not persistent functions"
    assert catalog.databases.list_objects("default").functions == (), "nor are temporary functions"
    assert catalog.databases.list_objects(fdb).functions == (T("f1", fdb), T("f3", fdb))
