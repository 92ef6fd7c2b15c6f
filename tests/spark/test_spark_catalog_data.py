"""The Spark catalog on real Spark: CREATE from a query or a DataFrame, insert, rename and drop (and what each leaves in
the warehouse)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from storage.catalogs.interface import Fill, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.catalogs.spark.engine import sql_string_literal
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)
from tests.spark.catalog_support import BOOM_SELECT, SIMPLE, T, assert_short, columns, describe, properties, tree

pytestmark = pytest.mark.spark


# ---------------------------------------------------------------------- create: as select / DataFrame


def test_create_as_select_partitioned(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    select = "-- leading comment\nSELECT id, id % 3 AS k FROM range(10) -- trailing comment\n ; "
    spec = TableSpec(as_select=select, partitioned_by=("k",), comment="from a query", properties=(("a", "b"),))
    catalog.data.create(T("t1"), spec, "tag")
    assert clean_spark.table("`default`.`t1`").count() == 10
    info = describe(clean_spark, T("t1"))
    assert info["partition_columns"] == ["k"] and info["comment"] == "from a query"
    assert {"k=0", "k=1", "k=2"} <= set(tree(warehouse / "t1"))
    assert catalog.names.identity(T("t1")) == "tag"


def test_create_as_select_with_cte_and_values(catalog: Catalog, clean_spark: Any) -> None:
    catalog.data.create(T("t1"), TableSpec(as_select="WITH q AS (SELECT 1 AS a) SELECT * FROM q"), "tag1")
    catalog.data.create(T("t2"), TableSpec(as_select="VALUES (1, 'a'), (2, 'b')"), "tag2")
    assert clean_spark.table("`default`.`t2`").count() == 2


def test_create_as_select_errors(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    with pytest.raises(InvalidDefinitionError) as bad_sql:
        catalog.data.create(T("t1"), TableSpec(as_select="SELEC 1"), "tag")
    assert_short(bad_sql.value)
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.data.create(T("t1"), TableSpec(as_select="SELECT * FROM nope"), "tag")
    assert missing.value.name == "nope"
    with pytest.raises(InvalidDefinitionError):
        catalog.data.create(T("t1"), TableSpec(as_select="SELECT no_such_column FROM range(3)"), "tag")
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []


def test_create_as_select_cannot_run_another_statement(catalog: Catalog) -> None:
    catalog.data.create(T("victim"), SIMPLE, "victim")
    for text in ("DROP TABLE `default`.`victim`", "SELECT 1) ; DROP TABLE `default`.`victim`; --", "SELECT 1 /*"):
        with pytest.raises(InvalidDefinitionError):
            catalog.data.create(T("t1"), TableSpec(as_select=text), "tag")
    assert catalog.names.identity(T("victim")) == "victim"
    assert not catalog.names.exists(T("t1"))


@pytest.mark.parametrize("partitioned", [False, True])
def test_failed_ctas_leaves_no_table_and_no_files(catalog: Catalog, warehouse: Path, partitioned: bool) -> None:
    spec = TableSpec(as_select=BOOM_SELECT, partitioned_by=("k",) if partitioned else ())
    with pytest.raises(EngineOperationError) as raised:
        catalog.data.create(T("t1"), spec, "tag")
    assert "boom" in str(raised.value) and raised.value.name == "default.t1"
    assert raised.value.cause is not None
    assert_short(raised.value)
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == [], "the failed CTAS left files"
    catalog.data.create(T("t1"), TableSpec(as_select="SELECT 1 AS v, 2 AS k", partitioned_by=spec.partitioned_by),
                        "tag")
    assert catalog.names.exists(T("t1"))


def test_failed_hive_format_ctas_leaves_nothing(catalog: Catalog, warehouse: Path) -> None:
    # A Hive-format CTAS creates the table first and inserts after; Spark drops it again when the insert fails.
    with pytest.raises(EngineOperationError):
        catalog.data.create(T("t1"), TableSpec(as_select=BOOM_SELECT, using="hive"), "tag")
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []
    catalog.data.create(T("t1"), TableSpec(as_select="SELECT 1 AS v", using="hive"), "tag")
    assert catalog.names.identity(T("t1")) == "tag"


def test_failed_ctas_with_assert_true(catalog: Catalog, warehouse: Path) -> None:
    select = "SELECT id FROM range(0, 10000, 1, 4) WHERE assert_true(id < 9000) IS NULL"
    with pytest.raises(EngineOperationError):
        catalog.data.create(T("t1"), TableSpec(as_select=select), "tag")
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []


def test_create_from_dataframe(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    df = clean_spark.range(20).selectExpr("id", "id % 2 AS `we``ird k`", "'x' AS `c d`")
    spec = TableSpec(df=df, partitioned_by=("we`ird k",), comment="it's", properties=(("p", "${x}"),))
    catalog.data.create(T("t1"), spec, "tag")
    assert clean_spark.table("`default`.`t1`").count() == 20
    info = describe(clean_spark, T("t1"))
    assert info["partition_columns"] == ["we`ird k"] and info["comment"] == "it's"
    assert properties(clean_spark, T("t1"))["p"] == "${x}"
    assert not [row for row in clean_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]


def test_failed_dataframe_create_cleans_up(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    df = clean_spark.range(10000).selectExpr("CASE WHEN id = 7000 THEN raise_error('df boom') ELSE id END AS v")
    with pytest.raises(EngineOperationError) as raised:
        catalog.data.create(T("t1"), TableSpec(df=df), "tag")
    assert "df boom" in str(raised.value)
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []
    assert not [row for row in clean_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]
    with pytest.raises(InvalidDefinitionError):
        catalog.data.create(T("t1"), TableSpec(df="not a dataframe"), "tag")


# ---------------------------------------------------------------------- leftovers blocking create / rename


def test_create_over_leftover_files(catalog: Catalog, warehouse: Path) -> None:
    (warehouse / "t1" / "_temporary").mkdir(parents=True)
    (warehouse / "t1" / "_temporary" / "part").write_text("x")
    with pytest.raises(LeftoverFilesError) as raised:
        catalog.data.create(T("t1"), SIMPLE, "tag")
    assert raised.value.location is not None and raised.value.location.endswith("/t1")
    assert_short(raised.value)
    assert tree(warehouse / "t1") == ["_temporary", "_temporary/part"], "user-named leftovers are never removed"
    ours = TableName.of("ddllog_tmp_1", allow_reserved=True)
    (warehouse / ours.name / "_temporary").mkdir(parents=True)
    (warehouse / ours.name / "_temporary" / "part").write_text("x")
    catalog.data.create(ours, TableSpec(as_select="SELECT 1 AS a"), "tag")
    assert catalog.names.identity(ours) == "tag"
    assert "_temporary" not in tree(warehouse / ours.name)


# ---------------------------------------------------------------------- insert


def test_insert(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    spec = TableSpec(columns=columns(("a", "bigint"), ("k", "bigint")), partitioned_by=("k",))
    catalog.data.create(T("t1"), spec, "tag")
    catalog.data.insert(T("t1"), Fill(as_select="SELECT id, id % 2 FROM range(6);"))
    catalog.data.insert(T("t1"), Fill(df=clean_spark.range(4).selectExpr("id AS x", "7 AS y")))
    rows = clean_spark.table("`default`.`t1`")
    assert rows.count() == 10 and rows.where("k = 7").count() == 4
    assert not [row for row in clean_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]


def test_insert_errors(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.data.insert(T("nope"), Fill(as_select="SELECT 1"))
    assert missing.value.name == "default.nope"
    catalog.data.create(T("t1"), TableSpec(columns=columns(("a", "bigint"), ("k", "bigint")), partitioned_by=("k",)),
                        "t")
    catalog.data.insert(T("t1"), Fill(as_select="SELECT 1, 1"))
    before = [path for path in tree(warehouse / "t1") if "_temporary" not in path]
    with pytest.raises(InvalidDefinitionError) as arity:
        catalog.data.insert(T("t1"), Fill(as_select="SELECT 1"))
    assert_short(arity.value)
    with pytest.raises(NoSuchObjectError) as source:
        catalog.data.insert(T("t1"), Fill(as_select="SELECT * FROM nope"))
    assert source.value.name == "nope"
    with pytest.raises(EngineOperationError) as failed:
        catalog.data.insert(T("t1"), Fill(as_select=BOOM_SELECT))
    assert "boom" in str(failed.value)
    assert_short(failed.value)
    assert clean_spark.table("`default`.`t1`").count() == 1, "a failed insert adds no rows"
    assert [path for path in tree(warehouse / "t1") if "_temporary" not in path] == before, "nor data files"
    with pytest.raises(InvalidDefinitionError):
        catalog.data.insert(T("t1"), Fill())
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(WrongObjectKindError):
        catalog.data.insert(T("v1"), Fill(as_select="SELECT 1"))


# ---------------------------------------------------------------------- rename


def test_rename_moves_the_directory(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    catalog.data.create(T("t1"), TableSpec(as_select="SELECT id, id % 2 AS k FROM range(6)", partitioned_by=("k",)),
                        "tag")
    before = [path for path in tree(warehouse / "t1") if "_temporary" not in path]
    catalog.names.rename(T("t1"), T("t2"))
    assert not (warehouse / "t1").exists()
    assert tree(warehouse / "t2") == before
    assert clean_spark.table("`default`.`t2`").count() == 6
    assert catalog.definitions.table_location(T("t2")) == catalog.names.default_location(T("t2"))
    assert catalog.names.identity(T("t2")) == "tag" and not catalog.names.exists(T("t1"))


def test_rename_errors(catalog: Catalog, clean_spark: Any) -> None:
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.names.rename(T("nope"), T("t9"))
    assert missing.value.name == "default.nope"
    assert_short(missing.value)
    catalog.data.create(T("t1"), SIMPLE, "tag-1")
    catalog.data.create(T("t2"), SIMPLE, "tag-2")
    with pytest.raises(ObjectExistsError) as exists:
        catalog.names.rename(T("t1"), T("t2"))
    assert exists.value.name == "default.t2"
    assert (catalog.names.identity(T("t1")), catalog.names.identity(T("t2"))) == ("tag-1", "tag-2")
    clean_spark.sql("CREATE DATABASE other")
    with pytest.raises(CatalogError, match="within a database"):
        catalog.names.rename(T("t1"), T("t1", db="other"))
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(WrongObjectKindError, match="view"):
        catalog.names.rename(T("v1"), T("v2"))
    with pytest.raises(ObjectExistsError):
        catalog.names.rename(T("t1"), T("v1"))
    with pytest.raises(InvalidNameError):
        catalog.names.rename(T("t1"), T("a b"))
    assert catalog.names.identity(T("t1")) == "tag-1"


def test_rename_onto_leftover_directory(catalog: Catalog, warehouse: Path) -> None:
    catalog.data.create(T("t1"), SIMPLE, "tag")
    (warehouse / "t2").mkdir()  # even an empty directory blocks a rename
    with pytest.raises(LeftoverFilesError) as raised:
        catalog.names.rename(T("t1"), T("t2"))
    assert_short(raised.value)
    assert catalog.names.identity(T("t1")) == "tag" and (warehouse / "t1").is_dir()
    assert catalog.directories.clean_leftovers(T("t2"))
    catalog.names.rename(T("t1"), T("t2"))
    assert catalog.names.identity(T("t2")) == "tag"
    ours = TableName("default", "ddllog_backup_1")
    (warehouse / ours.name / "junk").mkdir(parents=True)
    catalog.names.rename(T("t2"), ours)  # our own name: the leftovers are removed first
    assert catalog.names.identity(ours) == "tag"


# ---------------------------------------------------------------------- drop


def test_drop_removes_table_and_files(catalog: Catalog, warehouse: Path) -> None:
    catalog.data.create(T("t1"), TableSpec(as_select="SELECT id, id % 2 AS k FROM range(6)", partitioned_by=("k",)),
                        "t")
    assert (warehouse / "t1").is_dir()
    catalog.names.drop(T("t1"))
    assert not catalog.names.exists(T("t1"))
    assert tree(warehouse) == []


def test_drop_with_an_expected_identity_leaves_any_other_table_alone(catalog: Catalog, warehouse: Path) -> None:
    catalog.data.create(T("t1"), TableSpec(as_select="SELECT 1 AS a"), "theirs")
    touched: list[str] = []
    assert catalog.names.drop(T("t1"), expect="ours", before=lambda: touched.append("before")) is False
    assert catalog.names.identity(T("t1")) == "theirs" and touched == [], "another identity: no drop, no hook"
    assert catalog.names.drop(T("t1"), expect="theirs", before=lambda: touched.append("before")) is True
    assert touched == ["before"] and not catalog.names.exists(T("t1")) and tree(warehouse) == []


def test_lookups_of_free_names_never_fail_inside_the_engine(catalog: Catalog, clean_spark: Any) -> None:
    """A failing DESCRIBE costs about 80 ms; a free name is answered by ``tableExists`` alone (issue 7)."""
    statements: list[str] = []
    real_sql = clean_spark.sql

    def spy(text: str, *args: Any, **kwargs: Any) -> Any:
        statements.append(text)
        return real_sql(text, *args, **kwargs)

    clean_spark.sql = spy
    try:
        assert catalog.names.identity(T("nope")) is None
        assert not catalog.names.exists(T("nope"))
        assert catalog.views.view_definition(T("nope")) is None
        assert catalog.names.default_location(T("nope")) is not None
    finally:
        del clean_spark.sql
    assert [text for text in statements if text.startswith("DESCRIBE")] == []


def test_drop_errors(catalog: Catalog, clean_spark: Any) -> None:
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.names.drop(T("nope"))
    assert missing.value.name == "default.nope"
    assert_short(missing.value)
    with pytest.raises(NoSuchObjectError):
        catalog.names.drop(T("t1", db="nodb"))
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    with pytest.raises(WrongObjectKindError, match="view"):
        catalog.names.drop(T("v1"))
    assert clean_spark.catalog.tableExists("`default`.`v1`"), "the view is still there"


def test_drop_external_table_keeps_its_data(catalog: Catalog, clean_spark: Any, tmp_path: Path) -> None:
    location = tmp_path / "external data"
    clean_spark.range(3).write.parquet(str(location))
    clean_spark.sql(f"CREATE TABLE `default`.`ext` USING parquet LOCATION {sql_string_literal(str(location))}")
    catalog.names.drop(T("ext"))
    assert not catalog.names.exists(T("ext"))
    assert any(name.endswith(".parquet") for name in tree(location))
