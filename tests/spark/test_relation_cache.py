"""After a statement installs a new version, this session's cache of table relations holds the new version's
relation, built as Spark builds it, never an empty entry: a reader thread that resolved the old definition before
the install finds the old or the new relation and never builds (and stores) the old one after it. The readers during
every statement kind are in tests/readers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.names import TableName
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.relation_cache import _built, hold_installed

pytestmark = pytest.mark.spark

TABLES = {
    "plain parquet": "CREATE TABLE default.{t} (v INT, s STRING) USING parquet",
    "orc with options": "CREATE TABLE default.{t} (v INT) USING orc OPTIONS ('compression' = 'zlib', 'k' = 'V')",
    "csv with a header": "CREATE TABLE default.{t} (v INT, s STRING) USING csv OPTIONS (header 'true', sep ';')",
    "json": "CREATE TABLE default.{t} (v INT, m MAP<STRING, INT>) USING json",
    "partitioned": "CREATE TABLE default.{t} (v INT, p INT, q STRING) USING parquet PARTITIONED BY (p, q)",
    "bucketed": "CREATE TABLE default.{t} (v INT, s STRING) USING parquet CLUSTERED BY (v) SORTED BY (s) "
                "INTO 4 BUCKETS",
    "char and varchar": "CREATE TABLE default.{t} (c CHAR(3), w VARCHAR(5), v INT) USING parquet",
    "external": "CREATE TABLE default.{t} (v INT) USING parquet LOCATION '{location}'",
    "commented, with properties": "CREATE TABLE default.{t} (v INT COMMENT 'x', s STRING) USING parquet "
                                  "COMMENT 'c' TBLPROPERTIES ('a' = 'b')",
    "collated": "CREATE TABLE default.{t} (s STRING COLLATE UTF8_LCASE) USING parquet",
}


def jcatalog(spark: Any) -> Any:
    return spark._jsparkSession.sessionState().catalog()


def cache_key(spark: Any, name: str) -> Any:
    return spark._jvm.org.apache.spark.sql.catalyst.QualifiedTableName.apply("spark_catalog", "default", name)


def cached(spark: Any, name: str) -> Any:
    return jcatalog(spark).getCachedTable(cache_key(spark, name))


def cached_location(spark: Any, name: str) -> str | None:
    held = cached(spark, name)
    return None if held is None else str(held.catalogTable().get().location().getPath()).rstrip("/")


def table_location(spark: Any, name: str) -> str:
    client = spark_catalog(spark).backend.metastore
    assert client is not None
    found = client.get(TableName("default", name))
    assert found is not None
    return found.location.removeprefix("file:").rstrip("/")


def shape(relation: Any) -> dict[str, Any]:
    """What a cached relation is made of, comparable across two builds (its attributes' ids aside)."""
    fs = relation.relation()
    return {
        "table": relation.catalogTable().get().toString(),
        "output": relation.schema().json(),
        "options": fs.options().toString(),
        "data schema": fs.dataSchema().json(),
        "partition schema": fs.partitionSchema().json(),
        "bucketing": fs.bucketSpec().toString(),
        "format": fs.fileFormat().getClass().getName(),
        "index": fs.location().getClass().getName(),
        "roots": fs.location().rootPaths().toString(),
        "size": fs.sizeInBytes(),
    }


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_the_relation_built_is_the_one_spark_builds(clean_spark: Any, tmp_path: Path, kind: str) -> None:
    name = "rc_" + kind.replace(" ", "_").replace(",", "")
    clean_spark.sql(TABLES[kind].format(t=name, location=(tmp_path / "ext").as_uri()))
    clean_spark.table(f"default.{name}").collect()
    spark_built = cached(clean_spark, name)
    assert spark_built is not None
    engine = spark_catalog(clean_spark).backend.engine
    table = jcatalog(clean_spark).getTableMetadata(
        clean_spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier(name, clean_spark._jvm.scala.Some("default")))
    ours = _built(engine.jvm, table)
    assert shape(ours) == shape(spark_built)


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Path) -> Iterator[AtomicDDL]:
    atomic = AtomicDDL(spark=clean_spark, home=tmp_path)
    yield atomic
    clean_spark.catalog.clearCache()
    atomic.close()


def values(spark: Any, name: str) -> list[int]:
    return [row.v for row in spark.table(f"default.{name}").collect()]


def hold(spark: Any, name: str) -> bool:
    return hold_installed(spark_catalog(spark).backend.engine, TableName("default", name))


@pytest.mark.parametrize("statement", [
    "CREATE OR REPLACE TABLE default.r1 USING parquet AS SELECT 2 AS v",
    "CREATE OR REPLACE TABLE default.r1 (v INT) USING parquet",
    "INSERT OVERWRITE default.r1 SELECT 2",
    "TRUNCATE TABLE default.r1",
    "ALTER TABLE default.r1 ALTER COLUMN v TYPE BIGINT",
])
def test_a_replace_leaves_the_cache_holding_the_new_version(clean_spark: Any, ddl: AtomicDDL, statement: str) -> None:
    ddl.sql("CREATE TABLE default.r1 USING parquet AS SELECT 1 AS v")
    assert values(clean_spark, "r1") == [1]  # the old version's relation cached
    old = cached_location(clean_spark, "r1")
    ddl.sql(statement)
    new = table_location(clean_spark, "r1")
    assert new != old
    assert cached_location(clean_spark, "r1") == new
    assert values(clean_spark, "r1") == ([] if "(v INT)" in statement or "TRUNCATE" in statement else
                                         [2] if "2" in statement else [1])


def test_the_old_relation_is_replaced_not_emptied(clean_spark: Any, ddl: AtomicDDL) -> None:
    """The entry goes from the old relation to the new one: a reader never finds it empty after the install."""
    ddl.sql("CREATE TABLE default.r2 USING parquet AS SELECT 1 AS v")
    values(clean_spark, "r2")
    old_relation = cached(clean_spark, "r2")
    ddl.sql("CREATE OR REPLACE TABLE default.r2 USING parquet AS SELECT 2 AS v")
    jcatalog(clean_spark).cacheTable(cache_key(clean_spark, "r2"), old_relation)  # as a reader's late put
    assert values(clean_spark, "r2") == [1]
    assert hold(clean_spark, "r2")
    assert values(clean_spark, "r2") == [2]


def test_a_session_that_caches_data_is_refreshed_the_spark_way(clean_spark: Any, ddl: AtomicDDL) -> None:
    ddl.sql("CREATE TABLE default.r3 USING parquet AS SELECT 1 AS v")
    clean_spark.catalog.cacheTable("default.r3")
    assert not hold(clean_spark, "r3")
    ddl.sql("CREATE OR REPLACE TABLE default.r3 USING parquet AS SELECT 2 AS v")
    assert values(clean_spark, "r3") == [2]


def test_a_hive_serde_table_is_left_to_its_own_check(clean_spark: Any, ddl: AtomicDDL) -> None:
    ddl.sql("CREATE TABLE default.r4 STORED AS PARQUET AS SELECT 1 AS v")
    values(clean_spark, "r4")
    ddl.sql("CREATE OR REPLACE TABLE default.r4 STORED AS PARQUET AS SELECT 2 AS v")
    assert values(clean_spark, "r4") == [2]
