"""A table's whole metastore definition as text, and back: its ``Table`` record and its ``Partition`` records written
with Thrift's JSON protocol (``libthrift``, in pyspark's jars), which writes every field of them, so the text is the
metastore's own definition, not a description of part of it. What the DDL log keeps of a table version. The records
are already that text in Python (:mod:`storage.catalogs.spark.hms.hive_record`): nothing crosses to the JVM here."""

from __future__ import annotations

import json

from storage.catalogs.interface import TableVersion
from storage.catalogs.kept_directories import normalized_location
from storage.catalogs.names import TableName
from storage.catalogs.spark.hms.hive_record import HivePartition, HiveTable


def version_text(name: TableName, table: HiveTable, partitions: list[HivePartition]) -> TableVersion:
    """The version ``table`` (with ``partitions``) of the table ``name``, as the log keeps it."""
    definition = json.dumps({"table": table.text, "partitions": [p.text for p in partitions]})
    location = table.location
    at_default = location.rstrip("/").rpartition("/")[2].lower() == name.name.lower()
    return TableVersion(definition, location, tuple(sorted(table.parameters.items())), at_default)


def version_records(name: TableName, definition: str) -> tuple[HiveTable, list[HivePartition]]:
    """The ``Table`` record and ``Partition`` records of ``definition`` (a :func:`version_text`'s), the partitions
    naming ``name``."""
    record = json.loads(definition)
    partitions = [HivePartition(json.loads(text)).placed(name) for text in record["partitions"]]
    return HiveTable.parse(record["table"]), partitions


def relocated_records(definition: str, location: str) -> tuple[HiveTable, list[HivePartition], list[str]]:
    """The records of ``definition`` with the table's data at ``location``: each partition located under the old
    table directory at the same place under ``location``; the locations of the partitions elsewhere, left as they
    are (a copy refuses them, a move of the directory leaves them where they are)."""
    record = json.loads(definition)
    table = HiveTable.parse(record["table"])
    old, root = normalized_location(table.location), location.rstrip("/")
    partitions, outside = [], []
    for text in record["partitions"]:
        partition = HivePartition(json.loads(text))
        at = normalized_location(partition.location)
        if at.startswith(old + "/"):
            partition = partition.relocated(root + at[len(old):])
        else:
            outside.append(at)
        partitions.append(partition)
    return table.relocated(root), partitions, outside
