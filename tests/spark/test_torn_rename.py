"""A kill inside Hive's rename of TMP to ORIG, after the directory move and before the metastore update (what the
soak found): recovery must leave no table and no orphan directory, for a create and for a replace."""

from __future__ import annotations

import shutil

import pytest

from ddl_log import AtomicDDL
from tests import crashkit
from tests.spark.sweep_support import table_state, user_tables, warehouse_dirs

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("old_table", [False, True], ids=["create", "replace"])
def test_a_rename_torn_between_directory_move_and_metastore_is_undone_without_orphans(
        spark, warehouse, tmp_path, clean_spark, old_table):
    if old_table:
        spark.sql("CREATE TABLE t USING parquet AS SELECT 1 AS a")
    old = table_state(spark, "t")

    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=tmp_path / "home")

    # new partition columns: the metastore cannot swap the definition, so the replace renames (a create always does)
    statement = lambda d: d.create_or_replace_table(  # noqa: E731
        "t", as_select="SELECT id AS n, id % 2 AS p FROM range(10)", partitioned_by=["p"])
    assert crashkit.crash_at(opener, statement, "replace.install.before", 1)
    tmp = [name for name in user_tables(spark) if name.startswith("ddllog_") and name.endswith("_tmp")]
    assert len(tmp) == 1
    # what Hive does first when it renames a managed table: move the directory; then the process dies
    shutil.move(str(warehouse / tmp[0]), str(warehouse / "t"))
    ddl = opener()
    assert ddl.active_chains() == []
    ddl.close()
    assert table_state(spark, "t") == old
    assert user_tables(spark) == ({"t"} if old_table else set())
    assert warehouse_dirs(warehouse) == ({"t"} if old_table else set())
