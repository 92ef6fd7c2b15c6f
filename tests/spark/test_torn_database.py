"""A kill inside Hive's CREATE or DROP DATABASE (Hive makes the directory before it commits a new database, and
deletes it after it commits a drop): recovery leaves no orphan directory (what the soak found), and never removes a
directory that was there before the statement."""

from __future__ import annotations

import pytest

from ddl_log import AtomicDDL
from tests import crashkit
from tests.spark.sweep_support import warehouse_dirs

pytestmark = pytest.mark.spark


def databases(spark) -> set[str]:
    return {str(row[0]) for row in spark.sql("SHOW DATABASES").collect()} - {"default"}


@pytest.mark.parametrize("directory_before", [False, True], ids=["fresh", "directory-already-there"])
def test_a_create_database_cut_inside_the_metastore_leaves_no_directory_it_made(
        spark, warehouse, tmp_path, clean_spark, directory_before):
    if directory_before:
        (warehouse / "d1.db").mkdir(parents=True)
    opener = lambda: AtomicDDL(spark=spark, home=tmp_path / "home")  # noqa: E731
    assert crashkit.crash_at(opener, lambda d: d.create_database("d1"), "create_database.do.before", 1)
    # what Hive does before its metastore commit; then the process dies
    (warehouse / "d1.db").mkdir(parents=True, exist_ok=True)
    ddl = opener()
    assert ddl.active_chains() == [] and ddl.binlog_events() == []
    ddl.close()
    assert databases(spark) == set()
    assert warehouse_dirs(warehouse) == ({"d1.db"} if directory_before else set())


def test_a_drop_database_cut_between_metastore_commit_and_directory_delete_is_finished(
        spark, warehouse, tmp_path, clean_spark):
    opener = lambda: AtomicDDL(spark=spark, home=tmp_path / "home")  # noqa: E731
    ddl = opener()
    ddl.create_database("d2")
    ddl.close()
    assert crashkit.crash_at(opener, lambda d: d.drop_database("d2", cascade=True), "drop_database.log.after", 1)
    spark.sql("DROP DATABASE d2")  # the metastore commit; Hive's directory delete is cut by the kill
    (warehouse / "d2.db").mkdir(parents=True)
    ddl = opener()
    assert ddl.active_chains() == []
    assert [event.generated_by_recovery for event in ddl.binlog_events()] == [False, True]
    ddl.close()
    assert databases(spark) == set() and warehouse_dirs(warehouse) == set()


def test_files_in_a_leftover_database_directory_are_never_removed(spark, warehouse, tmp_path, clean_spark):
    opener = lambda: AtomicDDL(spark=spark, home=tmp_path / "home")  # noqa: E731
    assert crashkit.crash_at(opener, lambda d: d.create_database("d3"), "create_database.do.before", 1)
    (warehouse / "d3.db").mkdir(parents=True)
    (warehouse / "d3.db" / "someone's file").write_text("data")
    opener().close()
    assert (warehouse / "d3.db" / "someone's file").read_text() == "data"
