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
from storage.catalogs.spark.jvm import map_json, option, seq_strings, tables_by_name, uri_text
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.table_lookup import TableLookup, read_raw_definition


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
    properties = json.loads(map_json(jvm, table.properties(), scala=True))
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
    identity = found.lookup.tag if found.lookup.tag is not None else (
        None if found.lookup.material is None else fingerprint(found.lookup.material))
    if identity is not None:
        engine.remember(name, TableLookup(found.lookup.kind, identity, found.lookup.location))
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

