"""Partition directories that no record names: files an ingestion job landed under a table's directory for a later
``MSCK REPAIR TABLE`` (or ``ADD PARTITION``), or that a session not managing partitions wrote. Spark's overwrite of
some partitions deletes only the directories it replaces, and its TRUNCATE empties only the partitions the records
name, so those files outlive the statement and the repair registers them. A statement of the log writes a new
version at a directory of its own: it must take them along, or they go with the old version when it expires. Each
statement below runs through the log and as plain Spark on twin tables with such a directory, both repaired after:
the same rows. Before (2026-12-04) every one of them lost the landed files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.spark.profile import local_path
from tests.spark.sweep_support import assert_clean_log

pytestmark = pytest.mark.spark

MODE = "spark.sql.sources.partitionOverwriteMode"
DATA_SOURCE = "CREATE TABLE {t} (id INT, p STRING, q STRING) USING parquet PARTITIONED BY (p, q)"
HIVE_SERDE = "CREATE TABLE {t} (id INT) PARTITIONED BY (p STRING, q STRING) STORED AS parquet"

STATEMENTS = {  # the statement on {t}, the overwrite mode it runs in
    "dynamic overwrite": ("INSERT OVERWRITE TABLE {t} SELECT 9, 'a', 'x'", "dynamic"),
    "static overwrite of a partition": ("INSERT OVERWRITE TABLE {t} PARTITION (p = 'a', q = 'x') SELECT 9", "static"),
    # Spark's deletes the directory of its static values whole: p=a/q=landed goes, p=b/q=landed stays
    "static overwrite of a partition prefix": ("INSERT OVERWRITE TABLE {t} PARTITION (p = 'a', q) SELECT 9, 'x'",
                                               "static"),
    "TRUNCATE": ("TRUNCATE TABLE {t}", "static"),
}


def location(spark: Any, table: str) -> Path:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").collect()
    path = local_path(str(rows[0][1]))
    assert path is not None
    return path


def make_with_landed_files(spark: Any, table: str, create: str) -> None:
    """``table`` with partitions (a, x) and (b, y), and a data file landed at ``p=a/q=landed`` and ``p=b/q=landed``
    (a copy of one of its own files), no record for either."""
    spark.sql(create.format(t=table))
    spark.sql(f"INSERT INTO {table} PARTITION (p, q) VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    root = location(spark, table)
    source = next(path for path in (root / "p=b" / "q=y").iterdir() if not path.name.startswith((".", "_")))
    for values in ("p=a/q=landed", "p=b/q=landed"):
        (root / values).mkdir(parents=True)
        shutil.copy(source, root / values / "part-landed")


def run_both(spark: Any, ddl: AtomicDDL, text: str, mode: str) -> None:
    """``text`` on ``ours`` through the log and on ``plain`` as plain Spark, in overwrite mode ``mode``."""
    spark.conf.set(MODE, mode)
    try:
        ddl.sql(text.format(t="ours"))
        spark.sql(text.format(t="plain"))
    finally:
        spark.conf.unset(MODE)


def repaired_rows(spark: Any, table: str) -> list[tuple[Any, ...]]:
    spark.sql(f"MSCK REPAIR TABLE {table}")
    spark.catalog.refreshTable(table)
    return sorted(tuple(row) for row in spark.sql(f"SELECT p, q, count(*) FROM {table} GROUP BY p, q").collect())


@pytest.mark.parametrize("create", [DATA_SOURCE, HIVE_SERDE], ids=["data source", "Hive serde"])
@pytest.mark.parametrize("statement", STATEMENTS)
def test_files_landed_for_a_repair_outlive_the_statement_as_they_outlive_sparks(
        clean_spark: Any, tmp_path: Path, statement: str, create: str) -> None:
    spark = clean_spark
    text, mode = STATEMENTS[statement]
    make_with_landed_files(spark, "ours", create)
    make_with_landed_files(spark, "plain", create)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        run_both(spark, ddl, text, mode)
        assert repaired_rows(spark, "ours") == repaired_rows(spark, "plain")
        assert_clean_log(ddl)


SETUP = [
    "CREATE TABLE p USING parquet PARTITIONED BY (day) AS SELECT id AS v, concat('d', id % 2) AS day FROM range(8)",
    # a partition directory no record names: written by a session that does not manage partitions
    "SET spark.sql.hive.manageFilesourcePartitions = false",
    "INSERT INTO p VALUES (100, 'landed')",
    "SET spark.sql.hive.manageFilesourcePartitions = true",
]

SWEPT = {
    "dynamic overwrite": lambda d: d.insert_overwrite("p", as_select="SELECT v * 10, day FROM p WHERE day = 'd0'",
                                                      overwrite_mode="dynamic"),
    "TRUNCATE": lambda d: d.truncate_table("p"),
}


@pytest.mark.parametrize("statement", SWEPT)
def test_a_crash_anywhere_leaves_the_landed_files_and_nothing_else_of_the_statement(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, statement: str) -> None:
    """Each crash point of the statement, then recovery: the state before (the new version's directory, with the
    landed files put into it, removed) or after."""
    from tests.spark.sweep_support import catalog_points, sweep_statement

    def world(label: str) -> Any:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    sweep_statement(spark, warehouse, SETUP, world, SWEPT[statement], catalog_points)


def test_an_alter_rebuild_leaves_them_with_the_old_version(clean_spark: Any, tmp_path: Path) -> None:
    """An ALTER TABLE rebuild writes the table's rows with other columns: files landed with the old ones are not
    put into the new version (docs/limitations.md), which has its records' partitions only."""
    spark = clean_spark
    make_with_landed_files(spark, "ours", DATA_SOURCE)
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("ALTER TABLE ours ALTER COLUMN id TYPE BIGINT")
        root = location(spark, "ours")
        assert sorted(str(path.relative_to(root)) for path in root.glob("p=*/q=*")) == ["p=a/q=x", "p=b/q=y"]
        assert_clean_log(ddl)


@pytest.mark.parametrize("create", [DATA_SOURCE, HIVE_SERDE], ids=["data source", "Hive serde"])
@pytest.mark.parametrize("statement", ["dynamic overwrite", "TRUNCATE"])
def test_a_table_with_no_record_yet_keeps_its_landed_files(clean_spark: Any, tmp_path: Path, statement: str,
                                                           create: str) -> None:
    """The usual landing: a table made empty, files landed under it, the repair still to come. Spark's TRUNCATE
    has no record to empty, and its overwrite of some partitions replaces only those it writes: both leave them."""
    spark = clean_spark
    text, mode = STATEMENTS[statement]
    for table in ("ours", "plain"):
        make_with_landed_files(spark, table, create)
        spark.sql(f"ALTER TABLE {table} DROP PARTITION (p = 'a', q = 'x')")
        spark.sql(f"ALTER TABLE {table} DROP PARTITION (p = 'b', q = 'y')")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        run_both(spark, ddl, text, mode)
        assert repaired_rows(spark, "ours") == repaired_rows(spark, "plain") != []
        assert_clean_log(ddl)
