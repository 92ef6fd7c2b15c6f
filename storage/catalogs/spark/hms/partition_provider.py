"""Where Spark finds a partitioned data source table's partitions: metastore records (its
``spark.sql.partitionProvider`` is ``catalog``, every table Spark makes today) or the directories under the table's
(any other value, or none).

An INSERT OVERWRITE's work table is made the second way (``SparkSwap.clone_empty``): Spark's INSERT into it then
registers no partition record, and its removal drops none, which on Derby saved about 80 ms and 35 ms for the one
partition a dbt incremental model writes. Its records are made here from its directories, as Spark's ADD PARTITION
makes them, and held for the install, which makes them ORIG's with ORIG's provider; where something must read the
work table as a table (Spark's statements on it, the rename path that makes it the table), it tracks its partitions
in the metastore first (:func:`track_partitions`)."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable

from storage.catalogs.names import TableName
from storage.catalogs.spark.hms.hive_record import PARTITION_PROVIDER_PROPERTY, HivePartition, HiveTable
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.restored_schema import PROVIDER_PROPERTY

IN_CATALOG = "catalog"


def partitions_in_files(table: HiveTable) -> bool:
    """A partitioned data source table whose partitions Spark finds in its directory, not in the metastore (a Hive
    serde table's are always records)."""
    parameters = table.parameters
    provider = parameters.get(PROVIDER_PROPERTY, "hive").lower()
    return table.partitioned and provider != "hive" and parameters.get(PARTITION_PROVIDER_PROPERTY) != IN_CATALOG


def with_provider_of(table: HiveTable, other: HiveTable) -> HiveTable:
    """``table`` with ``other``'s partition provider (a work table's definition installed on ORIG)."""
    provider = other.parameters.get(PARTITION_PROVIDER_PROPERTY)
    if provider is None or table.parameters.get(PARTITION_PROVIDER_PROPERTY) == provider:
        return table
    return table.with_parameters({PARTITION_PROVIDER_PROPERTY: provider})


def new_partition(table: HiveTable, values: Iterable[str], location: str) -> HivePartition:
    """A new ``Partition`` record of ``table`` with ``values`` at ``location``, as Spark's ADD PARTITION makes one
    (the table's storage descriptor, its ``path`` storage property the table's); no parameters: the metastore counts
    the files when the record is added or installed."""
    storage = copy.deepcopy(table.fields["7"])
    storage["rec"]["2"] = {"str": location}
    listed = [str(value) for value in values]
    return HivePartition({"1": {"lst": ["str", len(listed), *listed]}, "2": {"str": table.db},
                          "3": {"str": table.name}, "4": {"i32": int(time.time())}, "5": {"i32": 0},
                          "6": storage, "7": {"map": ["str", "str", 0, {}]}})


def track_partitions(client: MetastoreClient, name: TableName) -> None:
    """The work table ``name`` whole in the metastore: a table whose partitions were its directories tracking them
    in the metastore again (one ``alter_table``, statistics as they are), and the partitions held for it registered
    (one ``add_partitions``); no call for a table that has neither."""
    table = client.get(name)
    if table is not None and partitions_in_files(table):
        client.install(name, table.with_parameters({PARTITION_PROVIDER_PROPERTY: IN_CATALOG}), keep_statistics=True)
    client.register_staged(name)
