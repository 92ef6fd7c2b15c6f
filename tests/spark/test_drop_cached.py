"""A DROP forgets the dropped table's cached data, as Spark's DROP TABLE does, and only that table's: the statement
asks whether a table is cached (a resolution of the table, about 15 ms) only where the session caches anything."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.spark.jvm import caches_data
from storage.catalogs.spark.profile import jvm_of

pytestmark = pytest.mark.spark


def caches(spark: Any) -> bool:
    jvm = jvm_of(spark)
    assert jvm is not None
    return caches_data(jvm)


def test_a_drop_uncaches_the_dropped_table_and_leaves_the_others_cached(clean_spark: Any, tmp_path: Any) -> None:
    spark = clean_spark
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("CREATE TABLE kept USING parquet AS SELECT 1 AS a")
        ddl.sql("CREATE TABLE gone USING parquet AS SELECT 2 AS a")
        spark.sql("CACHE TABLE kept")
        spark.sql("CACHE TABLE gone")
        ddl.sql("DROP TABLE gone")
        assert spark.catalog.isCached("kept")
        ddl.sql("UNDROP TABLE gone")
        assert not spark.catalog.isCached("gone")
        ddl.sql("DROP TABLE kept")
        assert not caches(spark)


def test_a_drop_with_nothing_cached_caches_nothing(clean_spark: Any, tmp_path: Any) -> None:
    spark = clean_spark
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("CREATE TABLE t USING parquet AS SELECT 1 AS a")
        assert not caches(spark)
        ddl.sql("DROP TABLE t")
        assert not caches(spark)
        assert spark.sql("SHOW TABLES").collect() == []
