"""The Spark catalog ALTER TABLE methods (storage.catalogs.spark.sql.table_alter) against the embedded Spark 4 + Hive
metastore: table
metadata, properties, column comments, added columns and partitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from storage.catalogs.interface import Column, TableMetadata, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.catalogs.spark.engine import REDACTED
from storage.catalogs.spark.fs.file_mover import parse_partition
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)
from tests.spark.catalog_support import HOSTILE, T, assert_short, tree

pytestmark = pytest.mark.spark


def make(
    catalog: Catalog, name: TableName, *columns: Column, partitioned_by: tuple[str, ...] = (), **kw: Any
) -> None:
    catalog.data.create(name, TableSpec(columns=columns, partitioned_by=partitioned_by, **kw), "tag-1")


# ---------------------------------------------------------------------- table_metadata


def test_table_metadata_reports_columns_types_comments_partitioning_properties(catalog: Catalog) -> None:
    make(
        catalog,
        T("t1"),
        Column("a`b", "int", comment=HOSTILE),
        Column("c d", "varchar(5)"),
        Column("ch", "char(2)", comment=""),
        Column("s", "struct<`x y`: string, n: array<decimal(10,2)> COMMENT 'nested'>"),
        Column("m", "map<string, array<int>>"),
        Column("i", "interval day to second"),
        Column("st", "string collate UTF8_LCASE"),
        Column("p", "string"),
        Column("q", "int"),
        partitioned_by=("p", "q"),
        properties=(("k'1", HOSTILE), ("k2", "")),
        comment=HOSTILE,
    )
    metadata = catalog.definitions.table_metadata(T("t1"))
    assert metadata is not None
    assert [c.name for c in metadata.columns] == ["a`b", "c d", "ch", "s", "m", "i", "st", "p", "q"]
    types = {c.name: c.type for c in metadata.columns}
    assert types["a`b"] == "int" and types["c d"] == "varchar(5)" and types["ch"] == "char(2)"
    assert types["s"] == "STRUCT<`x y`: string, `n`: ARRAY<decimal(10,2)> COMMENT 'nested'>"
    assert types["m"] == "MAP<string, ARRAY<int>>" and types["st"] == "string collate UTF8_LCASE"
    assert metadata.column("A`B") is not None and metadata.column("a`b").comment == HOSTILE  # type: ignore[union-attr]
    assert metadata.column("ch").comment is None, "an empty comment is no comment"  # type: ignore[union-attr]
    assert metadata.partitioned_by == ("p", "q")
    assert metadata.properties == (("k'1", HOSTILE), ("k2", ""))  # the tag hidden, as Spark hides its own keys
    assert metadata.provider == "parquet" and metadata.comment == HOSTILE
    # The reported types are what create accepts: a table made from the metadata has the same metadata.
    copy = TableSpec(
        columns=metadata.columns,
        partitioned_by=metadata.partitioned_by,
        properties=metadata.properties,
        using=metadata.provider,
        comment=metadata.comment,
    )
    catalog.data.create(T("t2"), copy, "tag-1")
    assert catalog.definitions.table_metadata(T("t2")) == metadata
    make(catalog, T("t3"), Column("a", "int"), comment="")
    assert catalog.definitions.table_metadata(T("t3")).comment == ""  # type: ignore[union-attr]


def test_table_metadata_of_missing_objects_views_and_hive_tables(catalog: Catalog, clean_spark: Any) -> None:
    assert catalog.definitions.table_metadata(T("nope")) is None
    assert catalog.definitions.table_metadata(T("t", db="nodb")) is None
    assert catalog.definitions.table_metadata(T("x${y}")) is None
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    assert catalog.definitions.table_metadata(T("v1")) is None, "a view is not a table"
    clean_spark.sql(
        "CREATE TABLE `default`.`h1` (a CHAR(3) COMMENT 'x', b INT) PARTITIONED BY (p STRING) STORED AS parquet"
    )
    clean_spark.sql("INSERT INTO `default`.`h1` PARTITION (p='1') VALUES ('abc', 1)")
    metadata = catalog.definitions.table_metadata(T("h1"))
    assert metadata == TableMetadata(
        columns=(Column("a", "char(3)", "x"), Column("b", "int"), Column("p", "string")),
        partitioned_by=("p",),
        provider="hive",
    ), "Hive's transient_lastDdlTime and statistics are not user properties"


# ---------------------------------------------------------------------- properties


def test_set_and_unset_properties_round_trip(catalog: Catalog) -> None:
    make(catalog, T("t1"), Column("a", "int"), properties=(("keep", "1"), ("old", "x")))
    before = catalog.definitions.table_metadata(T("t1"))
    assert before is not None
    hostile = {"k'1": HOSTILE, "k\\2": "\\", "k$3": "${spark.app.name}", "ü 漢": "🙂", "old": "changed"}
    catalog.definitions.set_properties(T("t1"), hostile)
    during = catalog.definitions.table_metadata(T("t1"))
    assert during is not None
    assert during.property_map == {**before.property_map, **hostile}
    assert during.columns == before.columns
    # The undo the DDL log does: old values back, keys that were not set removed (unknown keys ignored).
    catalog.definitions.set_properties(T("t1"), {"old": "x"})
    catalog.definitions.unset_properties(T("t1"), ("k'1", "k\\2", "k$3", "ü 漢", "never-set"))
    assert catalog.definitions.table_metadata(T("t1")) == before
    catalog.definitions.set_properties(T("t1"), {})
    catalog.definitions.unset_properties(T("t1"), ())
    catalog.definitions.unset_properties(T("t1"),
                                         ("transient_lastDdlTime",))  # metastore-maintained: not reported, ignored
    assert catalog.definitions.table_metadata(T("t1")) == before


def test_redacted_properties_are_read_as_stored_and_the_placeholder_is_never_written(catalog: Catalog) -> None:
    """Spark's outputs (SHOW TBLPROPERTIES, DESCRIBE) redact these two; the metadata holds the stored values (read from
    the session catalog's record), and Spark's placeholder itself is refused wherever it would be stored."""
    make(catalog, T("t1"), Column("a", "int"), properties=(("auth.token", "abc"), ("k", "my password")))
    metadata = catalog.definitions.table_metadata(T("t1"))
    assert metadata is not None
    assert (metadata.property_map["auth.token"], metadata.property_map["k"]) == ("abc", "my password")
    with pytest.raises(InvalidDefinitionError, match="redacted"):
        catalog.definitions.set_properties(T("t1"), {"k": REDACTED})
    copy = TableSpec(columns=metadata.columns, properties=(("k", REDACTED),))
    with pytest.raises(InvalidDefinitionError, match="redacted"):
        catalog.data.create(T("t2"), copy, "tag-2")  # a rebuild from a redacted output must not store the placeholder
    assert not catalog.names.exists(T("t2"))


def test_set_properties_refuses_reserved_keys(catalog: Catalog) -> None:
    make(catalog, T("t1"), Column("a", "int"))
    before = catalog.definitions.table_metadata(T("t1"))
    for key in ("provider", "location", "owner", "external", "spark.sql.x", "transient_lastDdlTime", "numRows"):
        with pytest.raises(InvalidDefinitionError) as raised:
            catalog.definitions.set_properties(T("t1"), {"ok": "1", key: "1"})
        assert raised.value.name == "default.t1"
        assert_short(raised.value)
    assert catalog.definitions.table_metadata(T("t1")) == before, "nothing set"


def test_property_and_column_changes_on_missing_tables_and_views(catalog: Catalog, clean_spark: Any) -> None:
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    calls = [
        lambda name: catalog.definitions.set_properties(name, {"k": "v"}),
        lambda name: catalog.definitions.set_properties(name, {}),
        lambda name: catalog.definitions.unset_properties(name, ("k",)),
        lambda name: catalog.definitions.unset_properties(name, ()),
        lambda name: catalog.definitions.set_column_comment(name, "a", "c"),
        lambda name: catalog.definitions.add_columns(name, (Column("b", "int"),)),
        lambda name: catalog.definitions.list_partitions(name),
        lambda name: catalog.definitions.add_partition(name, {"p": "1"}),
        lambda name: catalog.definitions.drop_partition(name, {"p": "1"}),
    ]
    for call in calls:
        for name, error in ((T("nope"), NoSuchObjectError), (T("t", db="nodb"), NoSuchObjectError),
                            (T("v1"), WrongObjectKindError)):
            with pytest.raises(error) as raised:
                call(name)
            assert raised.value.name == str(name)
            assert_short(raised.value)


# ---------------------------------------------------------------------- column comments and added columns


def test_set_column_comment_and_remove_it_exactly(catalog: Catalog) -> None:
    make(
        catalog,
        T("t1"),
        Column("a", "int"),
        Column("b c", "string", comment="old"),
        Column("p", "int"),
        partitioned_by=("p",),
    )
    before = catalog.definitions.table_metadata(T("t1"))
    catalog.definitions.set_column_comment(T("t1"), "a", HOSTILE)
    catalog.definitions.set_column_comment(T("t1"), "B C", "")  # any case; empty removes
    metadata = catalog.definitions.table_metadata(T("t1"))
    assert metadata is not None
    assert [c.comment for c in metadata.columns] == [HOSTILE, None, None]
    # Undo: the old comments back ("" for none), and the metadata is what it was.
    catalog.definitions.set_column_comment(T("t1"), "a", "")
    catalog.definitions.set_column_comment(T("t1"), "b c", "old")
    assert catalog.definitions.table_metadata(T("t1")) == before
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.definitions.set_column_comment(T("t1"), "zz", "c")
    assert missing.value.name == "zz"
    assert_short(missing.value)
    with pytest.raises(InvalidDefinitionError, match="CANNOT_ALTER_PARTITION_COLUMN"):
        catalog.definitions.set_column_comment(T("t1"), "p", "c")
    with pytest.raises(InvalidNameError):
        catalog.definitions.set_column_comment(T("t1"), "${x}", "c")


def test_add_columns(catalog: Catalog, clean_spark: Any) -> None:
    make(catalog, T("t1"), Column("a", "int"), Column("p", "string"), partitioned_by=("p",))
    clean_spark.sql("INSERT INTO `default`.`t1` VALUES (1, 'x')")
    catalog.definitions.add_columns(
        T("t1"), (Column("b c", "decimal(10,2)", comment=HOSTILE), Column("s", "struct<`q r`: array<int>>"))
    )
    metadata = catalog.definitions.table_metadata(T("t1"))
    assert metadata is not None
    assert [(c.name, c.type, c.comment) for c in metadata.columns] == [
        ("a", "int", None),
        ("b c", "decimal(10,2)", HOSTILE),
        ("s", "STRUCT<`q r`: ARRAY<int>>", None),
        ("p", "string", None),
    ], "new columns go before the partition columns"
    assert clean_spark.table("`default`.`t1`").collect()[0].asDict() == {"a": 1, "b c": None, "s": None, "p": "x"}
    with pytest.raises(ObjectExistsError) as raised:
        catalog.definitions.add_columns(T("t1"), (Column("new", "int"), Column("A", "int")))
    assert raised.value.name.lower() == "a"  # type: ignore[union-attr]
    assert_short(raised.value)
    assert catalog.definitions.table_metadata(T("t1")) == metadata, "nothing added"
    for bad in ((Column("x", "nosuchtype"),), (Column("${x}", "int"),)):
        with pytest.raises(InvalidDefinitionError):
            catalog.definitions.add_columns(T("t1"), bad)
    with pytest.raises(ObjectExistsError):  # Spark's COLUMN_ALREADY_EXISTS, also among the added columns
        catalog.definitions.add_columns(T("t1"), (Column("x", "int"), Column("X", "int")))
    catalog.definitions.add_columns(T("t1"), ())
    assert catalog.definitions.table_metadata(T("t1")) == metadata


# ---------------------------------------------------------------------- partitions


def test_parse_partition_unescapes_hive_paths() -> None:
    assert parse_partition("p=a%2Fb%3Dc/q=1") == {"p": "a/b=c", "q": "1"}
    assert parse_partition("P=é ü %23x%25/q=2") == {"P": "é ü #x%", "q": "2"}
    with pytest.raises(CatalogError):
        parse_partition("garbage")


def test_partitions_add_list_drop(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    make(catalog, T("t1"), Column("v", "int"), Column("p", "string"), Column("q", "int"), partitioned_by=("p", "q"))
    hostile_values = ["a/b=c", "x y%", 'it\'s \\ "q"', "${spark.app.name}", "ü 漢字 #?*[]{}"]
    for i, value in enumerate(hostile_values):
        catalog.definitions.add_partition(T("t1"), {"p": value, "q": str(i)})
    catalog.definitions.add_partition(T("t1"), {"P": hostile_values[0], "Q": "0"})  # exists: left alone; any case
    listed = catalog.definitions.list_partitions(T("t1"))
    assert sorted(listed, key=lambda s: s["q"]) == [{"p": v, "q": str(i)} for i, v in enumerate(hostile_values)]
    clean_spark.sql("INSERT INTO `default`.`t1` PARTITION (p='data', q=9) VALUES (1), (2)")
    assert {"p": "data", "q": "9"} in catalog.definitions.list_partitions(T("t1"))
    assert (warehouse / "t1" / "p=data" / "q=9").is_dir()
    catalog.definitions.drop_partition(T("t1"), {"p": "data", "q": "9"})
    assert not (warehouse / "t1" / "p=data").exists(), "the dropped partition's data directory is gone"
    assert clean_spark.table("`default`.`t1`").count() == 0
    catalog.definitions.drop_partition(T("t1"), {"p": "data", "q": "9"})  # missing: ignored
    for i, value in enumerate(hostile_values):
        catalog.definitions.drop_partition(T("t1"), {"p": value, "q": str(i)})
    assert catalog.definitions.list_partitions(T("t1")) == []
    assert [entry for entry in tree(warehouse / "t1") if entry.startswith("p=")] == []


def test_partition_spark_normalises_values_to_the_column_type(catalog: Catalog) -> None:
    make(catalog, T("t1"), Column("v", "int"), Column("q", "int"), partitioned_by=("q",))
    catalog.definitions.add_partition(T("t1"), {"q": "01"})
    assert catalog.definitions.list_partitions(T("t1")) == [{"q": "1"}]
    catalog.definitions.drop_partition(T("t1"), {"q": "1"})
    assert catalog.definitions.list_partitions(T("t1")) == []


def test_partition_errors(catalog: Catalog) -> None:
    make(catalog, T("t1"), Column("v", "int"), Column("p", "string"), Column("q", "int"), partitioned_by=("p", "q"))
    make(catalog, T("u1"), Column("v", "int"))
    assert catalog.definitions.list_partitions(T("u1")) == [], "an unpartitioned table has no partitions"
    bad_specs: list[tuple[TableName, dict[str, str]]] = [
        (T("u1"), {"p": "1"}),  # not partitioned
        (T("t1"), {"p": "1"}),  # incomplete
        (T("t1"), {"p": "1", "q": "1", "zz": "1"}),  # unknown column
        (T("t1"), {"p": "", "q": "1"}),  # empty value
        (T("t1"), {"p": "1", "q": "not a number"}),
        (T("t1"), {}),
        (T("t1"), {"${x}": "1", "q": "1"}),
    ]
    for name, spec in bad_specs:
        with pytest.raises((InvalidDefinitionError, InvalidNameError)) as raised:
            catalog.definitions.add_partition(name, spec)
        assert raised.value.name in (str(name), "${x}"), spec
        assert_short(raised.value)
    with pytest.raises(InvalidDefinitionError):
        catalog.definitions.drop_partition(T("t1"), {"zz": "1"})
    assert catalog.definitions.list_partitions(T("t1")) == []


SPECS = [
    {"k": "1", "d": "2024-01-02", "s": "x"}, {"k": "1"}, {"d": "2024-01-02"}, {"s": "x"}, {"s": "y_z-1"},
    {"k": "2", "s": "x"}, {"k": "3"}, {"k": "10"}, {"k": "-5"}, {"k": "01"}, {"d": "2024-1-2"}, {"s": "a.b"},
    {"s": "a b"}, {"K": "1", "S": "x"}, {"k": "1", "d": "2024-01-03", "s": "x"}, {"d": "2024-02-30"},
]


def test_the_partitions_a_spec_matches_are_the_ones_spark_lists(catalog: Catalog, clean_spark: Any) -> None:
    """The existence check of ADD / DROP PARTITION asks the metastore by the spec's values where Spark stores them
    as written (one call instead of a SHOW PARTITIONS statement): for every spec, whole or partial, written as
    stored or not, the same partitions as Spark's SHOW PARTITIONS ... PARTITION (...)."""
    clean_spark.sql("CREATE TABLE `default`.`pl` (a INT, k INT, d DATE, s STRING) USING parquet "
                    "PARTITIONED BY (k, d, s)")
    for k, d, s in [(1, "2024-01-02", "x"), (1, "2024-01-02", "y_z-1"), (2, "2024-01-02", "x"),
                    (10, "2024-01-03", "x"), (-5, "2024-01-02", "a.b"), (1, "2024-01-03", "a b"),
                    (3, "2024-01-02", "axb")]:
        clean_spark.sql(f"ALTER TABLE `default`.`pl` ADD PARTITION (k={k}, d='{d}', s='{s}')")
    name = T("pl")

    def outcome(spec: dict[str, str], *, by_spark: bool) -> Any:
        """The partitions listed, in one order, or the kind of error raised (a value Spark cannot cast)."""
        definitions = catalog.definitions
        try:
            listed = ([parse_partition(path) for path in definitions.partition_paths(name, spec)] if by_spark
                      else definitions.list_partitions(name, spec))
        except CatalogError as error:
            return type(error).__name__
        return sorted(listed, key=lambda part: sorted(part.items()))

    for spec in SPECS:
        assert outcome(spec, by_spark=False) == outcome(spec, by_spark=True), spec
