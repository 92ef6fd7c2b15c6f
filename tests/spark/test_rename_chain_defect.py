"""A RENAME chain through a swapped table (found by the short soak, seed 1028270936): RENAME TABLE t4 TO t5, t1 TO t4,
t5 TO t1 where t1 lives at its former TMP directory (a CREATE OR REPLACE swapped it) and t4 at its default one."""

from __future__ import annotations

from ddl_log import AtomicDDL


def rows(spark, name: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(name).collect())


def test_defect_a_rename_rotation_through_a_swapped_table_sees_each_name_as_it_is_now(spark, tmp_path, clean_spark):
    spark.sql("CREATE TABLE t1 USING parquet AS SELECT 1 AS k")
    spark.sql("CREATE TABLE t4 USING parquet AS SELECT 4 AS k")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    assert ddl.create_or_replace_table("t1", as_select="SELECT 11 AS k").path in ("swap", "write")
    ddl.rename_tables([("t4", "t5"), ("t1", "t4"), ("t5", "t1")])
    ddl.close()
    assert rows(spark, "t1") == [(4,)] and rows(spark, "t4") == [(11,)]
    assert not spark.catalog.tableExists("t5")


def test_defect_a_rename_onto_a_name_whose_replaced_version_waits_for_deletion_moves_the_version_aside(
        spark, tmp_path, clean_spark, warehouse):
    """Found by the short soak (seed 2217307310): RENAME TABLE t3 TO t2x, t5 TO t3, t2 TO t5 after a CREATE OR
    REPLACE of t5: t5's replaced version waits at <db>/t5 for its readers' grace period, and the metastore moves t2's
    directory (a table plain Spark made, at its default directory) onto it. First the error blamed "a failed or
    interrupted operation"; then it was refused, naming the version, where plain Spark's RENAME runs (a documented
    difference); and a replica whose copy of t2 lived at its default directory where the source's did not stopped
    on it (the Spark replication soak, seed 77). Now the version moves aside, still restorable, and the rename runs."""
    spark.sql("CREATE TABLE t2 USING parquet AS SELECT 2 AS k")
    spark.sql("CREATE TABLE t3 USING parquet AS SELECT 3 AS k")
    spark.sql("CREATE TABLE t5 USING parquet AS SELECT 5 AS k")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=3600)
    assert ddl.create_or_replace_table("t5", as_select="SELECT 55 AS k").path in ("swap", "write")
    ddl.rename_tables([("t3", "t2x"), ("t5", "t3"), ("t2", "t5")])
    assert rows(spark, "t2x") == [(3,)] and rows(spark, "t3") == [(55,)] and rows(spark, "t5") == [(2,)]
    _, kept = ddl.describe_history("t5").rows  # t5's replaced version (the CTAS's rows), moved, still listed
    assert "ddllog_" in kept.location and kept.location.rstrip("/").endswith("_kept_t5")
    assert ddl.active_chains() == [] and ddl.binlog_events()[-1].statement.startswith("RENAME")
    ddl.restore_table("t5", version=kept.version)
    assert rows(spark, "t5") == [(5,)]
    ddl.close()
