"""A table plain Spark made at ``<db>/<name>``, replaced through the project: its old files wait there for the grace
period, which blocks plain Spark's CREATE of that name (``LOCATION_ALREADY_EXISTS``, Spark's
``SessionCatalog.validateTableLocation``); the directory explains itself (its note, which readers, RESTORE and the
preservation of the version's files never see), and RELEASE TABLE NAME frees the name at once. (The log's side,
crashes included: tests/unit/test_release_name.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from actions.leftovers import clean_leftovers_of
from ddl_log import AtomicDDL, CatalogError, DDLLogError
from storage.catalogs.kept_directories import KEPT_NOTE
from storage.catalogs.names import TableName
from storage.catalogs.spark.profile import local_path
from tests.conftest import warehouse_of

pytestmark = pytest.mark.spark

DB = "rel"


def files(path: Any) -> list[str]:
    return sorted(entry.name for entry in path.iterdir()) if path.is_dir() else []


def test_plain_spark_meets_an_explained_directory_and_release_frees_the_name(spark, tmp_path, clean_spark):
    spark.sql(f"CREATE DATABASE {DB}")
    spark.sql(f"CREATE TABLE {DB}.t USING parquet AS SELECT id, 'old' AS w FROM range(50)")
    spark.sql(f"CREATE TABLE {DB}.u USING parquet AS SELECT id FROM range(3)")
    at_name = warehouse_of(spark) / f"{DB}.db" / "t"
    old_files = files(at_name)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600, retention_seconds=0) as ddl:
        [replaced] = ddl.sql(f"CREATE OR REPLACE TABLE {DB}.t USING parquet AS SELECT id, 'new' AS w FROM range(5)")
        [hold] = replaced.result.holds
        assert (str(hold.name), hold.version) == (f"{DB}.t", True)
        assert files(at_name) == sorted([*old_files, KEPT_NOTE])  # the old version's files, untouched
        note = (at_name / KEPT_NOTE).read_text()
        assert f"version {hold.chain} of table {DB}.t" in note and f"release {DB}.t" in note
        # a reader that listed the old files reads them as before: Spark skips the note (a name starting with _)
        assert spark.read.parquet(str(at_name)).filter("w = 'old'").count() == 50

        spark.sql(f"DROP TABLE {DB}.t")  # going back to plain Spark: its DROP + CREATE of the name
        with pytest.raises(Exception, match="LOCATION_ALREADY_EXISTS"):
            spark.sql(f"CREATE TABLE {DB}.t USING parquet AS SELECT 1 AS id")
        released = ddl.release_table_name(f"{DB}.t")
        assert released.released == (hold.chain,) and not at_name.exists()
        spark.sql(f"CREATE TABLE {DB}.t USING parquet AS SELECT 1 AS id")
        assert spark.table(f"{DB}.t").count() == 1

        first = ddl.create_or_replace_table(f"{DB}.u", as_select="SELECT id FROM range(7)")
        assert (warehouse_of(spark) / f"{DB}.db" / "u" / KEPT_NOTE).exists()
        ddl.restore_table(f"{DB}.u", version=first.version)  # the version is the table's again: no note in it
        assert not (warehouse_of(spark) / f"{DB}.db" / "u" / KEPT_NOTE).exists()
        assert spark.table(f"{DB}.u").count() == 3


def test_a_replace_that_changes_partitioning_after_a_replace_runs_and_leaves_the_kept_version_where_it_is(
        spark, tmp_path, clean_spark):
    """Found by the differential run: the first replace of a table at ``<db>/<name>`` keeps its old version there;
    a later replace that changes the partition columns cannot swap in place (the metastore keeps partition keys) and
    takes the rename path. Before issue 40 that path renamed the new table into ``<db>/<name>`` and was refused
    until RELEASE TABLE NAME; now the new table is created at its own directory: it runs, the kept version's files
    untouched and still listed."""
    spark.sql(f"CREATE DATABASE {DB}")
    spark.sql(f"CREATE TABLE {DB}.p USING parquet PARTITIONED BY (k) AS SELECT id, 'w' AS w, id % 2 AS k "
              "FROM range(10)")  # plain Spark's: at <db>/p
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600) as ddl:
        ddl.sql(f"ALTER TABLE {DB}.p DROP COLUMNS (w)")
        _, kept = ddl.describe_history(f"{DB}.p").rows
        kept_dir = local_path(kept.location)
        assert kept_dir is not None and kept_dir.name == "p"
        kept_files = sorted(p.relative_to(kept_dir) for p in kept_dir.rglob("*.parquet"))
        result = ddl.sql(f"CREATE OR REPLACE TABLE {DB}.p (a INT, b STRING) USING parquet")
        assert result[0].result.path == "rename"
        assert [f.name for f in spark.table(f"{DB}.p").schema.fields] == ["a", "b"]
        assert kept_files and sorted(p.relative_to(kept_dir) for p in kept_dir.rglob("*.parquet")) == kept_files
        assert kept.version in [row.version for row in ddl.describe_history(f"{DB}.p").rows]


def test_dropping_every_data_column_is_refused_before_anything_runs(spark, tmp_path, clean_spark):
    """Found by the differential run: a table left with partition columns only cannot be written (Spark's writer
    fails its job); the rebuild is refused up front, naming the table, as plain Spark refuses DROP COLUMNS here."""
    spark.sql(f"CREATE DATABASE {DB}")
    spark.sql(f"CREATE TABLE {DB}.q USING parquet PARTITIONED BY (k) AS SELECT 'x' AS b, 1 AS k")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        with pytest.raises(CatalogError, match="every data column") as refused:
            ddl.sql(f"ALTER TABLE {DB}.q DROP COLUMN b")
        assert refused.value.name == f"{DB}.q"
    assert [tuple(r) for r in spark.table(f"{DB}.q").collect()] == [("x", 1)]



def test_a_version_another_home_keeps_at_the_name_is_named_never_deleted_and_its_release_frees_the_name(
        spark, tmp_path, clean_spark):
    """Found by the Spark replication soak (two drivers, each its own home on one catalog): most of its refused
    CREATEs met a version the *other* home kept at ``<db>/<name>``, which this home's log cannot move; the refusal
    said "left by a failed or interrupted operation; remove it, or call clean_leftovers", an invitation to delete
    another home's restorable version, and this home's clean-ups of leftovers would have deleted it. Now a CREATE
    never needs that directory (the new table is made at its own: before issue 40 it was refused); a RENAME of a
    plain Spark table, which the metastore moves to ``<db>/<name>``, is refused naming that home's note (whose
    version, until when, its release command), nothing changed; no clean-up of this home touches it, and the other
    home's RELEASE TABLE NAME frees the name."""
    spark.sql(f"CREATE DATABASE {DB}")
    a = AtomicDDL(spark=spark, home=tmp_path / "a", grace_seconds=600)
    b = AtomicDDL(spark=spark, home=tmp_path / "b", grace_seconds=600)
    try:
        spark.sql(f"CREATE TABLE {DB}.t USING parquet AS SELECT id FROM range(4)")  # plain Spark's: at <db>/t
        a.sql(f"CREATE OR REPLACE TABLE {DB}.t USING parquet AS SELECT id FROM range(9)")  # A keeps <db>/t
        at_name = warehouse_of(spark) / f"{DB}.db" / "t"
        kept = files(at_name)
        assert KEPT_NOTE in kept
        b.sql(f"DROP TABLE {DB}.t")
        spark.sql(f"CREATE TABLE {DB}.u USING parquet AS SELECT 'u' AS w")  # at <db>/u: a rename moves it to <db>/t
        binlog = len(b.binlog_events())
        with pytest.raises(DDLLogError, match="another DDL log home keeps") as renaming:
            b.sql(f"ALTER TABLE {DB}.u RENAME TO {DB}.t")
        assert f"release {DB}.t" in str(renaming.value) and "remove it" not in str(renaming.value)
        assert str(tmp_path / "a") in str(renaming.value)
        assert files(at_name) == kept and not spark.catalog.tableExists(f"{DB}.t")  # nothing changed
        assert [tuple(r) for r in spark.table(f"{DB}.u").collect()] == [("u",)]
        assert len(b.binlog_events()) == binlog
        clean_leftovers_of(b.context(), TableName.of(f"{DB}.t"))  # what B's undo, drop fix-up and sweep call
        assert files(at_name) == kept
        b.sql(f"CREATE TABLE {DB}.t USING parquet AS SELECT 'b' AS w")  # at a directory of its own
        assert [tuple(r) for r in spark.table(f"{DB}.t").collect()] == [("b",)] and files(at_name) == kept
        a.release_table_name(f"{DB}.t")
        assert not at_name.exists()
    finally:
        b.close()
        a.close()
