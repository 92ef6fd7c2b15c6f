"""Regression tests of the second outside review (issue 25) for what a DROP and a scheduled deletion do to files:
a due deletion proves that nothing uses a directory before it deletes it (defect 1), and a DROP lets the name go
before the files, so a reader never sees an empty table (defect 15). Each failed on the code before its fix."""

from __future__ import annotations

import time

import pytest

from ddl_log import AtomicDDL
from tests.definitions import rows

pytestmark = pytest.mark.spark


def local(location: str) -> str:
    return location.removeprefix("file:")


def test_defect1_a_due_deletion_keeps_a_directory_another_table_now_uses(clean_spark, tmp_path):
    """CREATE t, CREATE OR REPLACE t (the old version waits at <db>/t), then plain Spark registers t_archive at that
    directory: when the deletion is due it keeps the directory, and ddl-log status says why."""
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    spark.sql("INSERT INTO t VALUES (1), (2)")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0.5) as ddl:
        ddl.sql("CREATE OR REPLACE TABLE t AS SELECT 3 AS a")
        [pending] = ddl.pending_deletions()
        spark.sql(f"CREATE TABLE t_archive (a INT) USING parquet LOCATION '{pending.location}'")
        time.sleep(0.6)
        ddl.sql("CREATE TABLE z (a INT) USING parquet")  # any statement runs the due deletions
        assert ddl.pending_deletions() == [] and ddl.active_chains() == []
        notes = [ddl.log.note_of(a.id) for c in ddl.log.chains() for a in ddl.log.actions_of(c.position)]
        assert any(note and "t_archive" in note for note in notes)
    assert rows(spark, "default", "t_archive") == [("1",), ("2",)]


def test_defect1_a_deletion_keeps_a_directory_a_partition_of_another_table_points_into(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    spark.sql("INSERT INTO t VALUES (1)")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0.5) as ddl:
        ddl.sql("CREATE OR REPLACE TABLE t AS SELECT 3 AS a")
        [pending] = ddl.pending_deletions()
        spark.sql("CREATE TABLE other (x INT, p INT) USING parquet PARTITIONED BY (p)")
        spark.sql(f"ALTER TABLE other ADD PARTITION (p=1) LOCATION '{pending.location}'")
        time.sleep(0.6)
        ddl.sql("CREATE TABLE z (a INT) USING parquet")
        assert ddl.pending_deletions() == []
    assert len(spark.sql("SELECT * FROM other").collect()) == 1  # the old file of t, read through the partition


def test_defect1_an_unused_directory_is_deleted_once_due(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0.5) as ddl:
        ddl.sql("CREATE OR REPLACE TABLE t AS SELECT 3 AS a")
        [pending] = ddl.pending_deletions()
        time.sleep(0.6)
        ddl.sql("CREATE TABLE z (a INT) USING parquet")
        assert ddl.pending_deletions() == []
    from pathlib import Path

    assert not Path(local(pending.location)).exists()


@pytest.mark.parametrize("drop", ["DROP TABLE t", "DROP DATABASE d CASCADE"])
def test_defect15_a_reader_that_resolved_the_table_before_the_drop_reads_it_whole(clean_spark, tmp_path, drop):
    """A query resolved (and its files listed) before the DROP reads the old rows, never an empty table: the name
    goes first, the files after the grace period."""
    spark = clean_spark
    spark.sql("CREATE DATABASE d")
    spark.sql("USE d")
    try:
        spark.sql("CREATE TABLE t (a INT) USING parquet")
        spark.sql("INSERT INTO t VALUES (1), (2), (3)")
        resolved = spark.table("d.t")
        with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600) as ddl:
            ddl.sql(drop)
            assert not spark.catalog.tableExists("d.t")
            assert sorted(r[0] for r in resolved.collect()) == [1, 2, 3]
            assert {p.table.name for p in ddl.pending_deletions()} >= {"t"}
    finally:
        spark.sql("USE default")


def test_defect15_drop_purge_deletes_the_files_with_the_table(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    location = spark.sql("DESCRIBE TABLE EXTENDED t").where("col_name = 'Location'").collect()[0][1]
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600) as ddl:
        ddl.sql("DROP TABLE t PURGE")
        assert ddl.pending_deletions() == []
    from pathlib import Path

    assert not Path(local(location)).exists()
