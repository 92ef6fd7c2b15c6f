"""A replica's install of a source version as files (``InstallVersion``: a TMP filled by copying the version's data
files, then the swap) crashed in-process at every point it passes, on real Spark: after recovery the table is the old
one or exactly the version's rows, no TMP or orphan directory is left, the event is binlogged once or not at all, and
a second recovery changes nothing."""

from __future__ import annotations

import os
from typing import Any

import pytest

from ddl_log import AtomicDDL
from ddl_log.engine.schema import table_spec
from ddl_log.replication.install import InstallVersion
from storage.catalogs.names import TableName
from tests import crashkit
from tests.spark.sweep_support import crash_then_recover, restore, snapshot, spark_worthy, table_state

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("replication")]
LONG = os.environ.get("DDL_LOG_REPLICATION_LONG") == "1"

OLD = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, concat('x', id % 3) AS b FROM range(50)"
VERSION = "CREATE TABLE version USING parquet AS SELECT id AS n, concat('v', rand()) AS w FROM range(30)"


def test_an_install_of_a_version_crashed_anywhere_leaves_the_old_table_or_the_versions_rows(spark, warehouse,
                                                                                             tmp_path, clean_spark):
    setup = [OLD, VERSION]
    for sql in setup:
        spark.sql(sql)
    files_from = str(warehouse / "version")
    statement = InstallVersion(name=TableName.of("t"), spec=table_spec(schema="n BIGINT, w STRING", using="parquet"),
                               files_from=files_from, text="/* ddl-log origin file:/s seq 2 */ CREATE TABLE t AS ...")

    def world(label: str) -> Any:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    def install(ddl: AtomicDDL) -> Any:
        return ddl.run(statement)

    before = snapshot(spark, warehouse)
    trace = crashkit.trace(world("trace"), install)
    after = snapshot(spark, warehouse)
    old, new = before.rows("t"), after.rows("t")
    assert new == before.rows("version") != old  # the version's rows, rand() and all
    restore(spark, warehouse, setup, before, after)
    outcomes = []
    for index, (point, nth) in enumerate(spark_worthy(trace)):
        opener = world(f"case{index}")
        events = crash_then_recover(opener, install, point, nth)
        state = snapshot(spark, warehouse)
        assert len(events) <= 1 and state.rows("t") == (new if events else old), (point, nth)
        assert state.names() == {"t", "version"}, (point, nth)
        assert state.dirs == state.table_dirs({"t", "version"}), (point, nth)
        second = opener()
        assert second.last_recovery.nothing_to_do
        second.close()
        assert table_state(spark, "t") == state.rows("t")
        outcomes.append("new" if events else "old")
        restore(spark, warehouse, setup, before, state)
    assert outcomes == sorted(outcomes, key=lambda o: o == "new") and "old" in outcomes and "new" in outcomes


def test_a_replicas_insert_of_a_sources_files_crashed_anywhere_adds_all_of_them_or_none(spark, warehouse, tmp_path,
                                                                                         clean_spark):
    """The replica's INSERT INTO of a source event's files (copied into the table itself under names carrying its
    job's id, nothing renamed after the commit point) at the instants that differ on Spark: nothing copied yet, one
    file copied of several, all copied and not committed, committed (``make replication``: every instant; every
    instant of INSERT INTO is swept in tests/spark/test_insert_into.py)."""
    from chains.binlog import BinlogEvent
    from chains.version_records import AddedFile, AddedFiles
    from ddl_log.replication.added import insert_statement

    setup = ["CREATE TABLE p USING parquet PARTITIONED BY (k) AS SELECT CAST(0 AS BIGINT) AS v, 'a' AS k",
             "CREATE TABLE src USING parquet PARTITIONED BY (k) AS SELECT id AS v, CAST(id % 2 AS STRING) AS k "
             "FROM range(10)"]
    for sql in setup:
        spark.sql(sql)
    src = warehouse / "src"
    files = tuple(AddedFile(f"file:{path}", (("k", path.parent.name.split("=")[1]),))
                  for path in sorted(src.glob("k=*/part-*")))
    added = AddedFiles(table="default.p", location=f"file:{src}", identity=None, files=files,
                       partitions=((("k", "0"),), (("k", "1"),), (("k", "e"),)),
                       columns=(("v", "bigint"), ("k", "string")), partitioned_by=("k",))
    event = BinlogEvent(3, 9, "INSERT INTO p SELECT ...", added=added)

    def insert(ddl: AtomicDDL) -> Any:
        return ddl.run(insert_statement(event, "/* ddl-log origin file:/s seq 3 */ INSERT INTO p ...", lambda: []))

    def world(label: str) -> Any:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0)

    before = snapshot(spark, warehouse)
    trace = crashkit.trace(world("trace"), insert)
    after = snapshot(spark, warehouse)
    old, new = before.rows("p"), after.rows("p")
    assert new[1] == 11 and spark.sql("SHOW PARTITIONS p").count() == 4  # every file once, the empty one too
    restore(spark, warehouse, setup, before, after)
    sample = [("insert_in_place.fill.before", 1), ("insert_in_place.copy.between", 1),
              ("insert_in_place.commit.before", 1), ("commit.after_binlog", 1)]
    assert not [p for p, _ in trace if p.startswith("insert.")], "written aside, not in place"
    chosen = [p for p in spark_worthy(trace) if LONG or p in sample]
    assert set(sample) <= set(chosen)
    outcomes = []
    for index, (point, nth) in enumerate(chosen):
        events = crash_then_recover(world(f"case{index}"), insert, point, nth)
        state = snapshot(spark, warehouse)
        assert len(events) <= 1 and state.rows("p") == (new if events else old), (point, nth)
        assert state.names() == {"p", "src"} and state.dirs == state.table_dirs({"p", "src"}), (point, nth)
        assert not [path for path in (warehouse / "p").rglob("*") if path.name.endswith(".copying")], (point, nth)
        outcomes.append("new" if events else "old")
        restore(spark, warehouse, setup, before, state)
    assert outcomes == sorted(outcomes, key=lambda o: o == "new") and "old" in outcomes and "new" in outcomes


def test_a_replicas_copy_of_a_partitioned_version_crashed_anywhere_has_all_its_partitions_or_the_old_table(
        spark, warehouse, tmp_path, clean_spark):
    """A partitioned version is installed by reading its files (Spark writes only the partitions rows go to); its
    empty partitions (``ADD PARTITION``), which the event lists, are registered in the same statement's TMP (found
    by the Spark replication soak, seed 9031: the replica lost them). Crashed at the instants that differ: nothing
    filled, TMP filled with rows and partitions, committed (``make replication``: every point of the statement)."""
    from chains.binlog import BinlogEvent
    from chains.version_records import VersionRecord
    from ddl_log.replication.copy import copy_statement

    setup = ["CREATE TABLE p USING parquet PARTITIONED BY (k) AS SELECT CAST(0 AS BIGINT) AS v, 'old' AS k",
             "CREATE TABLE src USING parquet PARTITIONED BY (k) AS SELECT id AS v, CAST(id % 2 AS STRING) AS k "
             "FROM range(10)"]
    for sql in [*setup, "ALTER TABLE src ADD PARTITION (k = 'e6')", "ALTER TABLE src ADD PARTITION (k = 'a b/c')"]:
        spark.sql(sql)  # src is only read: never remade
    src = warehouse / "src"
    listed = tuple(sorted(str(path.relative_to(src)) for path in src.glob("k=*/part-*")))
    version = VersionRecord(table="`default`.`p`", location=f"file:{src}", columns=(
        ("v", "bigint", None), ("k", "string", None)), partitioned_by=("k",), files=listed,
        partitions=((("k", "0"),), (("k", "1"),), (("k", "e6"),), (("k", "a b/c"),)))
    event = BinlogEvent(4, 9, "INSERT OVERWRITE p ...", ("default.p",), 1.0, version=version)

    def install(ddl: AtomicDDL) -> Any:
        return ddl.run(copy_statement(spark, event, "/* ddl-log origin file:/s seq 4 */ INSERT OVERWRITE p ...",
                                      lambda: []))

    def world(label: str) -> Any:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0, grace_seconds=0)

    before = snapshot(spark, warehouse)
    trace = crashkit.trace(world("trace"), install)
    after = snapshot(spark, warehouse)
    old, new = before.objects[("table", "default", "p")], after.objects[("table", "default", "p")]
    assert new[4] == ["k=0", "k=1", "k=a b%2Fc", "k=e6"] and new[5] == before.rows("src")  # empty ones too
    restore(spark, warehouse, setup, before, after)
    worthy = spark_worthy(trace)
    filled = worthy.index(("replace.fill_tmp.before", 1))
    chosen = worthy if LONG else [*worthy[filled:filled + 2], ("commit.after_binlog", 1)]  # the fill: before, after
    outcomes = []
    for index, (point, nth) in enumerate(chosen):
        events = crash_then_recover(world(f"case{index}"), install, point, nth)
        state = snapshot(spark, warehouse)
        assert len(events) <= 1 and state.objects[("table", "default", "p")] == (new if events else old), (point, nth)
        assert state.names() == {"p", "src"} and state.dirs == state.table_dirs({"p", "src"}), (point, nth)
        assert not [path for path in (warehouse / "p").rglob("*") if path.name.endswith(".copying")], (point, nth)
        outcomes.append("new" if events else "old")
        restore(spark, warehouse, setup, before, state)
    assert outcomes == sorted(outcomes, key=lambda o: o == "new") and "old" in outcomes and "new" in outcomes
