"""The Spark catalog against a real embedded Spark 4 + Hive metastore (one shared session per test process): literals,
existence and identity, CREATE from columns and LIKE. (CTAS, insert, rename, drop: test_spark_catalog_data.py;
leftovers, settle_rename, check_create, the session: test_spark_catalog_leftovers.py.)"""

from __future__ import annotations

import time
import typing
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql.types import DataType

from storage.catalogs.interface import TAG_PROPERTY, Column, TableSpec
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.ports import Catalog
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.engine import short_message, sql_string_literal
from storage.catalogs.spark.profile import local_path
from storage.errors import (
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
)
from tests.spark.catalog_support import SIMPLE, T, assert_short, columns, describe, properties, tree

pytestmark = pytest.mark.spark


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


def test_every_port_of_the_spark_catalog_has_every_method_of_its_protocol(spark: Any) -> None:
    catalog = spark_catalog(spark)
    for field, protocol in typing.get_type_hints(Catalog).items():
        wanted = [name for name in vars(protocol) if not name.startswith("_") and callable(vars(protocol)[name])]
        assert wanted, field
        for method in wanted:
            assert callable(getattr(getattr(catalog, field), method, None)), f"{field}.{method}"
    catalog.close()
    with pytest.raises(ValueError):
        spark_catalog(spark, leftovers="nope")  # type: ignore[arg-type]


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


def test_exists(catalog: Catalog, clean_spark: Any) -> None:
    assert not catalog.names.exists(T("t1"))
    catalog.data.create(T("t1"), SIMPLE, "tag-1")
    assert catalog.names.exists(T("t1"))
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    assert not catalog.names.exists(T("v1")), "a view is not a table"
    assert catalog.names.identity(T("v1")) is None
    clean_spark.range(1).createOrReplaceTempView("tv")
    assert not catalog.names.exists(T("tv")), "temporary views are not in the catalog"
    assert not catalog.names.exists(T("t1", db="nodb"))
    for hostile in ("t1`", "t1` OR 1=1 --", "a b", "ü", "t1.t1", "`t1`"):
        assert not catalog.names.exists(T(hostile))


def test_identity_is_the_tag_and_follows_renames(catalog: Catalog) -> None:
    catalog.data.create(T("t1"), SIMPLE, "tag-1")
    assert catalog.names.identity(T("t1")) == "tag-1"
    catalog.names.rename(T("t1"), T("t2"))
    assert catalog.names.identity(T("t2")) == "tag-1"
    assert catalog.names.identity(T("t1")) is None
    assert catalog.names.identity(T("t1", db="nodb")) is None


def test_identity_fingerprint_of_untagged_tables(catalog: Catalog, clean_spark: Any) -> None:
    clean_spark.sql("CREATE TABLE `default`.`u1` (a INT) USING parquet")
    first = catalog.names.identity(T("u1"))
    assert first is not None and first.startswith("fp:")
    assert catalog.names.identity(T("u1")) == first, "stable"
    catalog.names.rename(T("u1"), T("u2"))
    assert catalog.names.identity(T("u2")) == first, "survives a rename"
    time.sleep(1.1)  # creation time has a one-second resolution: same-shape tables within a second share a print
    clean_spark.sql("CREATE TABLE `default`.`u1` (a INT) USING parquet")
    assert catalog.names.identity(T("u1")) not in (None, first)
    clean_spark.sql("CREATE TABLE `default`.`u3` (a BIGINT) USING parquet")
    assert catalog.names.identity(T("u3")) not in (None, first, catalog.names.identity(T("u1")))


# ---------------------------------------------------------------------- create: columns


def test_create_columns_with_hostile_names_comments_and_properties(catalog: Catalog, clean_spark: Any) -> None:
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
    catalog.data.create(T("t1"), spec, "tag'\\${x}")
    info = describe(clean_spark, T("t1"))
    assert [column["name"] for column in info["columns"]] == ["a`b", "c d", "ü", "x.y", "'q'"]
    assert info["columns"][0]["comment"] == hostile
    assert info["columns"][2]["comment"] == "\\"
    assert info["comment"] == hostile
    assert info["provider"] == "parquet"
    props = properties(clean_spark, T("t1"))
    assert props["k'1"] == hostile and props["k\\2"] == "\\" and props["k$3"] == "${spark.app.name}"
    assert TAG_PROPERTY not in props  # hidden: the identity reads it
    assert catalog.names.identity(T("t1")) == "tag'\\${x}"
    clean_spark.sql("INSERT INTO `default`.`t1` VALUES (1, 'x', 2, 3.0, true)")
    assert clean_spark.table("`default`.`t1`").count() == 1


def test_create_complex_types(catalog: Catalog, clean_spark: Any) -> None:
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
    catalog.data.create(T("t1"), spec, "tag")
    assert catalog.names.exists(T("t1"))
    stored = {field["name"]: field for field in describe(clean_spark, T("t1"))["columns"]}
    assert stored["s"]["type"]["fields"][1]["comment"] == "it's \\"
    schema = clean_spark.table("`default`.`t1`").schema
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
def test_create_refuses_types_spark_could_not_read_back(catalog: Catalog, type_text: str) -> None:
    with pytest.raises(InvalidDefinitionError, match="CHAR/VARCHAR"):
        catalog.data.create(T("t1"), TableSpec(columns=columns(("c", type_text))), "tag")
    assert catalog.names.list_tables("default") == []


def test_create_partitioned_columns_table(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    spec = TableSpec(columns=columns(("a", "int"), ("p", "string"), ("q", "int")), partitioned_by=("p", "q"))
    catalog.data.create(T("t1"), spec, "tag")
    assert describe(clean_spark, T("t1"))["partition_columns"] == ["p", "q"]
    clean_spark.sql("INSERT INTO `default`.`t1` VALUES (1, 'x', 1), (2, 'y', 2)")
    assert {"p=x/q=1", "p=y/q=2"} <= set(tree(warehouse / "t1"))
    assert catalog.definitions.table_location(T("t1")) == catalog.names.default_location(T("t1"))


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
def test_create_rejects_bad_column_types(catalog: Catalog, warehouse: Path, type_text: str) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        catalog.data.create(T("t1"), TableSpec(columns=columns(("a", type_text))), "tag")
    assert raised.value.name == "default.t1"
    assert_short(raised.value)
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (TableSpec(columns=columns(("a", "int")), using="parquet; DROP TABLE x"), "provider"),
        (TableSpec(columns=columns(("a", "int")), using="nosuchformat"), "DATA_SOURCE_NOT_FOUND"),
        (TableSpec(columns=columns(("a", "int"), ("b", "int")), partitioned_by=("zz",)), "zz"),
        (TableSpec(columns=columns(("a", "int")), partitioned_by=("a",)), "ALL_PARTITION_COLUMNS"),
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
def test_create_rejects_bad_definitions(catalog: Catalog, warehouse: Path, spec: TableSpec, fragment: str) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        catalog.data.create(T("t1"), spec, "tag")
    assert fragment in str(raised.value)
    assert_short(raised.value)
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []


def test_create_existing_name(catalog: Catalog, clean_spark: Any) -> None:
    catalog.data.create(T("t1"), SIMPLE, "tag-1")
    with pytest.raises(ObjectExistsError) as raised:
        catalog.data.create(T("t1"), TableSpec(as_select="SELECT 1 AS z"), "tag-2")
    assert raised.value.name == "default.t1"
    assert catalog.names.identity(T("t1")) == "tag-1", "the existing table is untouched"
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(ObjectExistsError):
        catalog.data.create(T("v1"), SIMPLE, "tag-3")


def test_create_in_missing_database(catalog: Catalog) -> None:
    with pytest.raises(NoSuchObjectError) as raised:
        catalog.data.create(T("t1", db="nodb"), SIMPLE, "tag")
    assert raised.value.name == "nodb"
    assert_short(raised.value)


@pytest.mark.parametrize(
    "hostile", ["a b", "a`b", "ü", "a.b", "a/b", "..", "x'y", 'x"y', "t` (a int) USING parquet --", "a\\b", "#x"]
)
def test_create_refuses_names_spark_cannot_hold(catalog: Catalog, clean_spark: Any, hostile: str) -> None:
    with pytest.raises(InvalidNameError) as raised:
        catalog.data.create(T(hostile), SIMPLE, "tag")
    assert raised.value.name == f"default.{hostile}"
    assert_short(raised.value)
    assert catalog.names.list_tables("default") == []


def test_names_with_variable_substitution_are_refused(catalog: Catalog) -> None:
    catalog.data.create(T("4"), SIMPLE, "four")  # ${spark.sql.shuffle.partitions} would read as 4
    sneaky = T("${spark.sql.shuffle.partitions}")
    assert not catalog.names.exists(sneaky)
    assert catalog.names.identity(sneaky) is None
    with pytest.raises(NoSuchObjectError):
        catalog.names.drop(sneaky)
    with pytest.raises(InvalidNameError):
        catalog.data.create(sneaky, SIMPLE, "tag")
    with pytest.raises(InvalidNameError):
        catalog.names.rename(T("4"), sneaky)
    assert catalog.names.identity(T("4")) == "four"


# ---------------------------------------------------------------------- create: like


def test_create_like_copies_shape_but_not_properties(catalog: Catalog, clean_spark: Any) -> None:
    source = TableSpec(
        columns=columns(("a", "int"), ("p", "string")),
        using="orc",
        partitioned_by=("p",),
        properties=(("owner_note", "source only"),),
    )
    catalog.data.create(T("src"), source, "tag-src")
    catalog.data.create(T("copy"), TableSpec(like=T("src"), properties=(("k", "v"),)), "tag-copy")
    info = describe(clean_spark, T("copy"))
    assert [column["name"] for column in info["columns"]] == ["a", "p"]
    assert info["provider"] == "orc"
    assert info["partition_columns"] == ["p"]
    props = properties(clean_spark, T("copy"))
    assert TAG_PROPERTY not in props and props["k"] == "v" and "owner_note" not in props
    assert catalog.names.identity(T("copy")) == "tag-copy"


def test_create_like_missing_source(catalog: Catalog, warehouse: Path) -> None:
    with pytest.raises(NoSuchObjectError) as raised:
        catalog.data.create(T("copy"), TableSpec(like=T("nope")), "tag")
    assert raised.value.name == "default.nope"
    assert_short(raised.value)
    assert not catalog.names.exists(T("copy"))
    assert tree(warehouse) == []
