"""An INSERT OVERWRITE of a partitioned table installs its new version in two metastore calls (its partitions
switched, then its definition) where a replace that changes how the table is read takes three (the definition first
reads its directory while the partitions switch): ``read_alike`` tells the two apart from the tables' records. The
crash sweeps of both forms are in tests/spark/test_statement_sweeps.py, the readers during them in tests/readers."""

from __future__ import annotations

from typing import Any

import pytest

from storage.catalogs.names import TableName
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.hms.partition_provider import track_partitions
from storage.catalogs.spark.hms.swap import read_alike

pytestmark = pytest.mark.spark


def record(spark: Any, name: str) -> HiveTable:
    client = spark_catalog(spark).backend.metastore
    assert client is not None
    found = client.get(TableName("default", name))
    assert found is not None
    return found


def make(spark: Any, name: str, columns: str, partitioned_by: str | None = "p", clause: str = "") -> HiveTable:
    by = f" PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
    spark.sql(f"CREATE TABLE `default`.`{name}` ({columns}) USING parquet{by} {clause}")
    return record(spark, name)


def test_two_tables_of_one_definition_at_two_directories_are_read_alike(clean_spark: Any) -> None:
    first = make(clean_spark, "a1", "v INT, p INT", clause="TBLPROPERTIES ('k' = '1')")
    second = make(clean_spark, "a2", "v INT, p INT", clause="TBLPROPERTIES ('k' = '2', 'spark_ddl_log.tag' = 't')")
    assert first.location != second.location
    assert read_alike(first, second) and read_alike(second, first)


@pytest.mark.parametrize(("columns", "partitioned_by", "clause"), [
    ("v BIGINT, p INT", "p", ""),
    ("v INT, w INT, p INT", "p", ""),
    ("v INT, p INT", "v", ""),
    ("v INT, p STRING", "p", ""),
    ("v INT, p INT", "p", "CLUSTERED BY (v) INTO 4 BUCKETS"),
])
def test_a_table_read_otherwise_is_not(clean_spark: Any, columns: str, partitioned_by: str, clause: str) -> None:
    current = make(clean_spark, "b1", "v INT, p INT")
    assert not read_alike(current, make(clean_spark, "b2", columns, partitioned_by, clause))


def test_tables_whose_partitions_are_their_directories_or_none_are_not(clean_spark: Any) -> None:
    unpartitioned = make(clean_spark, "c1", "v INT, p INT", partitioned_by=None)
    assert not read_alike(unpartitioned, unpartitioned)
    current = make(clean_spark, "c2", "v INT, p INT")
    assert not read_alike(current, current.discovering()) and not read_alike(current.discovering(), current)
    client = spark_catalog(clean_spark).backend.metastore
    assert client is not None
    track_partitions(client, TableName("default", "c2"))  # tracked already: nothing changes
    assert read_alike(current, record(clean_spark, "c2"))
