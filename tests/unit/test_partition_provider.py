"""Where Spark finds a table's partitions, as the metastore record says
(storage/catalogs/spark/hms/partition_provider.py), and how a replica names the files it copies in place
(storage/catalogs/spark/fs/file_mover.py): records built by hand in Hive 2.3's Thrift JSON, no Spark."""

from __future__ import annotations

from typing import Any

import pytest

from storage.catalogs.spark.fs.file_mover import job_copy_name, visible_while_written
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.hms.partition_provider import new_partition, partitions_in_files, with_provider_of

LOCATION = "file:/warehouse/ddllog_7_ab12cd_tmp"


def string_map(values: dict[str, str]) -> dict[str, Any]:
    return {"map": ["str", "str", len(values), values]}


def table(parameters: dict[str, str], *, partitioned: bool = True) -> HiveTable:
    """A ``Table`` record of ``default.ddllog_7_ab12cd_tmp`` (one data column, partitioned by ``day``)."""
    keys = [{"1": {"str": "day"}, "2": {"str": "string"}}] if partitioned else []
    storage = {"rec": {"1": {"lst": ["rec", 1, {"1": {"str": "v"}, "2": {"str": "bigint"}}]},
                       "2": {"str": LOCATION},
                       "7": {"rec": {"3": string_map({"serialization.format": "1", "path": LOCATION})}}}}
    return HiveTable.of_fields({"1": {"str": "ddllog_7_ab12cd_tmp"}, "2": {"str": "default"}, "7": storage,
                                "8": {"lst": ["rec", len(keys), *keys]}, "9": string_map(parameters),
                                "12": {"str": "MANAGED_TABLE"}})


DATA_SOURCE = {"spark.sql.sources.provider": "parquet", "spark.sql.partitionProvider": "catalog"}


@pytest.mark.parametrize(("parameters", "partitioned", "expected"), [
    (DATA_SOURCE, True, False),
    ({"spark.sql.sources.provider": "parquet"}, True, True),
    ({"spark.sql.sources.provider": "parquet", "spark.sql.partitionProvider": "filesystem"}, True, True),
    ({"spark.sql.sources.provider": "parquet"}, False, False),
    ({"spark.sql.sources.provider": "hive"}, True, False),
    ({}, True, False),
], ids=["tracked data source", "no provider", "filesystem", "unpartitioned", "hive serde", "hive serde of old"])
def test_only_a_partitioned_data_source_table_not_tracked_in_the_catalog_has_its_partitions_in_its_files(
        parameters: dict[str, str], partitioned: bool, expected: bool) -> None:
    assert partitions_in_files(table(parameters, partitioned=partitioned)) is expected


def test_a_work_table_installed_on_orig_takes_origs_partition_provider_back() -> None:
    work = table(DATA_SOURCE).discovering()
    assert partitions_in_files(work)
    installed = with_provider_of(work, table(DATA_SOURCE))
    assert not partitions_in_files(installed)
    assert installed.parameters["spark.sql.partitionProvider"] == "catalog"
    untracked_orig = table({"spark.sql.sources.provider": "parquet"})
    assert with_provider_of(work, untracked_orig) is work  # an ORIG of Spark 2.0's kind stays as it was


def test_a_new_partition_record_is_the_tables_storage_at_its_directory_with_no_statistics_to_keep() -> None:
    partition = new_partition(table(DATA_SOURCE), ["2026-12-01"], f"{LOCATION}/day=2026-12-01")
    assert partition.values == ("2026-12-01",)
    assert partition.location == f"{LOCATION}/day=2026-12-01"
    assert partition.path_property == LOCATION  # as Spark's ADD PARTITION copies its table's
    assert (partition.fields["2"], partition.fields["3"]) == ({"str": "default"}, {"str": "ddllog_7_ab12cd_tmp"})
    assert partition.fields["7"] == string_map({})  # the metastore counts the files when it is registered
    assert table(DATA_SOURCE).location == LOCATION  # the table's record is not edited


def test_a_replicas_copy_carries_the_job_id_first_and_the_sources_name_whole() -> None:
    name = "part-00003-4f1c2a9e-7b1d-4c3e-9f00-1a2b3c4d5e6f_00002.c000.snappy.parquet"
    copied = job_copy_name(name, "0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a")
    assert copied == f"0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a-{name}"
    assert not copied.startswith(("_", "."))  # a data file readers list


@pytest.mark.parametrize(("location", "expected"), [
    ("hdfs://nn:8020/warehouse/t", True), ("viewfs://cluster/warehouse/t", True),
    ("s3a://bucket/warehouse/t", False), ("gs://bucket/t", False), ("s3sim://bucket/warehouse/t", False),
    ("/warehouse/t", True),
], ids=["hdfs", "viewfs", "s3a", "gs", "the tests' store", "the default file system"])
def test_a_file_is_copied_under_a_hidden_name_first_only_where_readers_see_it_part_written(
        location: str, expected: bool) -> None:
    assert visible_while_written(location) is expected
