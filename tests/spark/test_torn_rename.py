"""A kill inside Hive's rename of TMP to ORIG, after the directory move and before the metastore update (what the
soak found): recovery must leave no table and no orphan directory, for a create and for a replace. Only a table whose
definition the catalog cannot create whole is still renamed in: a session without the metastore client (Spark
Connect; a partitioned Hive serde table was one until 2026-12-04, now made whole through its holder name), which the
test makes of a classic session by taking that answer away (``SparkVersions.definition_to_create``)."""

from __future__ import annotations

import shutil

import pytest

from ddl_log import AtomicDDL
from tests import crashkit
from tests.spark.sweep_support import table_state, user_tables, warehouse_dirs

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("old_table", [False, True], ids=["create", "replace"])
def test_a_rename_torn_between_directory_move_and_metastore_is_undone_without_orphans(
        spark, warehouse, tmp_path, clean_spark, old_table, monkeypatch):
    from storage.catalogs.spark.hms.definitions import SparkVersions

    monkeypatch.setattr(SparkVersions, "definition_to_create", lambda self, name: None)
    if old_table:
        spark.sql("CREATE TABLE t USING parquet AS SELECT 1 AS a")
    old = table_state(spark, "t")

    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=tmp_path / "home")

    # a definition not created whole: the work table is renamed in (new partition columns take the rename path)
    statement = lambda d: d.sql(  # noqa: E731
        "CREATE OR REPLACE TABLE t (n BIGINT) PARTITIONED BY (p BIGINT) STORED AS parquet")
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
