"""A RENAME chain through a swapped table (found by the short soak, seed 1028270936): RENAME TABLE t4 TO t5, t1 TO t4,
t5 TO t1 where t1 lives at its former TMP directory (a CREATE OR REPLACE swapped it) and t4 at its default one."""

from __future__ import annotations

import pytest

from actions.errors import StatementFailedError
from ddl_log import AtomicDDL
from storage.errors import LeftoverFilesError


def rows(spark, name: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(name).collect())


def test_defect_a_rename_rotation_through_a_swapped_table_sees_each_name_as_it_is_now(spark, tmp_path, clean_spark):
    spark.sql("CREATE TABLE t1 USING parquet AS SELECT 1 AS k")
    spark.sql("CREATE TABLE t4 USING parquet AS SELECT 4 AS k")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    assert ddl.create_or_replace_table("t1", as_select="SELECT 11 AS k").path == "swap"
    ddl.rename_tables([("t4", "t5"), ("t1", "t4"), ("t5", "t1")])
    ddl.close()
    assert rows(spark, "t1") == [(4,)] and rows(spark, "t4") == [(11,)]
    assert not spark.catalog.tableExists("t5")


def test_defect_a_rename_onto_a_name_whose_replaced_version_waits_for_deletion_says_so_and_changes_nothing(
        spark, tmp_path, clean_spark, warehouse):
    """Found by the short soak (seed 2217307310): RENAME TABLE t3 TO t2, t5 TO t3, t2 TO t5 after a CREATE OR REPLACE
    of t5 is refused, as Spark refuses it (t5's replaced version waits at <db>/t5 for its readers' grace period and
    the metastore would move t2's directory onto it), but the error blamed "a failed or interrupted operation" and
    told to remove the directory. It now says what the directory holds and until when; nothing changed."""
    spark.sql("CREATE TABLE t2 USING parquet AS SELECT 2 AS k")
    spark.sql("CREATE TABLE t3 USING parquet AS SELECT 3 AS k")
    spark.sql("CREATE TABLE t5 USING parquet AS SELECT 5 AS k")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=3600)
    assert ddl.create_or_replace_table("t5", as_select="SELECT 55 AS k").path == "swap"
    with pytest.raises(StatementFailedError) as failed:
        ddl.rename_tables([("t3", "t2x"), ("t5", "t3"), ("t2", "t5")])
    cause = failed.value.__cause__
    assert isinstance(cause, LeftoverFilesError) and cause.name == "default.t5"
    assert "holds a replaced version of default.t5 kept for readers until" in str(failed.value)
    assert "failed or interrupted" not in str(failed.value)
    assert rows(spark, "t2") == [(2,)] and rows(spark, "t3") == [(3,)] and rows(spark, "t5") == [(55,)]
    assert not spark.catalog.tableExists("t2x") and (warehouse / "t5").is_dir()
    assert ddl.active_chains() == [] and ddl.binlog_events()[-1].statement.startswith("CREATE OR REPLACE")
    ddl.close()
