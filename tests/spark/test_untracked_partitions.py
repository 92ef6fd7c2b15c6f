"""A writer session that does not manage file source partitions (``spark.sql.hive.manageFilesourcePartitions``
false) writing a partitioned data source table whose partitions are metastore records: Spark's own INSERT OVERWRITE
and TRUNCATE then change the files only, and leave the records as they were (no record for a value written first,
the record of a partition emptied kept). Each statement through the log on such a session must leave what Spark's
leaves: the same rows for a reader that manages partitions (the records) and for one that does not (the files),
the same partitions listed, and a table the next statement (on a default session) writes as Spark's would. Before,
the log registered the partitions the job wrote, and TRUNCATE failed on its work table's ADD PARTITION."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL, NotAtomicError
from tests.spark.sweep_support import assert_clean_log

pytestmark = pytest.mark.spark

MANAGE = "spark.sql.hive.manageFilesourcePartitions"
MODE = "spark.sql.sources.partitionOverwriteMode"
NEW_ROWS = "SELECT * FROM VALUES (100, 'a'), (101, 'new') AS t(id, p)"

STATEMENTS = {  # the statement on {t}, the overwrite mode it runs in
    "dynamic overwrite": (f"INSERT OVERWRITE TABLE {{t}} {NEW_ROWS}", "dynamic"),
    "static overwrite of the whole table": (f"INSERT OVERWRITE TABLE {{t}} {NEW_ROWS}", "static"),
    "static overwrite of a new partition": ("INSERT OVERWRITE TABLE {t} PARTITION (p = 'new') SELECT 5", "static"),
    "static overwrite of a partition it has": ("INSERT OVERWRITE TABLE {t} PARTITION (p = 'a') SELECT 5", "static"),
    "TRUNCATE": ("TRUNCATE TABLE {t}", "static"),
    "INSERT INTO": (f"INSERT INTO {{t}} {NEW_ROWS}", "static"),
}


@contextmanager
def session_setting(spark: Any, key: str, value: str) -> Iterator[None]:
    spark.conf.set(key, value)
    try:
        yield
    finally:
        spark.conf.unset(key)


def read(spark: Any, table: str, *, manages: bool) -> tuple[list[tuple[Any, ...]], list[str] | str]:
    """The rows of ``table`` by partition and its listed partitions, as a reader that manages partitions or not
    reads them (the latter cannot list them: Spark's refusal, by name)."""
    with session_setting(spark, MANAGE, str(manages).lower()):
        spark.catalog.refreshTable(table)
        rows = sorted(tuple(row) for row in spark.sql(f"SELECT p, count(*), sum(id) FROM {table} GROUP BY p").collect())
        try:
            partitions: list[str] | str = sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {table}").collect())
        except Exception as error:  # noqa: BLE001 - each side's refusal is compared by its class
            partitions = type(error).__name__
    return rows, partitions


def partition_statistics(spark: Any, table: str) -> list[str]:
    """What DESCRIBE says of the statistics of ``table``'s partition ``p = 'a'`` (its record's counts, as they were
    where the statement left the record as it was)."""
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table} PARTITION (p = 'a')").collect()
    return [str(row[1]) for row in rows if row[0] == "Partition Statistics"]


def make(spark: Any, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (id INT, p STRING) USING parquet PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c')")


def on_untracked_session(spark: Any, mode: str, run: Callable[[], None]) -> None:
    with session_setting(spark, MANAGE, "false"), session_setting(spark, MODE, mode):
        run()


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_write_from_a_session_that_does_not_manage_partitions_leaves_what_plain_sparks_leaves(
        clean_spark: Any, tmp_path: Path, statement: str) -> None:
    spark = clean_spark
    text, mode = STATEMENTS[statement]
    make(spark, "ours")
    make(spark, "plain")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        on_untracked_session(spark, mode, lambda: ddl.sql(text.format(t="ours")))
        on_untracked_session(spark, mode, lambda: spark.sql(text.format(t="plain")))
        for manages in (True, False):
            assert read(spark, "ours", manages=manages) == read(spark, "plain", manages=manages), manages
        assert partition_statistics(spark, "ours") == partition_statistics(spark, "plain")
        # the next statement, on a default session, keeps the partitions it does not write, as Spark's does, those
        # without a record too (tests/spark/test_unregistered_partitions.py)
        with session_setting(spark, MODE, "dynamic"):
            ddl.sql("INSERT OVERWRITE TABLE ours SELECT 7, 'b'")
            spark.sql("INSERT OVERWRITE TABLE plain SELECT 7, 'b'")
        for manages in (True, False):
            assert read(spark, "ours", manages=manages) == read(spark, "plain", manages=manages), manages
        assert_clean_log(ddl)


def test_a_partition_away_from_its_path_is_refused_with_nothing_changed(clean_spark: Any, tmp_path: Path) -> None:
    """A record the new version cannot mirror (a partition at another directory than Spark writes its values to,
    where Spark's statement writes the rows and leaves the record reading the old ones): refused as not atomic
    before anything is logged, the table as it was."""
    spark = clean_spark
    make(spark, "ours")
    elsewhere = tmp_path / "elsewhere"
    spark.sql(f"ALTER TABLE ours PARTITION (p = 'b') SET LOCATION '{elsewhere.as_uri()}'")
    before = read(spark, "ours", manages=True), read(spark, "ours", manages=False)
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        with pytest.raises(NotAtomicError, match="does not manage file source partitions"):
            on_untracked_session(spark, "dynamic", lambda: ddl.sql(f"INSERT OVERWRITE TABLE ours {NEW_ROWS}"))
        assert (read(spark, "ours", manages=True), read(spark, "ours", manages=False)) == before
        assert_clean_log(ddl)


def test_truncate_on_a_default_session_keeps_the_records_as_they_were_as_sparks_does(
        clean_spark: Any, tmp_path: Path) -> None:
    """TRUNCATE of a partitioned table, on any session, takes the same way (no work table): each record kept as it
    was, at the same path under the new directory, made empty; its counts are Spark's (as they were)."""
    spark = clean_spark
    make(spark, "ours")
    make(spark, "plain")
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        ddl.sql("TRUNCATE TABLE ours")
        spark.sql("TRUNCATE TABLE plain")
        for manages in (True, False):
            assert read(spark, "ours", manages=manages) == read(spark, "plain", manages=manages), manages
        assert partition_statistics(spark, "ours") == partition_statistics(spark, "plain")
        assert_clean_log(ddl)
