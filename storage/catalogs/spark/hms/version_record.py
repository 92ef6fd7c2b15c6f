"""What a binlog event records of the version a statement installed (``Definitions.recorded_definition``), in one
metastore call: the session's external catalog's ``CatalogTable`` (data source schema and provider restored from the
table properties, as Spark reads the table) rather than DESCRIBE + schema + SHOW TBLPROPERTIES (three calls, about
50 ms a statement). Its properties are the table's own, unredacted: a replica installs them as they are. On a Hive
session the record is read raw instead and restored as Spark's catalog restores it (:func:`raw_recorded_definition`):
the same read then gives the table's identity, its hidden tag included, so the statement reads the table once."""

from __future__ import annotations

import json

from pyspark.sql.types import StructType

from storage.catalogs.interface import TableMetadata, tag_in
from storage.catalogs.names import TableName
from storage.catalogs.spark.columns import schema_columns
from storage.catalogs.spark.engine import Engine, fingerprint
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.hms.record_lookup import kind_of, read_by_spark, restored_location, table_lookup
from storage.catalogs.spark.jvm import option, scala_map, seq_strings, tables_by_name, uri_text
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import restored_shape
from storage.catalogs.spark.table_lookup import JvmTable, TableLookup, read_raw_definition, restored_properties

HIVE_CLIENT_DROPS = frozenset({"COLUMN_STATS_ACCURATE", "numFiles", "numPartitions", "numRows", "rawDataSize",
                               "totalSize", "comment", "EXTERNAL"})
"""Parameters Spark's Hive client leaves out of a ``CatalogTable``'s properties (``HiveClientImpl``: Hive's
statistics; ``comment`` becomes the table's comment; ``EXTERNAL`` is its type): read in its bytecode, checked by
``tests/spark/test_identity_lookup.py`` on every kind of table."""


def recorded_definition(jvm: Jvm, name: TableName) -> tuple[str, TableMetadata] | None:
    """The location and metadata of the table ``name``; None when it is missing or a view. A classic session's
    (Spark Connect has no handle on its external catalog: the caller describes the table). About fifteen Py4J round
    trips (:mod:`storage.catalogs.spark.jvm`)."""
    found = tables_by_name(jvm, name.db, name.name)
    if found.isEmpty():
        return None
    table = found.head()
    kind = str(table.tableType().name())
    uri = option(table.storage().locationUri())
    if kind == "VIEW" or uri is None:
        return None
    columns = schema_columns(StructType.fromJson(json.loads(str(table.schema().json()))))
    properties = scala_map(jvm, table.properties())
    comment = option(table.comment())
    return uri_text(jvm, uri), TableMetadata(
        columns=columns,
        partitioned_by=tuple(seq_strings(jvm, table.partitionColumnNames())),
        properties=tuple(sorted((str(k), str(v)) for k, v in properties.items())),
        provider=str(option(table.provider()) or "hive"),
        comment=None if comment is None else str(comment),
        external=kind == "EXTERNAL",
    )


def raw_recorded_definition(engine: Engine, jvm: Jvm, name: TableName) -> tuple[str, TableMetadata] | None:
    """:func:`recorded_definition` from the table's raw record (a Hive session whose catalog restores what it
    reads): the same location and metadata, and the same read gives the statement's lookup of ``name`` (its hidden
    tag or fingerprint), kept, so that the identity check reads no more. One metastore call where
    :func:`recorded_definition` and the lookup make two. Raises :class:`~storage.errors.UnrenderedSchemaError`
    where the restored shape cannot be told."""
    found = read_raw_definition(jvm, name)
    if found is None or found.location is None:
        return None
    _remember_read(engine, name, found.lookup)
    return found.location, TableMetadata(
        columns=schema_columns(StructType.fromJson(found.schema)),
        partitioned_by=tuple(found.partition_columns),
        properties=tuple(sorted((str(k), str(v)) for k, v in found.properties.items())),
        provider=found.provider,
        comment=found.comment,
        external=found.lookup.kind == "EXTERNAL",
    )


def remember_lookup(engine: Engine, name: TableName, location: str, metadata: TableMetadata) -> None:
    """Keep what :func:`recorded_definition` read of a tagged table as the statement's lookup of ``name`` (kind, tag,
    the same decoded location): its identity check then reads no more."""
    tag = tag_in(dict(metadata.properties))
    if tag is not None:
        kind = "EXTERNAL" if metadata.external else "MANAGED"
        engine.remember(name, TableLookup(kind, tag, location if kind == "MANAGED" else None))


def _remember_read(engine: Engine, name: TableName, read: JvmTable) -> None:
    """Keep the table read with its definition as the statement's lookup of ``name`` (its tag, else its fingerprint;
    nothing where neither can be told: the lookup describes it)."""
    identity = read.tag if read.tag is not None else (None if read.material is None else fingerprint(read.material))
    if identity is not None:
        engine.remember(name, TableLookup(read.kind, identity, read.location))


def record_recorded_definition(engine: Engine, jvm: Jvm, name: TableName,
                               table: HiveTable | None) -> tuple[str, TableMetadata] | None:
    """:func:`raw_recorded_definition` from ``table``, the record the catalog's own metastore client read of ``name``
    (:meth:`~storage.catalogs.spark.hms.metastore_client.MetastoreClient.get`, kept for the statement: about half
    the time of Spark's Hive client, and the statement's later reads of the record are answered from it): the same
    location and metadata, and the lookup it gives is kept. Raises :class:`~storage.errors.UnrenderedSchemaError`
    where the record cannot tell (an untagged Hive serde table: the caller reads raw)."""
    if table is None:
        return None
    kind = kind_of(table)
    if kind == "VIEW":
        return None
    parameters = table.parameters
    location = restored_location(jvm, table, parameters)
    if location is None:
        return None
    shape = restored_shape(parameters, read_by_spark, read_by_spark)
    _remember_read(engine, name, table_lookup(table, kind, location if kind == "MANAGED" else None))
    properties = restored_properties({k: v for k, v in parameters.items() if k not in HIVE_CLIENT_DROPS})
    comment = parameters.get("comment")
    return location, TableMetadata(
        columns=schema_columns(StructType.fromJson(shape.schema)),
        partitioned_by=tuple(shape.partition_columns),
        properties=tuple(sorted(properties.items())),
        provider=shape.provider,
        comment=comment,
        external=kind == "EXTERNAL",
    )
