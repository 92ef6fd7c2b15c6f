"""A table's whole metastore definition as text, and back: its ``Table`` record and its ``Partition`` records written
with Thrift's JSON protocol (``libthrift``, in pyspark's jars), which writes every field of them, so the text is the
metastore's own definition, not a description of part of it. What the DDL log keeps of a table version."""

from __future__ import annotations

import json
from typing import Any

from storage.catalogs.interface import TableVersion
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import Engine
from storage.catalogs.spark.metastore import location_of


def _thrift(engine: Engine) -> tuple[Any, Any]:
    jvm = engine.spark._jvm
    factory = jvm.org.apache.thrift.protocol.TJSONProtocol.Factory()
    return jvm.org.apache.thrift.TSerializer(factory), jvm.org.apache.thrift.TDeserializer(factory)


def version_text(engine: Engine, name: TableName, table: Any, partitions: list[Any]) -> TableVersion:
    """The version ``table`` (with ``partitions``) of the table ``name``, as the log keeps it."""
    serializer, _ = _thrift(engine)
    definition = json.dumps({"table": str(serializer.toString(table)),
                             "partitions": [str(serializer.toString(p)) for p in partitions]})
    location = location_of(table)
    properties = {str(k): str(v) for k, v in dict(table.getParameters()).items()}
    at_default = location.rstrip("/").rpartition("/")[2].lower() == name.name.lower()
    return TableVersion(definition, location, tuple(sorted(properties.items())), at_default)


def version_records(engine: Engine, name: TableName, definition: str) -> tuple[Any, list[Any]]:
    """The ``Table`` record and ``Partition`` records of ``definition`` (a :func:`version_text`'s), the partitions
    naming ``name``."""
    record = json.loads(definition)
    jvm = engine.spark._jvm
    _, deserializer = _thrift(engine)
    table = jvm.org.apache.hadoop.hive.metastore.api.Table()
    deserializer.fromString(table, record["table"])
    partitions = []
    for text in record["partitions"]:
        partition = jvm.org.apache.hadoop.hive.metastore.api.Partition()
        deserializer.fromString(partition, text)
        partition.setDbName(name.db)
        partition.setTableName(name.name)
        partitions.append(partition)
    return table, partitions
