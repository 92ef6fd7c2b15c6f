"""A partitioned INSERT OVERWRITE on the simulated object store (no hard links): the partitions it keeps are put into
the new version's directory as byte copies of their files by one Spark job (storage/catalogs/spark/fs/file_copies.py),
and the new rows written there by Spark's own job: the write path, no work table, no row of a kept partition read or
rewritten, nothing renamed but Spark's commit of its own staging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests.object_store.store import StoreCalls

pytestmark = pytest.mark.spark

TABLE = ("CREATE TABLE kp USING parquet PARTITIONED BY (d) AS SELECT /*+ REPARTITION(3) */ id AS v, "
         "concat('d', id % 4) AS d FROM range(40)")


def rows(spark: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in spark.table("kp").collect())


def partition_files(spark: Any, spec: str) -> dict[str, int]:
    """The data files of ``kp``'s partition ``spec``: name -> length (read through Hadoop's FileSystem API)."""
    location = str(spark.sql(f"DESCRIBE TABLE EXTENDED kp PARTITION ({spec})").where("col_name = 'Location'")
                   .first()[1])
    path = spark._jvm.org.apache.hadoop.fs.Path(location)
    file_system = path.getFileSystem(spark._jsc.hadoopConfiguration())
    return {str(status.getPath().getName()): int(status.getLen()) for status in file_system.listStatus(path)
            if not str(status.getPath().getName()).startswith(("_", "."))}


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Path) -> Any:
    clean_spark.sql(TABLE)
    atomic = AtomicDDL(spark=clean_spark, home=tmp_path / "home", grace_seconds=0)
    yield atomic
    atomic.close()


def test_a_dynamic_overwrite_on_a_store_copies_the_kept_partitions_files_and_takes_the_write_path(ddl, clean_spark):
    spark, calls = clean_spark, StoreCalls(clean_spark)
    kept = {spec: partition_files(spark, spec) for spec in ("d='d1'", "d='d2'", "d='d3'")}
    before = rows(spark)
    calls.reset()
    result = ddl.insert_overwrite("kp", as_select="SELECT v + 100, d FROM kp WHERE d = 'd0'", overwrite_mode="dynamic")
    assert result.path == "write"
    assert {r.kind for r in calls.renames()} <= {"staging"}, calls.renames()
    assert rows(spark) == sorted((v + 100, d) if d == "d0" else (v, d) for v, d in before)
    assert {spec: partition_files(spark, spec) for spec in kept} == kept  # the same files, byte for byte in length
    assert sorted(row[0] for row in spark.sql("SHOW PARTITIONS kp").collect()) == ["d=d0", "d=d1", "d=d2", "d=d3"]


def test_a_static_overwrite_on_a_store_keeps_an_empty_partition_too(ddl, clean_spark):
    spark = clean_spark
    spark.sql("ALTER TABLE kp ADD PARTITION (d='empty')")
    result = ddl.insert_overwrite("kp", as_select="SELECT v * 2 FROM kp WHERE d = 'd1'", partition={"d": "d1"},
                                  overwrite_mode="static")
    assert result.path == "write"
    assert sorted(row[0] for row in spark.sql("SHOW PARTITIONS kp").collect()) == [
        "d=d0", "d=d1", "d=d2", "d=d3", "d=empty"]
    assert spark.table("kp").where("d = 'empty'").count() == 0 and spark.table("kp").count() == 40
    assert sorted(row[0] for row in spark.table("kp").where("d = 'd1'").collect()) == [
        v * 2 for v in range(40) if v % 4 == 1]


def test_a_failed_copy_leaves_the_table_as_it_was(ddl, clean_spark, monkeypatch):
    """The copy job failing (here: refused before it starts) fails the statement; the undo removes what the new
    version's directory holds, the table keeps its rows and location."""
    from storage.errors import DDLLogError, EngineOperationError

    spark = clean_spark
    before, location = rows(spark), ddl.catalog.definitions.table_location(ddl_name())

    def refused(engine: Any, pairs: Any) -> None:
        raise EngineOperationError("the copy job failed", "kp")

    monkeypatch.setattr("storage.catalogs.spark.sql.partition_keep.copy_files", refused)
    with pytest.raises(DDLLogError, match="the copy job failed"):
        ddl.insert_overwrite("kp", as_select="SELECT v, d FROM kp WHERE d = 'd0'", overwrite_mode="dynamic")
    assert rows(spark) == before and ddl.catalog.definitions.table_location(ddl_name()) == location
    assert ddl.binlog_events() == [] and ddl.active_chains() == []


def ddl_name() -> Any:
    from storage.catalogs.names import TableName

    return TableName("default", "kp")


ODD_VALUES = ["a b/c%d", "é#?", "x=y", "'q'", "50%", None]
"""Partition values Spark escapes in directory names (``/``, ``%``, ``#``, ``?``, ``=`` and ``'`` as ``%XX``; the
null as ``__HIVE_DEFAULT_PARTITION__``), some of them also escaped in a path's URI (``%`` and the space)."""


def test_partitions_with_odd_values_are_copied_whole(ddl, clean_spark):
    """A kept partition is found in the listing of the table's files by its location relative to the table's: a
    value escaped in the directory's name (and again in a URI) must name the same files on both sides, or the
    partition would be kept with no rows."""
    spark = clean_spark
    spark.sql("CREATE TABLE odd (v INT, day STRING) USING parquet PARTITIONED BY (day)")
    values = ", ".join(f"({n}, {'NULL' if value is None else repr(value)})" for n, value in enumerate(ODD_VALUES))
    spark.sql(f"INSERT INTO odd VALUES {values}")  # Python's repr quotes as Spark SQL does for these values
    before = sorted((tuple(row) for row in spark.table("odd").collect()), key=lambda row: (row[0], str(row[1])))
    result = ddl.insert_overwrite("odd", as_select="SELECT 100, 'new'", overwrite_mode="dynamic")
    assert result.path == "write"
    after = sorted((tuple(row) for row in spark.table("odd").collect()), key=lambda row: (row[0], str(row[1])))
    assert after == sorted([*before, (100, "new")], key=lambda row: (row[0], str(row[1])))
    ddl.run_due_deletions()  # grace 0: the old version's files go; the new version reads its own copies
    spark.catalog.refreshTable("odd")
    assert sorted((tuple(row) for row in spark.table("odd").collect()),
                  key=lambda row: (row[0], str(row[1]))) == after


def test_an_insert_into_a_kept_partition_meanwhile_fails_the_overwrite_and_keeps_its_rows(ddl, clean_spark):
    """Plain Spark appends to a kept partition after its files were copied into the new version: the install lists
    them again (one request on a store) and refuses as for any change outside the log; the appended row stays."""
    from ddl_log import ConcurrentChangeError, StatementFailedError
    from storage import crashpoints

    spark = clean_spark
    before = rows(spark)
    with crashpoints.acting("replace.orig_checked", lambda: spark.sql("INSERT INTO kp VALUES (1000, 'd1')")), \
            pytest.raises(StatementFailedError) as refused:
        ddl.sql("INSERT OVERWRITE kp PARTITION (d = 'd0') SELECT v + 100 FROM kp WHERE d = 'd0'")
    assert isinstance(refused.value.cause, ConcurrentChangeError)
    assert rows(spark) == sorted([*before, (1000, "d1")])
    assert ddl.binlog_events() == [] and ddl.active_chains() == [] and ddl.pending_deletions() == []


@pytest.mark.parametrize("statement", ["dynamic overwrite", "TRUNCATE"])
def test_a_partition_directory_no_record_names_is_copied_into_the_new_version_as_spark_leaves_it(
        ddl, clean_spark, statement):
    """Files landed under the table's directory for a later MSCK REPAIR TABLE (here written by a session that does
    not manage partitions): Spark's overwrite of some partitions and its TRUNCATE leave them, so the new version
    takes a copy (tests/spark/test_unregistered_partitions.py has the local twin and the crash sweeps)."""
    spark = clean_spark
    spark.conf.set("spark.sql.hive.manageFilesourcePartitions", "false")
    try:
        spark.sql("INSERT INTO kp VALUES (1000, 'landed')")
    finally:
        spark.conf.unset("spark.sql.hive.manageFilesourcePartitions")
    assert spark.table("kp").where("d = 'landed'").count() == 0  # no record: not read until repaired
    if statement == "TRUNCATE":
        ddl.truncate_table("kp")
    else:
        ddl.insert_overwrite("kp", as_select="SELECT v + 100, d FROM kp WHERE d = 'd0'", overwrite_mode="dynamic")
    spark.sql("MSCK REPAIR TABLE kp")
    spark.catalog.refreshTable("kp")
    assert [tuple(row) for row in spark.table("kp").where("d = 'landed'").collect()] == [(1000, "landed")]


def hadoop_path(spark: Any, text: str) -> tuple[Any, Any]:
    path = spark._jvm.org.apache.hadoop.fs.Path(text)
    return path.getFileSystem(spark._jsc.hadoopConfiguration()), path


@pytest.mark.parametrize("statement", ["dynamic overwrite", "TRUNCATE"])
def test_a_success_marker_is_kept_where_spark_leaves_it_and_a_marker_only_directory_too(
        ddl, clean_spark, statement):
    """A pipeline that writes a partition's directory itself leaves ``_SUCCESS`` there (a sensor waits for it), and
    one that landed no row leaves a directory with nothing but it, which MSCK REPAIR TABLE registers. Spark's
    overwrite of other partitions and its TRUNCATE leave both; so does the new version."""
    spark = clean_spark
    root = str(spark.sql("DESCRIBE TABLE EXTENDED kp").where("col_name = 'Location'").first()[1]).rstrip("/")
    for marker in ("d=d1/_SUCCESS", "d=zero/_SUCCESS"):
        file_system, path = hadoop_path(spark, f"{root}/{marker}")
        file_system.create(path).close()
    if statement == "TRUNCATE":
        ddl.truncate_table("kp")
        expected = {"d=zero/_SUCCESS"}  # Spark's TRUNCATE empties each partition a record names, markers and all
    else:
        ddl.insert_overwrite("kp", as_select="SELECT v + 100, d FROM kp WHERE d = 'd0'", overwrite_mode="dynamic")
        expected = {"d=d1/_SUCCESS", "d=zero/_SUCCESS"}
    now = str(spark.sql("DESCRIBE TABLE EXTENDED kp").where("col_name = 'Location'").first()[1]).rstrip("/")
    assert {marker for marker in ("d=d1/_SUCCESS", "d=zero/_SUCCESS")
            if hadoop_path(spark, f"{now}/{marker}")[0].exists(hadoop_path(spark, f"{now}/{marker}")[1])} == expected
    spark.sql("MSCK REPAIR TABLE kp")
    assert "d=zero" in [row[0] for row in spark.sql("SHOW PARTITIONS kp").collect()]


def test_a_truncate_of_some_partitions_on_a_store_copies_the_others_files_and_keeps_every_record(ddl, clean_spark):
    spark, calls = clean_spark, StoreCalls(clean_spark)
    spark.sql("ALTER TABLE kp ADD PARTITION (d='empty')")
    kept = {spec: partition_files(spark, spec) for spec in ("d='d1'", "d='d2'", "d='d3'")}
    before = rows(spark)
    calls.reset()
    result = ddl.truncate_table("kp", partition={"d": "d0"})
    assert result.path == "empty"
    assert {r.kind for r in calls.renames()} <= {"staging"}, calls.renames()
    assert rows(spark) == [(v, d) for v, d in before if d != "d0"]
    assert {spec: partition_files(spark, spec) for spec in kept} == kept
    assert partition_files(spark, "d='d0'") == {}
    assert sorted(row[0] for row in spark.sql("SHOW PARTITIONS kp").collect()) == [
        "d=d0", "d=d1", "d=d2", "d=d3", "d=empty"]
