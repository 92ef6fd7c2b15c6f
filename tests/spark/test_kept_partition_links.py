"""An INSERT OVERWRITE that replaces some partitions of a table on a local warehouse builds the new version with the
partitions it keeps as hard links to the old version's data files (no Spark job rewrites their rows): each version
still owns its directory, so the old version expiring, a RESTORE of it, or an INSERT INTO the new one never changes
the other. (Same rows and partitions as plain Spark in every mode: tests/spark/test_insert_overwrite.py; every crash
point of the dynamic and static-spec forms: tests/spark/test_statement_sweeps.py.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.spark.fs.partition_links import link_directories
from storage.catalogs.spark.profile import local_path

pytestmark = pytest.mark.spark

DB = "links"


def location(spark: Any, name: str) -> Path:
    table = spark._jsparkSession.sessionState().catalog().externalCatalog().getTable(DB, name)
    path = local_path(str(table.location()))
    assert path is not None
    return path


def data_files(directory: Path) -> dict[str, int]:
    """Every data file under ``directory`` (relative path -> inode), hidden names left out as readers do."""
    return {str(path.relative_to(directory)): path.stat().st_ino for path in directory.rglob("*")
            if path.is_file() and not path.name.startswith(("_", "."))}


def rows(spark: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in spark.table(f"{DB}.p").collect())


@pytest.fixture
def ddl(spark, tmp_path, clean_spark) -> Any:
    """A home whose replaced versions expire at once (retention and grace 0), over ``p`` partitioned by day with
    rows in d0, d1, d2 and an empty partition d3, made by the log (at a directory of its own)."""
    spark.sql(f"CREATE DATABASE {DB}")
    with AtomicDDL(spark=spark, home=tmp_path / "home", compact_bytes=0, grace_seconds=0,
                   retention_seconds=0) as atomic:
        atomic.sql(f"CREATE TABLE {DB}.p USING parquet PARTITIONED BY (day) "
                   "AS SELECT id AS v, concat('d', id % 3) AS day FROM range(9)")
        spark.sql(f"ALTER TABLE {DB}.p ADD PARTITION (day='d3')")
        yield atomic


@pytest.mark.parametrize("form", ["dynamic", "static spec"])
def test_kept_partitions_are_links_to_the_old_files_and_outlive_the_old_version(spark, ddl, form):
    old_dir, before = location(spark, "p"), rows(spark)
    old_files = data_files(old_dir)
    if form == "dynamic":
        ddl.insert_overwrite(f"{DB}.p", as_select=f"SELECT v * 10, day FROM {DB}.p WHERE day = 'd0'",
                             overwrite_mode="dynamic")
    else:
        ddl.sql(f"INSERT OVERWRITE TABLE {DB}.p PARTITION (day='d0') SELECT v * 10 FROM {DB}.p WHERE day = 'd0'")
    new_dir = location(spark, "p")
    assert new_dir != old_dir
    new_files = data_files(new_dir)
    kept = {path: inode for path, inode in old_files.items() if not path.startswith("day=d0/")}
    assert kept and {path: new_files[path] for path in kept} == kept  # the same files, not copies
    assert all(old_files.get(path) != inode for path, inode in new_files.items() if path.startswith("day=d0/"))
    after = sorted((v * 10 if day == "d0" else v, day) for v, day in before)
    assert rows(spark) == after
    assert sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {DB}.p").collect()) == \
        ["day=d0", "day=d1", "day=d2", "day=d3"]

    ddl.run_due_deletions()  # the old version expires: its directory goes, its names of the shared files with it
    assert not old_dir.exists()
    spark.catalog.refreshTable(f"{DB}.p")
    assert rows(spark) == after


def test_an_insert_into_a_kept_partition_leaves_the_old_version_as_it_was(spark, tmp_path, clean_spark):
    spark.sql(f"CREATE DATABASE {DB}")
    with AtomicDDL(spark=spark, home=tmp_path / "home", compact_bytes=0, grace_seconds=0,
                   retention_seconds=3600) as ddl:
        ddl.sql(f"CREATE TABLE {DB}.p USING parquet PARTITIONED BY (day) "
                "AS SELECT id AS v, concat('d', id % 3) AS day FROM range(9)")
        before = rows(spark)
        replaced = ddl.insert_overwrite(f"{DB}.p", as_select="SELECT 100, 'd0'", overwrite_mode="dynamic")
        ddl.sql(f"INSERT INTO {DB}.p VALUES (7, 'd1')")  # into a partition the overwrite kept
        assert (7, "d1") in rows(spark) and rows(spark).count((7, "d1")) == 2
        ddl.restore_table(f"{DB}.p", version=replaced.version)
        assert rows(spark) == before


ODD_VALUES = ["a b/c%d", "é#?", "x=y", "'q'", None]
"""Partition values Spark escapes in directory names (or writes as ``__HIVE_DEFAULT_PARTITION__``)."""


def test_partitions_with_odd_values_are_kept_whole(spark, tmp_path, clean_spark):
    spark.sql(f"CREATE DATABASE {DB}")
    with AtomicDDL(spark=spark, home=tmp_path / "home", compact_bytes=0, grace_seconds=0,
                   retention_seconds=0) as ddl:
        ddl.sql(f"CREATE TABLE {DB}.p (v INT, day STRING) USING parquet PARTITIONED BY (day)")
        values = ", ".join(f"({n}, {'NULL' if value is None else repr(value)})" for n, value in enumerate(ODD_VALUES))
        spark.sql(f"INSERT INTO {DB}.p VALUES {values}")  # Python's repr quotes as Spark SQL does for these values
        before = rows(spark)
        old_files = data_files(location(spark, "p"))
        ddl.insert_overwrite(f"{DB}.p", as_select="SELECT 100, 'new'", overwrite_mode="dynamic")
        new_files = data_files(location(spark, "p"))
        assert set(old_files.values()) <= set(new_files.values())  # every old file kept, as a link
        assert rows(spark) == sorted([*before, (100, "new")], key=lambda row: (row[0], str(row[1])))
        ddl.run_due_deletions()
        spark.catalog.refreshTable(f"{DB}.p")
        assert rows(spark) == sorted([*before, (100, "new")], key=lambda row: (row[0], str(row[1])))


def test_nothing_is_linked_when_one_partition_cannot_be(tmp_path):
    first, second = tmp_path / "old" / "k=1", tmp_path / "old" / "k=2"
    first.mkdir(parents=True)
    (first / "part-0.parquet").write_bytes(b"rows")
    (first / "_SUCCESS").write_bytes(b"")
    (first / "_temporary" / "0").mkdir(parents=True)  # a running job's: not entered
    (second / "nested").mkdir(parents=True)  # Hive's list-bucketing layout: not linked
    new = tmp_path / "new"
    new.mkdir()
    assert link_directories([(first, new / "k=1")])
    assert sorted(os.listdir(new / "k=1")) == ["_SUCCESS", "part-0.parquet"]  # as plain Spark leaves it
    assert (new / "k=1" / "part-0.parquet").stat().st_ino == (first / "part-0.parquet").stat().st_ino
    assert not link_directories([(first, new / "a=1" / "k=1"), (second, new / "a=1" / "k=2")])
    assert sorted(os.listdir(new)) == ["k=1"]  # what the failed call made is gone, parents included
    assert not link_directories([(first, new / "k=1")])  # an existing target is never written into
    assert link_directories([(tmp_path / "missing", new / "k=3")]) and not os.listdir(new / "k=3")
    (tmp_path / "old" / "k=4").mkdir()
    (tmp_path / "old" / "k=4" / "part-1.parquet").symlink_to(first / "part-0.parquet")
    assert not link_directories([(tmp_path / "old" / "k=4", new / "k=4")])  # a link is not followed: rows copied


@pytest.mark.parametrize("form", ["dynamic", "static spec"])
def test_a_hive_serde_table_keeps_its_partitions_where_the_work_table_is_renamed_in(spark, tmp_path, clean_spark,
                                                                                      form):
    """A Hive serde table takes the rename path (its work table becomes the table): the kept partitions' records,
    held for a swap, are registered in the work table before it is renamed in. Same rows and partitions as plain
    Spark's statement on a copy."""
    spark.sql(f"CREATE DATABASE {DB}")
    for name in ("p", "plain"):
        spark.sql(f"CREATE TABLE {DB}.{name} (v BIGINT) PARTITIONED BY (day STRING) STORED AS PARQUET")
        spark.sql(f"INSERT INTO {DB}.{name} SELECT id, concat('d', id % 3) FROM range(9)")
        spark.sql(f"ALTER TABLE {DB}.{name} ADD PARTITION (day='d3')")
    if form == "dynamic":
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        statement = "INSERT OVERWRITE TABLE {t} PARTITION (day) SELECT id * 10, 'd0' FROM range(0, 9, 3)"
    else:
        statement = "INSERT OVERWRITE TABLE {t} PARTITION (day='d0') SELECT id * 10 FROM range(0, 9, 3)"
    try:
        with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
            ddl.sql(statement.format(t=f"{DB}.p"))
        spark.sql(statement.format(t=f"{DB}.plain"))
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert rows(spark) == sorted(tuple(row) for row in spark.table(f"{DB}.plain").collect())

    def partitions(name: str) -> list[str]:
        return sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {DB}.{name}").collect())

    assert partitions("p") == partitions("plain") == ["day=d0", "day=d1", "day=d2", "day=d3"]


HIVE_SETUP = ["CREATE TABLE h STORED AS PARQUET PARTITIONED BY (day) "
              "AS SELECT id AS v, concat('d', id % 3) AS day FROM range(9)"]


@pytest.mark.parametrize("form", ["dynamic", "static spec"])
def test_crash_around_every_catalog_operation_of_a_hive_serde_partial_overwrite(spark, warehouse, tmp_path,
                                                                               clean_spark, form):
    """The rename path with kept partitions held and then registered in the work table (a Hive serde table refuses
    the swap): crashed around each catalog operation and at the commit point, then recovered, the table is exactly
    as before (nothing binlogged) or as after (binlogged once), no work table, no orphan directory."""
    from tests.spark.sweep_support import catalog_points, sweep_statement

    def statement(ddl: AtomicDDL) -> Any:
        if form == "dynamic":
            return ddl.insert_overwrite("h", as_select="SELECT 99, 'd0'", overwrite_mode="dynamic")
        return ddl.insert_overwrite("h", as_select="SELECT 99", partition={"day": "d1"})

    def world(label: str) -> Any:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    spark.conf.set("hive.exec.dynamic.partition.mode", "nonstrict")  # the set-up's partitioned Hive CTAS
    try:
        found = sweep_statement(spark, warehouse, HIVE_SETUP, world, statement, catalog_points)
    finally:
        spark.conf.unset("hive.exec.dynamic.partition.mode")
    print(f"\n[swept] {form}: {len(found)} crash points")
    assert {outcome for _, outcome in found} == {"before", "after"}
