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
    assert ddl.create_or_replace_table("t1", as_select="SELECT 11 AS k").path == "swap"
    ddl.rename_tables([("t4", "t5"), ("t1", "t4"), ("t5", "t1")])
    ddl.close()
    assert rows(spark, "t1") == [(4,)] and rows(spark, "t4") == [(11,)]
    assert not spark.catalog.tableExists("t5")
