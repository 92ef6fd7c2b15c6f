"""Issue 36, findings 7 and 8, on Spark: ``--rewrite-db`` renames what Spark's own parser reads as a database's
name, as Spark resolves it, and nothing else: a CREATE TABLE keeps every clause (OPTIONS, bucketing, DEFAULT) when a
column is named like the database, and ``alias.struct_col.field`` whose alias is the database's name stays as it is.
Each failed on the code before its fix (the text thrown away; the alias rewritten, the applier stopped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("replication")]

SOURCE = [
    "CREATE DATABASE src",
    "CREATE TABLE src.a (src INT DEFAULT 7, b STRING) USING parquet OPTIONS ('compression' 'gzip') "
    "CLUSTERED BY (src) INTO 4 BUCKETS",
    "CREATE TABLE src.s (id INT, st STRUCT<f: INT>) USING parquet",
    "CREATE VIEW src.w AS SELECT src.st.f AS f FROM src.s AS src",
    "CREATE VIEW src.w2 AS SELECT src.s.id, s.st FROM src.s JOIN `src`.a ON src.s.id = a.src",
    "CREATE TABLE src.c USING parquet AS SELECT src.s.id FROM src.s",
]


def details(spark: Any, table: str) -> dict[str, str]:
    return {str(row[0]): str(row[1]) for row in spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()}


def test_findings7_and_8_rewrite_db_follows_sparks_resolution_of_names(clean_spark: Any, tmp_path: Path) -> None:
    spark = clean_spark
    try:
        with AtomicDDL(spark=spark, home=str(tmp_path / "source")) as source:
            for statement in SOURCE:
                source.sql(statement)
        with AtomicDDL(spark=spark, home=str(tmp_path / "replica")) as replica:
            applier = replica.replica_of(str(tmp_path / "source"), databases=["src"], rewrite_db={"src": "dst"})
            assert applier.apply_available().applied == len(SOURCE)
        a = details(spark, "dst.a")
        assert a["Num Buckets"] == "4" and a["Bucket Columns"] == "[`src`]", a
        assert "compression=gzip" in a.get("Storage Properties", ""), a
        spark.sql("INSERT INTO dst.a (b) VALUES ('x')")
        assert [tuple(r) for r in spark.sql("SELECT src, b FROM dst.a").collect()] == [(7, "x")]
        view = spark.sql("SHOW CREATE TABLE dst.w").collect()[0][0]
        assert "src.st.f" in view and "FROM `dst`.s AS src" in view, view
        view2 = spark.sql("SHOW CREATE TABLE dst.w2").collect()[0][0]
        assert "`dst`.s.id" in view2 and "JOIN `dst`.a" in view2, view2
        spark.sql("INSERT INTO src.s VALUES (1, named_struct('f', 5))")
        spark.sql("INSERT INTO dst.s VALUES (2, named_struct('f', 6))")
        assert [tuple(r) for r in spark.sql("SELECT f FROM dst.w").collect()] == [(6,)]  # the replica's table
    finally:
        spark.sql("DROP DATABASE IF EXISTS src CASCADE")
        spark.sql("DROP DATABASE IF EXISTS dst CASCADE")
