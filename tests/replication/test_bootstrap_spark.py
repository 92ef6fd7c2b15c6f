"""The replica's operations on real Spark with data, source and replica in one metastore (the replica keeps the
source's database under another name): bootstrap copies definitions (partitions, comments, properties, CHAR types),
views and functions and the tables' files at one source position; check compares definitions and Spark's row
checksums; a plain Spark write on the replica is found and resync repairs it while a reader never sees a gap; a table
dropped there by hand stops the applier, named; promote makes the replica writable. Resync crashed at every catalog
instant of its copy leaves the old table or the copy, never a work table or an orphan directory. (The same logic is
swept at every crash point on the in-memory catalog; a real SIGKILL of a bootstrap: test_bootstrap_kill.py.)"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from ddl_log import ApplyFailedError, AtomicDDL
from tests import crashkit
from tests.definitions import partitions, rows, table_definition
from tests.spark.sweep_support import catalog_points, user_tables

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("replication")]

SOURCE = [
    "CREATE DATABASE src COMMENT 'the source' WITH DBPROPERTIES ('team' = 'blue')",
    "CREATE TABLE src.t USING parquet COMMENT 'random rows' TBLPROPERTIES ('k' = 'v') "
    "AS SELECT id, rand() AS x FROM range(200)",
    "CREATE TABLE src.p USING parquet PARTITIONED BY (k) AS SELECT id, CAST(id % 3 AS STRING) AS k FROM range(30)",
    "CREATE TABLE src.c (a INT COMMENT 'the a', b CHAR(3)) USING parquet",
    "CREATE VIEW src.v AS SELECT count(*) AS c FROM src.t",
    "CREATE FUNCTION src.plus_one(x INT) RETURNS INT RETURN x + 1",
]
TABLES = ["t", "p", "c"]
LONG = "DDL_LOG_REPLICATION_LONG"
SHORT = ("replica.copy.files_copied", "replace.exchange.before", "replace.exchange.after")


def same_tables(spark: Any) -> None:
    for name in TABLES:
        assert table_definition(spark, "dst", name) == table_definition(spark, "src", name), name
        assert partitions(spark, "dst", name) == partitions(spark, "src", name), name
        assert rows(spark, "dst", name) == rows(spark, "src", name), name


@pytest.fixture
def homes(clean_spark: Any, tmp_path: Path) -> tuple[AtomicDDL, AtomicDDL]:
    source = AtomicDDL(spark=clean_spark, home=str(tmp_path / "source"))
    for statement in SOURCE:
        source.sql(statement)
    replica = AtomicDDL(spark=clean_spark, home=str(tmp_path / "replica"))
    yield source, replica
    replica.close()
    source.close()


def test_a_replica_bootstrapped_checked_resynced_and_promoted_on_spark(homes, clean_spark):
    source, replica = homes
    spark = clean_spark
    report = replica.replica_bootstrap(source.home.location, databases=["src"], rewrite_db={"src": "dst"})
    assert report.position == len(SOURCE) and report.statements == 6 and report.not_copied == ()
    same_tables(spark)
    assert spark.sql("SELECT * FROM dst.v").collect()[0][0] == 200
    assert spark.sql("SELECT dst.plus_one(1)").collect()[0][0] == 2
    assert "FROM `dst`.t" in spark.sql("SHOW CREATE TABLE dst.v").collect()[0][0]  # reads the replica's table
    source.sql("INSERT OVERWRITE src.p PARTITION (k = '1') SELECT id + 100 FROM range(3)")
    source.sql("ALTER TABLE src.c SET TBLPROPERTIES ('steward' = 'etl')")
    source.sql("CREATE TABLE src.n USING parquet AS SELECT id FROM range(5)")
    assert replica.replica_of(source.home.location).apply_available().applied == 3
    assert replica.replica_check().ok  # definitions and Spark's row checksums, the new table included

    spark.sql("INSERT INTO dst.t VALUES (1000, 0.5)")  # plain Spark on the replica: not in any binlog
    difference, = replica.replica_check().differences
    assert (difference.object, difference.what) == ("dst.t", "rows") and "200:" in difference.detail
    counts: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            counts.append(spark.sql("SELECT count(*) FROM dst.t").collect()[0][0])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    replica.replica_resync("dst.t")
    stop.set()
    reader.join()
    assert counts and set(counts) <= {200, 201}  # the old table or the copy, never missing, empty or partial

    spark.sql("DROP TABLE dst.c")  # by hand
    source.sql("ALTER TABLE src.c SET TBLPROPERTIES ('steward' = 'bi')")
    with pytest.raises(ApplyFailedError, match=r"dst\.c was dropped on the replica"):
        replica.replica_of(source.home.location).apply_available()
    replica.replica_resync("dst.c")
    assert replica.replica_of(source.home.location).apply_available().skipped == 1
    assert table_definition(spark, "dst", "c") == table_definition(spark, "src", "c")

    assert replica.replica_promote().position == len(SOURCE) + 4
    replica.sql("CREATE TABLE dst.mine USING parquet AS SELECT 1 AS one")  # a source now
    assert "mine" in user_tables(spark, "dst")


def test_a_resync_crashed_at_any_catalog_instant_leaves_the_old_table_or_the_copy(homes, clean_spark):
    source, replica = homes
    spark = clean_spark
    replica.replica_bootstrap(source.home.location, databases=["src"], rewrite_db={"src": "dst"})
    replica.close()
    source.sql("INSERT OVERWRITE src.p PARTITION (k = '2') SELECT id + 200 FROM range(4)")  # not applied yet
    wanted = rows(spark, "src", "p")

    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=replica.home.location)

    def resync(ddl: AtomicDDL) -> Any:
        return ddl.replica_resync("dst.p")

    traced = crashkit.trace(opener, resync)
    assert ("replica.copy.files_copied", 1) in traced
    points = [*catalog_points(traced), ("replica.copy.files_copied", 1)]
    if not os.environ.get(LONG):  # make test: the instants around the copy and the swap; make replication: all
        points = [point for point in points if point[0] in SHORT]
    assert points
    for point, nth in points:
        spark.sql("INSERT INTO dst.p VALUES (999, '1')")  # by hand again: each resync has work to do
        before = rows(spark, "dst", "p")
        assert crashkit.crash_at(opener, resync, point, nth), (point, nth)
        ddl = opener()
        assert ddl.active_chains() == [], (point, nth)
        assert rows(spark, "dst", "p") in (before, wanted), (point, nth)
        assert user_tables(spark, "dst") == {"t", "p", "c", "v"}, (point, nth)  # no work table left
        resync(ddl)
        assert rows(spark, "dst", "p") == wanted, (point, nth)
        ddl.close()
    ddl = opener()
    assert ddl.replica_of(source.home.location).apply_available().skipped == 1  # the overwrite: in the copy
    ddl.close()
