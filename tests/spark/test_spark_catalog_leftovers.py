"""The Spark catalog on real Spark: listing tables, cleaning leftovers, settling torn renames, checking a CREATE before
it runs, and the embedded session itself."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from storage.catalogs.interface import TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.engine import sql_string_literal
from storage.errors import (
    EngineOperationError,
    InvalidDefinitionError,
    NoSuchObjectError,
    ObjectExistsError,
)
from tests.spark.catalog_support import BOOM_SELECT, SIMPLE, T, assert_short, columns, tree

pytestmark = pytest.mark.spark


# ---------------------------------------------------------------------- list_tables


def test_list_tables_lists_tables_only(catalog: Catalog, clean_spark: Any) -> None:
    for name in ("t2", "t1", "ddllog_tmp_9"):
        catalog.data.create(T(name), SIMPLE, name)
    clean_spark.sql("CREATE VIEW `default`.`v1` AS SELECT 1 AS a")
    clean_spark.range(1).createOrReplaceTempView("tv")
    assert catalog.names.list_tables("default") == [T("ddllog_tmp_9"), T("t1"), T("t2")]
    clean_spark.sql("CREATE DATABASE other")
    assert catalog.names.list_tables("other") == []
    catalog.data.create(T("o1", db="other"), SIMPLE, "o1")
    assert catalog.names.list_tables("other") == [T("o1", db="other")]
    with pytest.raises(NoSuchObjectError) as missing:
        catalog.names.list_tables("nodb")
    assert missing.value.name == "nodb"


# ---------------------------------------------------------------------- clean_leftovers


def test_clean_leftovers(catalog: Catalog, clean_spark: Any, warehouse: Path) -> None:
    assert not catalog.directories.clean_leftovers(T("t1"))
    (warehouse / "t1" / "_temporary" / "0").mkdir(parents=True)
    (warehouse / "t1" / "_temporary" / "0" / "part").write_text("x")
    assert catalog.directories.clean_leftovers(T("t1"))
    assert not (warehouse / "t1").exists()
    catalog.data.create(T("t2"), TableSpec(as_select="SELECT 1 AS a"), "tag")
    assert not catalog.directories.clean_leftovers(T("t2")), "a live table's files are never removed"
    assert clean_spark.table("`default`.`t2`").count() == 1
    assert not catalog.directories.clean_leftovers(T("t1", db="nodb"))


def test_a_failed_writes_clean_up_removes_once_its_tasks_stopped_and_never_a_newcomers_job(
        catalog: Catalog, warehouse: Path) -> None:
    """After a failed CREATE the clean-up waits for the context's tasks (a killed one could re-create
    ``_temporary``), removes the leftovers once, and is done: the name's directory is free from then on, and a write
    job another driver starts there right after (plain Spark's CTAS of the name) is never removed under it (polling
    for seconds used to remove it again)."""
    assert not catalog.names.exists(T("t1"))  # the metastore's first call made (run alone, it starts Derby: seconds)
    leftover = warehouse / "t1" / "_temporary" / "0" / "_temporary" / "attempt_20261204065200_0001_m_000000_1"
    leftover.mkdir(parents=True)
    (leftover / "part-00000.parquet").write_text("ours")
    newcomer = warehouse / "t1" / "_temporary" / "0" / "_temporary" / "attempt_20261204065201_0002_m_000000_1"

    def plain_spark_starts_its_ctas() -> None:
        # right after the removal (on a loaded machine a fixed delay could come before it: the newcomer would be a
        # leftover then), while a clean-up that polls would still be polling
        deadline = time.monotonic() + 10.0
        while leftover.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        newcomer.mkdir(parents=True)
        (newcomer / "part-00000.parquet").write_text("theirs")

    other = threading.Thread(target=plain_spark_starts_its_ctas)
    other.start()
    began = time.monotonic()
    catalog.directories.clean_until_quiet(T("t1"))  # type: ignore[attr-defined]
    other.join()
    assert time.monotonic() - began < 2.0
    assert not leftover.exists() and (newcomer / "part-00000.parquet").read_text() == "theirs"
    shutil.rmtree(warehouse / "t1")


def test_clean_leftovers_never_leaves_the_database_directory(catalog: Catalog, warehouse: Path) -> None:
    sentinel = warehouse.parent / "sentinel"
    sentinel.mkdir(exist_ok=True)
    (warehouse / "a").mkdir()
    for name in ("..", "../sentinel", "a/..", "", ".", "a b"):
        assert not catalog.directories.clean_leftovers(T(name))
    assert sentinel.is_dir() and (warehouse / "a").is_dir()


def test_clean_leftovers_in_a_database_with_an_odd_location(
    catalog: Catalog, clean_spark: Any, tmp_path: Path
) -> None:
    home = tmp_path / "odd dir #1 %41 ?x"
    clean_spark.sql(f"CREATE DATABASE odd LOCATION {sql_string_literal(str(home))}")
    name = T("t1", db="odd")
    with pytest.raises(EngineOperationError):
        catalog.data.create(name, TableSpec(as_select=BOOM_SELECT, partitioned_by=("k",)), "tag")
    assert tree(home) == []
    catalog.data.create(name, TableSpec(as_select="SELECT 1 AS a"), "tag")
    assert catalog.names.default_location(name) == catalog.definitions.table_location(name)
    assert (home / "t1").is_dir()
    catalog.names.drop(name)
    assert not (home / "t1").exists()
    (home / "t1").mkdir()
    assert catalog.directories.clean_leftovers(name)
    assert not (home / "t1").exists()


def test_clean_leftovers_through_the_metastore(clean_spark: Any, warehouse: Path) -> None:
    catalog = spark_catalog(clean_spark, leftovers="metastore")
    assert not catalog.directories.clean_leftovers(T("t1"))
    (warehouse / "t1" / "_temporary" / "0").mkdir(parents=True)
    (warehouse / "t1" / "_temporary" / "0" / "part").write_text("x")
    assert catalog.directories.clean_leftovers(T("t1"))
    assert tree(warehouse) == []
    assert catalog.names.list_tables("default") == [], "no helper table is left"
    with pytest.raises(EngineOperationError):
        catalog.data.create(T("t2"), TableSpec(as_select=BOOM_SELECT, partitioned_by=("k",)), "tag")
    assert tree(warehouse) == []
    assert catalog.names.list_tables("default") == []


def test_stale_helper_table_never_deletes_a_live_table(clean_spark: Any, warehouse: Path) -> None:
    catalog = spark_catalog(clean_spark, leftovers="metastore")
    catalog.data.create(T("live"), TableSpec(as_select="SELECT id FROM range(5)"), "live")
    location = catalog.names.default_location(T("live"))
    assert location is not None
    # What a crash between ADD PARTITION and DROP TABLE leaves, with a table living at that location since.
    helper = T("ddllog_gc_0123456789abcdef")
    clean_spark.sql(
        f"CREATE TABLE {helper.quoted} (`x` INT, `p` INT) USING parquet PARTITIONED BY (`p`) "
        f"TBLPROPERTIES ('spark_ddl_log.gc_target'={sql_string_literal(location)})"
    )
    clean_spark.sql(f"ALTER TABLE {helper.quoted} ADD PARTITION (`p`=1) LOCATION {sql_string_literal(location)}")
    catalog.names.drop(helper)
    assert not catalog.names.exists(helper)
    assert clean_spark.table("`default`.`live`").count() == 5
    assert not (warehouse / helper.name).exists()


# ---------------------------------------------------------------------- settle_rename


def _torn_rename(catalog: Catalog, warehouse: Path, partitioned: bool = False) -> None:
    """A rename killed after Hive moved the directory, before the metastore commit."""
    spec = TableSpec(as_select="SELECT id, id % 3 AS k FROM range(7)", partitioned_by=("k",) if partitioned else ())
    catalog.data.create(T("t1"), spec, "tag")
    os.rename(warehouse / "t1", warehouse / "t2")


@pytest.mark.parametrize("partitioned", [False, True])
def test_settle_rename_moves_the_data_back(
    catalog: Catalog, clean_spark: Any, warehouse: Path, partitioned: bool
) -> None:
    _torn_rename(catalog, warehouse, partitioned)
    catalog.names.settle_rename(T("t1"), T("t2"))
    assert (warehouse / "t1").is_dir() and not (warehouse / "t2").exists()
    clean_spark.catalog.refreshTable("`default`.`t1`")
    assert clean_spark.table("`default`.`t1`").count() == 7
    catalog.names.settle_rename(T("t1"), T("t2"))  # nothing torn: a no-op
    catalog.names.rename(T("t1"), T("t2"))
    catalog.names.settle_rename(T("t1"), T("t2"))  # a finished rename: a no-op
    assert catalog.names.identity(T("t2")) == "tag" and (warehouse / "t2").is_dir()


@pytest.mark.parametrize("partitioned", [False, True])
def test_settle_rename_through_the_metastore(clean_spark: Any, warehouse: Path, partitioned: bool) -> None:
    catalog = spark_catalog(clean_spark, leftovers="metastore")
    _torn_rename(catalog, warehouse, partitioned)
    catalog.names.settle_rename(T("t1"), T("t2"))
    assert catalog.definitions.table_location(T("t1")) == catalog.names.default_location(T("t2"))
    clean_spark.catalog.refreshTable("`default`.`t1`")
    assert clean_spark.table("`default`.`t1`").count() == 7
    assert catalog.names.identity(T("t1")) == "tag"
    catalog.names.drop(T("t1"))
    assert tree(warehouse) == []


# ---------------------------------------------------------------------- check_create


def test_check_create_accepts_good_specs_without_side_effects(
    catalog: Catalog, clean_spark: Any, warehouse: Path
) -> None:
    catalog.data.create(T("src"), SIMPLE, "src")
    before = tree(warehouse)
    for spec in (
        TableSpec(columns=columns(("a", "int"), ("p", "string")), partitioned_by=("P",)),
        TableSpec(like=T("src")),
        TableSpec(as_select="SELECT a, b FROM `default`.`src`", partitioned_by=("b",)),
        TableSpec(as_select="SELECT CASE WHEN id = 1 THEN raise_error('not run') END AS x, id FROM range(3)"),
        TableSpec(df=clean_spark.range(3).selectExpr("id", "id AS k"), partitioned_by=("k",)),
    ):
        catalog.data.check_create(spec)
    assert catalog.names.list_tables("default") == [T("src")]
    assert tree(warehouse) == before
    assert not [row for row in clean_spark.sql("SHOW VIEWS").collect() if row["isTemporary"]]


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (TableSpec(like=TableName("default", "nope")), NoSuchObjectError),
        (TableSpec(columns=columns(("a", "nosuchtype"))), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int"), ("b", "int")), partitioned_by=("zz",)), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int")), partitioned_by=("a",)), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int"), ("A", "int"))), ObjectExistsError),
        (TableSpec(as_select="SELEC 1"), InvalidDefinitionError),
        (TableSpec(as_select="SELECT * FROM nope"), NoSuchObjectError),
        (TableSpec(as_select="SELECT 1 AS a, 2 AS b", partitioned_by=("c",)), InvalidDefinitionError),
        (TableSpec(columns=columns(("a", "int")), using="x y"), InvalidDefinitionError),
        (TableSpec(), InvalidDefinitionError),
    ],
)
def test_check_create_rejects_what_create_would(catalog: Catalog, spec: TableSpec, error: type) -> None:
    with pytest.raises(error) as raised:
        catalog.data.check_create(spec)
    assert_short(raised.value)


def test_check_create_rejects_bad_dataframes(catalog: Catalog, clean_spark: Any) -> None:
    with pytest.raises(InvalidDefinitionError):
        catalog.data.check_create(TableSpec(df=clean_spark.range(3), partitioned_by=("nope",)))
    with pytest.raises(InvalidDefinitionError):
        catalog.data.check_create(TableSpec(df=object()))


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
