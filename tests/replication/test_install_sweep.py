"""A replica's install of a source version as files (``InstallVersion``: a TMP filled by copying the version's data
files, then the swap) crashed in-process at every point it passes, on real Spark: after recovery the table is the old
one or exactly the version's rows, no TMP or orphan directory is left, the event is binlogged once or not at all, and
a second recovery changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL
from ddl_log.engine.schema import table_spec
from ddl_log.replication.install import InstallVersion
from storage.catalogs.names import TableName
from tests import crashkit
from tests.spark.sweep_support import crash_then_recover, restore, snapshot, spark_worthy, table_state

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("replication")]

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
