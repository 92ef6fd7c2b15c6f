"""SparkCatalog against a real embedded Spark 4 + Hive metastore (one shared session per test process)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql.types import DataType

from storage.catalogs.interface import TAG_PROPERTY, Catalog, Column, Fill, TableSpec
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.catalog import SparkCatalog
from storage.catalogs.spark.engine import local_path, short_message, sql_string_literal
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
)

pytestmark = pytest.mark.spark

BOOM_SELECT = "SELECT CASE WHEN id = 5000 THEN raise_error('boom') ELSE id END AS v, id % 3 AS k FROM range(10000)"


def T(name: str, db: str = "default") -> TableName:  # noqa: N802 - reads like a constructor
    return TableName(db, name)


def columns(*pairs: tuple[str, str]) -> tuple[Column, ...]:
    return tuple(Column(name, type_) for name, type_ in pairs)


SIMPLE = TableSpec(columns=columns(("a", "int"), ("b", "string")))


@pytest.fixture
def catalog(tidy_spark: Any) -> SparkCatalog:
    return SparkCatalog(tidy_spark)


def describe(spark: Any, name: TableName) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(spark.sql(f"DESCRIBE TABLE EXTENDED {name.quoted} AS JSON").first()[0])
    return result


def properties(spark: Any, name: TableName) -> dict[str, str]:
    return {row["key"]: row["value"] for row in spark.sql(f"SHOW TBLPROPERTIES {name.quoted}").collect()}


def tree(path: Path) -> list[str]:
    """Every file and directory under ``path``, relative, sorted (empty when ``path`` is missing)."""
    if not path.exists():
        return []
    return sorted(str(entry.relative_to(path)) for entry in path.rglob("*"))


def assert_short(error: BaseException) -> None:
    """Users see one short line: no JVM stack trace, no SQL excerpt, no chained Spark exception."""
    text = str(error)
    assert "\n" not in text, text
    assert "\tat " not in text and "JVM stacktrace" not in text and "== SQL" not in text, text
    assert len(text) < 500, text
    assert error.__cause__ is None, "the Spark exception is not chained for display"
    assert error.__context__ is None or error.__suppress_context__, "nor shown as context"


# ---------------------------------------------------------------------- literals and the protocol


@pytest.mark.parametrize(
    "value",
    [
        "",
        "plain",
        "it's",
        'say "hi"',
        "back\\slash",
        "ends with a backslash \\",
        "\\'",
        "\\\\'",
        "${spark.app.name}",
        "${env:HOME} ${system:user.name}",
        "$ and $$ and ${",
        "line\nbreak\ttab\r",
        "ünïcödé ✓ 漢字 🙂",
        "-- not a comment",
        "/* not a comment */",
        "\\u0041 \\n",
        "'; DROP TABLE x; --",
        "`backticks`",
    ],
)
def test_sql_string_literal_reads_back_exactly(spark: Any, value: str) -> None:
    assert spark.sql(f"SELECT {sql_string_literal(value)} AS v").first()["v"] == value


TABLE_METHODS = ("exists", "identity", "create", "rename", "insert", "drop", "list_tables", "clean_leftovers")


def test_spark_catalog_has_the_table_methods_of_a_catalog(spark: Any) -> None:
    catalog = SparkCatalog(spark)
    for method in (*TABLE_METHODS, "check_create", "settle_rename"):
        assert callable(getattr(catalog, method)) and hasattr(Catalog, method), method
    with pytest.raises(ValueError):
        SparkCatalog(spark, leftovers="nope")  # type: ignore[arg-type]


def test_short_message_strips_engine_noise() -> None:
    py4j_text = (
        "An error occurred while calling o41.sql.\n: org.apache.spark.SparkClassNotFoundException: "
        "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: x. SQLSTATE: 42K02\n\tat org.apache.Foo(Foo.scala:1)"
    )
    assert short_message(py4j_text) == "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: x."
    connect_text = "[TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found.\nHint.\n\nJVM stacktrace:\norg.Foo"
    assert short_message(connect_text) == "[TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found."
    assert (
        short_message("An error occurred\n: java.io.IOException: disk full\n\tat x") == "java.io.IOException: disk full"
    )


def test_local_path_does_not_parse_decoded_locations_as_uris() -> None:
    assert local_path("file:/tmp/a b/c#d?e/t") == Path("/tmp/a b/c#d?e/t")
    assert local_path("file:///tmp/x") == Path("/tmp/x")
    assert local_path("/tmp/x") == Path("/tmp/x")
    assert local_path("hdfs://nn:8020/warehouse/t") is None
    assert local_path("file://otherhost/tmp/x") is None


# ---------------------------------------------------------------------- exists / identity


def test_exists(catalog: SparkCatalog, tidy_spark: Any) -> None:
    assert not catalog.exists(T("t1"))
    catalog.create(T("t1"), SIMPLE, "tag-1")
    assert catalog.exists(T("t1"))
    tidy_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    assert not catalog.exists(T("v1")), "a view is not a table"
    assert catalog.identity(T("v1")) is None
    tidy_spark.range(1).createOrReplaceTempView("tv")
    assert not catalog.exists(T("tv")), "temporary views are not in the catalog"
    assert not catalog.exists(T("t1", db="nodb"))
    for hostile in ("t1`", "t1` OR 1=1 --", "a b", "ü", "t1.t1", "`t1`"):
        assert not catalog.exists(T(hostile))


def test_identity_is_the_tag_and_follows_renames(catalog: SparkCatalog) -> None:
    catalog.create(T("t1"), SIMPLE, "tag-1")
    assert catalog.identity(T("t1")) == "tag-1"
    catalog.rename(T("t1"), T("t2"))
    assert catalog.identity(T("t2")) == "tag-1"
    assert catalog.identity(T("t1")) is None
    assert catalog.identity(T("t1", db="nodb")) is None


def test_identity_fingerprint_of_untagged_tables(catalog: SparkCatalog, tidy_spark: Any) -> None:
    tidy_spark.sql("CREATE TABLE `default`.`u1` (a INT) USING parquet")
    first = catalog.identity(T("u1"))
    assert first is not None and first.startswith("fp:")
    assert catalog.identity(T("u1")) == first, "stable"
    catalog.rename(T("u1"), T("u2"))
    assert catalog.identity(T("u2")) == first, "survives a rename"
    time.sleep(1.1)  # creation time has a one-second resolution: same-shape tables within a second share a print
    tidy_spark.sql("CREATE TABLE `default`.`u1` (a INT) USING parquet")
    assert catalog.identity(T("u1")) not in (None, first)
    tidy_spark.sql("CREATE TABLE `default`.`u3` (a BIGINT) USING parquet")
    assert catalog.identity(T("u3")) not in (None, first, catalog.identity(T("u1")))


# ---------------------------------------------------------------------- create: columns


def test_create_columns_with_hostile_names_comments_and_properties(catalog: SparkCatalog, tidy_spark: Any) -> None:
    hostile = "it's \\ a \"test\" ${env:HOME} -- /* \n ü ' \\"
    spec = TableSpec(
        columns=(
            Column("a`b", "int", comment=hostile),
            Column("c d", "string"),
            Column("ü", "bigint", comment="\\"),
            Column("x.y", "double"),
            Column("'q'", "boolean"),
        ),
        properties=(("k'1", hostile), ("k\\2", "\\"), ("k$3", "${spark.app.name}")),
        comment=hostile,
    )
    catalog.create(T("t1"), spec, "tag'\\${x}")
    info = describe(tidy_spark, T("t1"))
    assert [column["name"] for column in info["columns"]] == ["a`b", "c d", "ü", "x.y", "'q'"]
    assert info["columns"][0]["comment"] == hostile
    assert info["columns"][2]["comment"] == "\\"
    assert info["comment"] == hostile
    assert info["provider"] == "parquet"
    props = properties(tidy_spark, T("t1"))
    assert props["k'1"] == hostile and props["k\\2"] == "\\" and props["k$3"] == "${spark.app.name}"
    assert props[TAG_PROPERTY] == "tag'\\${x}"
    assert catalog.identity(T("t1")) == "tag'\\${x}"
    tidy_spark.sql("INSERT INTO `default`.`t1` VALUES (1, 'x', 2, 3.0, true)")
    assert tidy_spark.table("`default`.`t1`").count() == 1


def test_create_complex_types(catalog: SparkCatalog, tidy_spark: Any) -> None:
    types = {
        "s": "struct<`x y`: string, `q``r`: map<string, array<decimal(10,2)>> COMMENT 'it\\'s \\\\', n: int NOT NULL>",
        "c": "struct<plain: char(3), from: array<varchar(4)>, `1a`: map<int, char(1)>>",
        "arr": "array<struct<a: timestamp_ntz>>",
        "m": "map<int, varchar(5)>",
        "d": "DECIMAL(38, 9)",
        "i": "interval day to second",
        "st": "string collate UNICODE",
        "dt": "date",
        "v": "variant",
        "p": "int",
    }
    spec = TableSpec(columns=columns(*types.items()), using="parquet", partitioned_by=("p",))
    catalog.create(T("t1"), spec, "tag")
    assert catalog.exists(T("t1"))
    stored = {field["name"]: field for field in describe(tidy_spark, T("t1"))["columns"]}
    assert stored["s"]["type"]["fields"][1]["comment"] == "it's \\"
    schema = tidy_spark.table("`default`.`t1`").schema
    for field in schema.fields:
        expected = DataType.fromDDL(f"{quote_ident(field.name)} {types[field.name]}").fields[0].dataType
        if field.name in ("c", "m"):  # Spark reads CHAR/VARCHAR columns back as STRING
            continue
        assert field.dataType.simpleString() == expected.simpleString(), field.name  # nested NOT NULL is not kept


@pytest.mark.parametrize(
    "type_text",
    [
        "struct<`x y`: char(3)>",
        "struct<`x y`: int, z: varchar(3)>",
        "array<struct<`a``b`: char(2)>>",
        "map<struct<`a b`: int>, char(2)>",
        "struct<`ü`: char(3)>",
    ],
)
def test_create_refuses_types_spark_could_not_read_back(catalog: SparkCatalog, type_text: str) -> None:
    with pytest.raises(InvalidDefinitionError, match="CHAR/VARCHAR"):
        catalog.create(T("t1"), TableSpec(columns=columns(("c", type_text))), "tag")
    assert catalog.list_tables("default") == []


def test_create_partitioned_columns_table(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    spec = TableSpec(columns=columns(("a", "int"), ("p", "string"), ("q", "int")), partitioned_by=("p", "q"))
    catalog.create(T("t1"), spec, "tag")
    assert describe(tidy_spark, T("t1"))["partition_columns"] == ["p", "q"]
    tidy_spark.sql("INSERT INTO `default`.`t1` VALUES (1, 'x', 1), (2, 'y', 2)")
    assert {"p=x/q=1", "p=y/q=2"} <= set(tree(warehouse / "t1"))
    assert catalog.table_location(T("t1")) == catalog.default_location(T("t1"))


@pytest.mark.parametrize(
    "type_text",
    [
        "nosuchtype",
        "int, b string",
        "int NOT NULL",
        "int COMMENT 'x'",
        "int) USING parquet LOCATION '/tmp/evil' --",
        "int DEFAULT 5",
        "",
        "   ",
    ],
)
def test_create_rejects_bad_column_types(catalog: SparkCatalog, warehouse: Path, type_text: str) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        catalog.create(T("t1"), TableSpec(columns=columns(("a", type_text))), "tag")
    assert raised.value.name == "default.t1"
    assert_short(raised.value)
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (TableSpec(columns=columns(("a", "int")), using="parquet; DROP TABLE x"), "provider"),
        (TableSpec(columns=columns(("a", "int")), using="nosuchformat"), "DATA_SOURCE_NOT_FOUND"),
        (TableSpec(columns=columns(("a", "int"), ("b", "int")), partitioned_by=("zz",)), "zz"),
        (TableSpec(columns=columns(("a", "int")), partitioned_by=("a",)), "ALL_PARTITION_COLUMNS"),
        (TableSpec(columns=columns(("a", "int"), ("A", "int"))), "COLUMN_ALREADY_EXISTS"),
        (TableSpec(columns=columns(("a", "void"))), "VOID"),
        (TableSpec(columns=columns(("a", "int")), properties=((TAG_PROPERTY, "x"),)), "reserved"),
        (TableSpec(columns=columns(("a", "int")), properties=(("k", "1"), ("k", "2"))), "duplicate"),
        (TableSpec(columns=columns(("a", "int")), properties=(("location", "/tmp"),)), "location"),
        (TableSpec(columns=()), "at least one column"),
        (TableSpec(columns=columns(("${x}", "int"))), "${"),
        (TableSpec(), "exactly one"),
        (TableSpec(columns=columns(("a", "int")), as_select="SELECT 1"), "exactly one"),
        (TableSpec(like=TableName("default", "src"), partitioned_by=("a",)), "like"),
        (TableSpec(as_select="   ;  "), "empty SELECT"),
    ],
)
def test_create_rejects_bad_definitions(catalog: SparkCatalog, warehouse: Path, spec: TableSpec, fragment: str) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        catalog.create(T("t1"), spec, "tag")
    assert fragment in str(raised.value)
    assert_short(raised.value)
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []


def test_create_existing_name(catalog: SparkCatalog, tidy_spark: Any) -> None:
    catalog.create(T("t1"), SIMPLE, "tag-1")
    with pytest.raises(ObjectExistsError) as raised:
        catalog.create(T("t1"), TableSpec(as_select="SELECT 1 AS z"), "tag-2")
    assert raised.value.name == "default.t1"
    assert catalog.identity(T("t1")) == "tag-1", "the existing table is untouched"
    tidy_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(ObjectExistsError):
        catalog.create(T("v1"), SIMPLE, "tag-3")


def test_create_in_missing_database(catalog: SparkCatalog) -> None:
    with pytest.raises(NoSuchObjectError) as raised:
        catalog.create(T("t1", db="nodb"), SIMPLE, "tag")
    assert raised.value.name == "nodb"
    assert_short(raised.value)


@pytest.mark.parametrize(
    "hostile", ["a b", "a`b", "ü", "a.b", "a/b", "..", "x'y", 'x"y', "t` (a int) USING parquet --", "a\\b", "#x"]
)
def test_create_refuses_names_spark_cannot_hold(catalog: SparkCatalog, tidy_spark: Any, hostile: str) -> None:
    with pytest.raises(InvalidNameError) as raised:
        catalog.create(T(hostile), SIMPLE, "tag")
    assert raised.value.name == f"default.{hostile}"
    assert_short(raised.value)
    assert catalog.list_tables("default") == []


def test_names_with_variable_substitution_are_refused(catalog: SparkCatalog) -> None:
    catalog.create(T("4"), SIMPLE, "four")  # ${spark.sql.shuffle.partitions} would read as 4
    sneaky = T("${spark.sql.shuffle.partitions}")
    assert not catalog.exists(sneaky)
    assert catalog.identity(sneaky) is None
    with pytest.raises(NoSuchObjectError):
        catalog.drop(sneaky)
    with pytest.raises(InvalidNameError):
        catalog.create(sneaky, SIMPLE, "tag")
    with pytest.raises(InvalidNameError):
        catalog.rename(T("4"), sneaky)
    assert catalog.identity(T("4")) == "four"


# ---------------------------------------------------------------------- create: like


def test_create_like_copies_shape_but_not_properties(catalog: SparkCatalog, tidy_spark: Any) -> None:
    source = TableSpec(
        columns=columns(("a", "int"), ("p", "string")),
        using="orc",
        partitioned_by=("p",),
        properties=(("owner_note", "source only"),),
    )
    catalog.create(T("src"), source, "tag-src")
    catalog.create(T("copy"), TableSpec(like=T("src"), properties=(("k", "v"),)), "tag-copy")
    info = describe(tidy_spark, T("copy"))
    assert [column["name"] for column in info["columns"]] == ["a", "p"]
    assert info["provider"] == "orc"
    assert info["partition_columns"] == ["p"]
    props = properties(tidy_spark, T("copy"))
    assert props[TAG_PROPERTY] == "tag-copy" and props["k"] == "v" and "owner_note" not in props


def test_create_like_missing_source(catalog: SparkCatalog, warehouse: Path) -> None:
    with pytest.raises(NoSuchObjectError) as raised:
        catalog.create(T("copy"), TableSpec(like=T("nope")), "tag")
    assert raised.value.name == "default.nope"
    assert_short(raised.value)
    assert not catalog.exists(T("copy"))
    assert tree(warehouse) == []


# ---------------------------------------------------------------------- create: as select / DataFrame


def test_create_as_select_partitioned(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    select = "-- leading comment\nSELECT id, id % 3 AS k FROM range(10) -- trailing comment\n ; "
    spec = TableSpec(as_select=select, partitioned_by=("k",), comment="from a query", properties=(("a", "b"),))
    catalog.create(T("t1"), spec, "tag")
    assert tidy_spark.table("`default`.`t1`").count() == 10
    info = describe(tidy_spark, T("t1"))
    assert info["partition_columns"] == ["k"] and info["comment"] == "from a query"
    assert {"k=0", "k=1", "k=2"} <= set(tree(warehouse / "t1"))
    assert catalog.identity(T("t1")) == "tag"


def test_create_as_select_with_cte_and_values(catalog: SparkCatalog, tidy_spark: Any) -> None:
    catalog.create(T("t1"), TableSpec(as_select="WITH q AS (SELECT 1 AS a) SELECT * FROM q"), "tag1")
    catalog.create(T("t2"), TableSpec(as_select="VALUES (1, 'a'), (2, 'b')"), "tag2")
    assert tidy_spark.table("`default`.`t2`").count() == 2


def test_create_as_select_errors(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    with pytest.raises(InvalidDefinitionError) as bad_sql:
        catalog.create(T("t1"), TableSpec(as_select="SELEC 1"), "tag")
    assert_short(bad_sql.value)
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.create(T("t1"), TableSpec(as_select="SELECT * FROM nope"), "tag")
    assert missing.value.name == "nope"
    with pytest.raises(InvalidDefinitionError):
        catalog.create(T("t1"), TableSpec(as_select="SELECT no_such_column FROM range(3)"), "tag")
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []


def test_create_as_select_cannot_run_another_statement(catalog: SparkCatalog) -> None:
    catalog.create(T("victim"), SIMPLE, "victim")
    for text in ("DROP TABLE `default`.`victim`", "SELECT 1) ; DROP TABLE `default`.`victim`; --", "SELECT 1 /*"):
        with pytest.raises(InvalidDefinitionError):
            catalog.create(T("t1"), TableSpec(as_select=text), "tag")
    assert catalog.identity(T("victim")) == "victim"
    assert not catalog.exists(T("t1"))


@pytest.mark.parametrize("partitioned", [False, True])
def test_failed_ctas_leaves_no_table_and_no_files(catalog: SparkCatalog, warehouse: Path, partitioned: bool) -> None:
    spec = TableSpec(as_select=BOOM_SELECT, partitioned_by=("k",) if partitioned else ())
    with pytest.raises(EngineOperationError) as raised:
        catalog.create(T("t1"), spec, "tag")
    assert "boom" in str(raised.value) and raised.value.name == "default.t1"
    assert raised.value.cause is not None
    assert_short(raised.value)
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == [], "the failed CTAS left files"
    catalog.create(T("t1"), TableSpec(as_select="SELECT 1 AS v, 2 AS k", partitioned_by=spec.partitioned_by), "tag")
    assert catalog.exists(T("t1"))


def test_failed_hive_format_ctas_leaves_nothing(catalog: SparkCatalog, warehouse: Path) -> None:
    # A Hive-format CTAS creates the table first and inserts after; Spark drops it again when the insert fails.
    with pytest.raises(EngineOperationError):
        catalog.create(T("t1"), TableSpec(as_select=BOOM_SELECT, using="hive"), "tag")
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []
    catalog.create(T("t1"), TableSpec(as_select="SELECT 1 AS v", using="hive"), "tag")
    assert catalog.identity(T("t1")) == "tag"


def test_failed_ctas_with_assert_true(catalog: SparkCatalog, warehouse: Path) -> None:
    select = "SELECT id FROM range(0, 10000, 1, 4) WHERE assert_true(id < 9000) IS NULL"
    with pytest.raises(EngineOperationError):
        catalog.create(T("t1"), TableSpec(as_select=select), "tag")
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []


def test_create_from_dataframe(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    df = tidy_spark.range(20).selectExpr("id", "id % 2 AS `we``ird k`", "'x' AS `c d`")
    spec = TableSpec(df=df, partitioned_by=("we`ird k",), comment="it's", properties=(("p", "${x}"),))
    catalog.create(T("t1"), spec, "tag")
    assert tidy_spark.table("`default`.`t1`").count() == 20
    info = describe(tidy_spark, T("t1"))
    assert info["partition_columns"] == ["we`ird k"] and info["comment"] == "it's"
    assert properties(tidy_spark, T("t1"))["p"] == "${x}"
    assert not [row for row in tidy_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]


def test_failed_dataframe_create_cleans_up(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    df = tidy_spark.range(10000).selectExpr("CASE WHEN id = 7000 THEN raise_error('df boom') ELSE id END AS v")
    with pytest.raises(EngineOperationError) as raised:
        catalog.create(T("t1"), TableSpec(df=df), "tag")
    assert "df boom" in str(raised.value)
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []
    assert not [row for row in tidy_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]
    with pytest.raises(InvalidDefinitionError):
        catalog.create(T("t1"), TableSpec(df="not a dataframe"), "tag")


# ---------------------------------------------------------------------- leftovers blocking create / rename


def test_create_over_leftover_files(catalog: SparkCatalog, warehouse: Path) -> None:
    (warehouse / "t1" / "_temporary").mkdir(parents=True)
    (warehouse / "t1" / "_temporary" / "part").write_text("x")
    with pytest.raises(LeftoverFilesError) as raised:
        catalog.create(T("t1"), SIMPLE, "tag")
    assert raised.value.location is not None and raised.value.location.endswith("/t1")
    assert_short(raised.value)
    assert tree(warehouse / "t1") == ["_temporary", "_temporary/part"], "user-named leftovers are never removed"
    ours = TableName.of("ddllog_tmp_1", allow_reserved=True)
    (warehouse / ours.name / "_temporary").mkdir(parents=True)
    (warehouse / ours.name / "_temporary" / "part").write_text("x")
    catalog.create(ours, TableSpec(as_select="SELECT 1 AS a"), "tag")
    assert catalog.identity(ours) == "tag"
    assert "_temporary" not in tree(warehouse / ours.name)


# ---------------------------------------------------------------------- insert


def test_insert(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    spec = TableSpec(columns=columns(("a", "bigint"), ("k", "bigint")), partitioned_by=("k",))
    catalog.create(T("t1"), spec, "tag")
    catalog.insert(T("t1"), Fill(as_select="SELECT id, id % 2 FROM range(6);"))
    catalog.insert(T("t1"), Fill(df=tidy_spark.range(4).selectExpr("id AS x", "7 AS y")))
    rows = tidy_spark.table("`default`.`t1`")
    assert rows.count() == 10 and rows.where("k = 7").count() == 4
    assert not [row for row in tidy_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]


def test_insert_errors(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.insert(T("nope"), Fill(as_select="SELECT 1"))
    assert missing.value.name == "default.nope"
    catalog.create(T("t1"), TableSpec(columns=columns(("a", "bigint"), ("k", "bigint")), partitioned_by=("k",)), "t")
    catalog.insert(T("t1"), Fill(as_select="SELECT 1, 1"))
    before = [path for path in tree(warehouse / "t1") if "_temporary" not in path]
    with pytest.raises(InvalidDefinitionError) as arity:
        catalog.insert(T("t1"), Fill(as_select="SELECT 1"))
    assert_short(arity.value)
    with pytest.raises(NoSuchObjectError) as source:
        catalog.insert(T("t1"), Fill(as_select="SELECT * FROM nope"))
    assert source.value.name == "nope"
    with pytest.raises(EngineOperationError) as failed:
        catalog.insert(T("t1"), Fill(as_select=BOOM_SELECT))
    assert "boom" in str(failed.value)
    assert_short(failed.value)
    assert tidy_spark.table("`default`.`t1`").count() == 1, "a failed insert adds no rows"
    assert [path for path in tree(warehouse / "t1") if "_temporary" not in path] == before, "nor data files"
    with pytest.raises(InvalidDefinitionError):
        catalog.insert(T("t1"), Fill())
    tidy_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(NoSuchObjectError):
        catalog.insert(T("v1"), Fill(as_select="SELECT 1"))


# ---------------------------------------------------------------------- rename


def test_rename_moves_the_directory(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    catalog.create(T("t1"), TableSpec(as_select="SELECT id, id % 2 AS k FROM range(6)", partitioned_by=("k",)), "tag")
    before = [path for path in tree(warehouse / "t1") if "_temporary" not in path]
    catalog.rename(T("t1"), T("t2"))
    assert not (warehouse / "t1").exists()
    assert tree(warehouse / "t2") == before
    assert tidy_spark.table("`default`.`t2`").count() == 6
    assert catalog.table_location(T("t2")) == catalog.default_location(T("t2"))
    assert catalog.identity(T("t2")) == "tag" and not catalog.exists(T("t1"))


def test_rename_errors(catalog: SparkCatalog, tidy_spark: Any) -> None:
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.rename(T("nope"), T("t9"))
    assert missing.value.name == "default.nope"
    assert_short(missing.value)
    catalog.create(T("t1"), SIMPLE, "tag-1")
    catalog.create(T("t2"), SIMPLE, "tag-2")
    with pytest.raises(ObjectExistsError) as exists:
        catalog.rename(T("t1"), T("t2"))
    assert exists.value.name == "default.t2"
    assert (catalog.identity(T("t1")), catalog.identity(T("t2"))) == ("tag-1", "tag-2")
    tidy_spark.sql("CREATE DATABASE other")
    with pytest.raises(CatalogError, match="within a database"):
        catalog.rename(T("t1"), T("t1", db="other"))
    tidy_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(NoSuchObjectError, match="view"):
        catalog.rename(T("v1"), T("v2"))
    with pytest.raises(ObjectExistsError):
        catalog.rename(T("t1"), T("v1"))
    with pytest.raises(InvalidNameError):
        catalog.rename(T("t1"), T("a b"))
    assert catalog.identity(T("t1")) == "tag-1"


def test_rename_onto_leftover_directory(catalog: SparkCatalog, warehouse: Path) -> None:
    catalog.create(T("t1"), SIMPLE, "tag")
    (warehouse / "t2").mkdir()  # even an empty directory blocks a rename
    with pytest.raises(LeftoverFilesError) as raised:
        catalog.rename(T("t1"), T("t2"))
    assert_short(raised.value)
    assert catalog.identity(T("t1")) == "tag" and (warehouse / "t1").is_dir()
    assert catalog.clean_leftovers(T("t2"))
    catalog.rename(T("t1"), T("t2"))
    assert catalog.identity(T("t2")) == "tag"
    ours = TableName("default", "ddllog_backup_1")
    (warehouse / ours.name / "junk").mkdir(parents=True)
    catalog.rename(T("t2"), ours)  # our own name: the leftovers are removed first
    assert catalog.identity(ours) == "tag"


# ---------------------------------------------------------------------- drop


def test_drop_removes_table_and_files(catalog: SparkCatalog, warehouse: Path) -> None:
    catalog.create(T("t1"), TableSpec(as_select="SELECT id, id % 2 AS k FROM range(6)", partitioned_by=("k",)), "t")
    assert (warehouse / "t1").is_dir()
    catalog.drop(T("t1"))
    assert not catalog.exists(T("t1"))
    assert tree(warehouse) == []


def test_drop_with_an_expected_identity_leaves_any_other_table_alone(catalog: SparkCatalog, warehouse: Path) -> None:
    catalog.create(T("t1"), TableSpec(as_select="SELECT 1 AS a"), "theirs")
    touched: list[str] = []
    assert catalog.drop(T("t1"), expect="ours", before=lambda: touched.append("before")) is False
    assert catalog.identity(T("t1")) == "theirs" and touched == [], "another identity: no drop, no hook"
    assert catalog.drop(T("t1"), expect="theirs", before=lambda: touched.append("before")) is True
    assert touched == ["before"] and not catalog.exists(T("t1")) and tree(warehouse) == []


def test_lookups_of_free_names_never_fail_inside_the_engine(catalog: SparkCatalog, tidy_spark: Any) -> None:
    """A failing DESCRIBE costs about 80 ms; a free name is answered by ``tableExists`` alone (issue 7)."""
    statements: list[str] = []
    real_sql = tidy_spark.sql

    def spy(text: str, *args: Any, **kwargs: Any) -> Any:
        statements.append(text)
        return real_sql(text, *args, **kwargs)

    tidy_spark.sql = spy
    try:
        assert catalog.identity(T("nope")) is None
        assert not catalog.exists(T("nope"))
        assert catalog.view_definition(T("nope")) is None
        assert catalog.default_location(T("nope")) is not None
    finally:
        del tidy_spark.sql
    assert [text for text in statements if text.startswith("DESCRIBE")] == []


def test_drop_errors(catalog: SparkCatalog, tidy_spark: Any) -> None:
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.drop(T("nope"))
    assert missing.value.name == "default.nope"
    assert_short(missing.value)
    with pytest.raises(NoSuchObjectError):
        catalog.drop(T("t1", db="nodb"))
    tidy_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(NoSuchObjectError, match="view"):
        catalog.drop(T("v1"))
    assert tidy_spark.catalog.tableExists("`default`.`v1`"), "the view is still there"


def test_drop_external_table_keeps_its_data(catalog: SparkCatalog, tidy_spark: Any, tmp_path: Path) -> None:
    location = tmp_path / "external data"
    tidy_spark.range(3).write.parquet(str(location))
    tidy_spark.sql(f"CREATE TABLE `default`.`ext` USING parquet LOCATION {sql_string_literal(str(location))}")
    catalog.drop(T("ext"))
    assert not catalog.exists(T("ext"))
    assert any(name.endswith(".parquet") for name in tree(location))


# ---------------------------------------------------------------------- list_tables


def test_list_tables_lists_tables_only(catalog: SparkCatalog, tidy_spark: Any) -> None:
    for name in ("t2", "t1", "ddllog_tmp_9"):
        catalog.create(T(name), SIMPLE, name)
    tidy_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    tidy_spark.range(1).createOrReplaceTempView("tv")
    assert catalog.list_tables("default") == [T("ddllog_tmp_9"), T("t1"), T("t2")]
    tidy_spark.sql("CREATE DATABASE other")
    assert catalog.list_tables("other") == []
    catalog.create(T("o1", db="other"), SIMPLE, "o1")
    assert catalog.list_tables("other") == [T("o1", db="other")]
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.list_tables("nodb")
    assert missing.value.name == "nodb"


# ---------------------------------------------------------------------- clean_leftovers


def test_clean_leftovers(catalog: SparkCatalog, tidy_spark: Any, warehouse: Path) -> None:
    assert not catalog.clean_leftovers(T("t1"))
    (warehouse / "t1" / "_temporary" / "0").mkdir(parents=True)
    (warehouse / "t1" / "_temporary" / "0" / "part").write_text("x")
    assert catalog.clean_leftovers(T("t1"))
    assert not (warehouse / "t1").exists()
    catalog.create(T("t2"), TableSpec(as_select="SELECT 1 AS a"), "tag")
    assert not catalog.clean_leftovers(T("t2")), "a live table's files are never removed"
    assert tidy_spark.table("`default`.`t2`").count() == 1
    assert not catalog.clean_leftovers(T("t1", db="nodb"))


def test_clean_leftovers_never_leaves_the_database_directory(catalog: SparkCatalog, warehouse: Path) -> None:
    sentinel = warehouse.parent / "sentinel"
    sentinel.mkdir(exist_ok=True)
    (warehouse / "a").mkdir()
    for name in ("..", "../sentinel", "a/..", "", ".", "a b"):
        assert not catalog.clean_leftovers(T(name))
    assert sentinel.is_dir() and (warehouse / "a").is_dir()


def test_clean_leftovers_in_a_database_with_an_odd_location(
    catalog: SparkCatalog, tidy_spark: Any, tmp_path: Path
) -> None:
    home = tmp_path / "odd dir #1 %41 ?x"
    tidy_spark.sql(f"CREATE DATABASE odd LOCATION {sql_string_literal(str(home))}")
    name = T("t1", db="odd")
    with pytest.raises(EngineOperationError):
        catalog.create(name, TableSpec(as_select=BOOM_SELECT, partitioned_by=("k",)), "tag")
    assert tree(home) == []
    catalog.create(name, TableSpec(as_select="SELECT 1 AS a"), "tag")
    assert catalog.default_location(name) == catalog.table_location(name)
    assert (home / "t1").is_dir()
    catalog.drop(name)
    assert not (home / "t1").exists()
    (home / "t1").mkdir()
    assert catalog.clean_leftovers(name)
    assert not (home / "t1").exists()


def test_clean_leftovers_through_the_metastore(tidy_spark: Any, warehouse: Path) -> None:
    catalog = SparkCatalog(tidy_spark, leftovers="metastore")
    assert not catalog.clean_leftovers(T("t1"))
    (warehouse / "t1" / "_temporary" / "0").mkdir(parents=True)
    (warehouse / "t1" / "_temporary" / "0" / "part").write_text("x")
    assert catalog.clean_leftovers(T("t1"))
    assert tree(warehouse) == []
    assert catalog.list_tables("default") == [], "no helper table is left"
    with pytest.raises(EngineOperationError):
        catalog.create(T("t2"), TableSpec(as_select=BOOM_SELECT, partitioned_by=("k",)), "tag")
    assert tree(warehouse) == []
    assert catalog.list_tables("default") == []


def test_stale_helper_table_never_deletes_a_live_table(tidy_spark: Any, warehouse: Path) -> None:
    catalog = SparkCatalog(tidy_spark, leftovers="metastore")
    catalog.create(T("live"), TableSpec(as_select="SELECT id FROM range(5)"), "live")
    location = catalog.default_location(T("live"))
    assert location is not None
    # What a crash between ADD PARTITION and DROP TABLE leaves, with a table living at that location since.
    helper = T("ddllog_gc_0123456789abcdef")
    tidy_spark.sql(
        f"CREATE TABLE {helper.quoted} (`x` INT, `p` INT) USING parquet PARTITIONED BY (`p`) "
        f"TBLPROPERTIES ('spark_ddl_log.gc_target'={sql_string_literal(location)})"
    )
    tidy_spark.sql(f"ALTER TABLE {helper.quoted} ADD PARTITION (`p`=1) LOCATION {sql_string_literal(location)}")
    catalog.drop(helper)
    assert not catalog.exists(helper)
    assert tidy_spark.table("`default`.`live`").count() == 5
    assert not (warehouse / helper.name).exists()


# ---------------------------------------------------------------------- settle_rename


def _torn_rename(catalog: SparkCatalog, warehouse: Path, partitioned: bool = False) -> None:
    """A rename killed after Hive moved the directory, before the metastore commit."""
    spec = TableSpec(as_select="SELECT id, id % 3 AS k FROM range(7)", partitioned_by=("k",) if partitioned else ())
    catalog.create(T("t1"), spec, "tag")
    os.rename(warehouse / "t1", warehouse / "t2")


@pytest.mark.parametrize("partitioned", [False, True])
def test_settle_rename_moves_the_data_back(
    catalog: SparkCatalog, tidy_spark: Any, warehouse: Path, partitioned: bool
) -> None:
    _torn_rename(catalog, warehouse, partitioned)
    catalog.settle_rename(T("t1"), T("t2"))
    assert (warehouse / "t1").is_dir() and not (warehouse / "t2").exists()
    tidy_spark.catalog.refreshTable("`default`.`t1`")
    assert tidy_spark.table("`default`.`t1`").count() == 7
    catalog.settle_rename(T("t1"), T("t2"))  # nothing torn: a no-op
    catalog.rename(T("t1"), T("t2"))
    catalog.settle_rename(T("t1"), T("t2"))  # a finished rename: a no-op
    assert catalog.identity(T("t2")) == "tag" and (warehouse / "t2").is_dir()


@pytest.mark.parametrize("partitioned", [False, True])
def test_settle_rename_through_the_metastore(tidy_spark: Any, warehouse: Path, partitioned: bool) -> None:
    catalog = SparkCatalog(tidy_spark, leftovers="metastore")
    _torn_rename(catalog, warehouse, partitioned)
    catalog.settle_rename(T("t1"), T("t2"))
    assert catalog.table_location(T("t1")) == catalog.default_location(T("t2"))
    tidy_spark.catalog.refreshTable("`default`.`t1`")
    assert tidy_spark.table("`default`.`t1`").count() == 7
    assert catalog.identity(T("t1")) == "tag"
    catalog.drop(T("t1"))
    assert tree(warehouse) == []


# ---------------------------------------------------------------------- check_create


def test_check_create_accepts_good_specs_without_side_effects(
    catalog: SparkCatalog, tidy_spark: Any, warehouse: Path
) -> None:
    catalog.create(T("src"), SIMPLE, "src")
    before = tree(warehouse)
    for spec in (
        TableSpec(columns=columns(("a", "int"), ("p", "string")), partitioned_by=("P",)),
        TableSpec(like=T("src")),
        TableSpec(as_select="SELECT a, b FROM `default`.`src`", partitioned_by=("b",)),
        TableSpec(as_select="SELECT CASE WHEN id = 1 THEN raise_error('not run') END AS x, id FROM range(3)"),
        TableSpec(df=tidy_spark.range(3).selectExpr("id", "id AS k"), partitioned_by=("k",)),
    ):
        catalog.check_create(spec)
    assert catalog.list_tables("default") == [T("src")]
    assert tree(warehouse) == before
    assert not [row for row in tidy_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (TableSpec(like=TableName("default", "nope")), NoSuchObjectError),
        (TableSpec(columns=columns(("a", "nosuchtype"))), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int"), ("b", "int")), partitioned_by=("zz",)), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int")), partitioned_by=("a",)), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int"), ("A", "int"))), InvalidDefinitionError),
        (TableSpec(as_select="SELEC 1"), InvalidDefinitionError),
        (TableSpec(as_select="SELECT * FROM nope"), NoSuchObjectError),
        (TableSpec(as_select="SELECT 1 AS a, 2 AS b", partitioned_by=("c",)), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int")), using="x y"), InvalidDefinitionError),
        (TableSpec(), InvalidDefinitionError),
    ],
)
def test_check_create_rejects_what_create_would(catalog: SparkCatalog, spec: TableSpec, error: type) -> None:
    with pytest.raises(error) as raised:
        catalog.check_create(spec)
    assert_short(raised.value)


def test_check_create_rejects_bad_dataframes(catalog: SparkCatalog, tidy_spark: Any) -> None:
    with pytest.raises(InvalidDefinitionError):
        catalog.check_create(TableSpec(df=tidy_spark.range(3), partitioned_by=("nope",)))
    with pytest.raises(InvalidDefinitionError):
        catalog.check_create(TableSpec(df=object()))


# ---------------------------------------------------------------------- the session


def test_embedded_session_keeps_everything_under_its_home(spark: Any, warehouse: Path) -> None:
    from storage.catalogs.spark.session import embedded_session

    home = warehouse.parent
    assert (home / "metastore_db").is_dir()
    assert (home / "derby.log").exists()
    for stray in ("derby.log", "metastore_db", "spark-warehouse"):
        assert not Path(stray).exists(), f"{stray} landed in the working directory"
    assert spark.conf.get("spark.ui.enabled") == "false"
    assert spark.conf.get("spark.ui.showConsoleProgress") == "false"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "4"
    assert spark.conf.get("spark.sql.catalogImplementation") == "hive"
    assert embedded_session(home / "elsewhere") is spark, "an active session is returned as it is"
    shutil.rmtree(home / "elsewhere", ignore_errors=True)
