"""A table's lookup (kind, identity, location) from the ``Table`` record the project's own metastore client reads
(:meth:`~storage.catalogs.spark.hms.metastore_client.MetastoreClient.get`): the answer
:func:`~storage.catalogs.spark.table_lookup.read_raw_table` gives from Spark's Hive client, for about half its time
(9 against 18 ms on Derby), and the record stays the statement's for the reads that follow it: a DROP's version and
its drop, a replace's plan read no more (:mod:`storage.catalogs.lookup_scope`).

Where the record alone cannot tell what Spark's catalog would restore (an untagged Hive serde table, whose columns
Spark types from Hive's), :class:`~storage.errors.UnrenderedSchemaError` sends the caller to the raw read.
"""

from __future__ import annotations

from typing import Any, NoReturn

from storage.catalogs.interface import tag_in
from storage.catalogs.spark.hms.hive_record import EXTERNAL, MANAGED, VIEW, HiveTable, storage_properties
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import PROVIDER_PROPERTY, restored_shape
from storage.catalogs.spark.table_lookup import (
    VIEW_READ,
    JvmTable,
    decoded_location,
    fingerprint_material,
    jvm_table,
    path_option,
)
from storage.errors import UnrenderedSchemaError

KINDS = {MANAGED: "MANAGED", EXTERNAL: "EXTERNAL", VIEW: "VIEW"}
"""Hive's table types as Spark's ``CatalogTableType`` names them (any other type Spark refuses to read)."""


def kind_of(table: HiveTable) -> str:
    """Spark's name of the record's table type; raises :class:`UnrenderedSchemaError` for one Spark cannot read."""
    kind = KINDS.get(table.table_type)
    if kind is None:
        raise UnrenderedSchemaError(f"table type {table.table_type!r}")
    return kind


def lookup_of_record(jvm: Jvm, table: HiveTable) -> JvmTable:
    """What :func:`~storage.catalogs.spark.table_lookup.read_raw_table` reads, from ``table``: two round trips
    for a managed table's location, none else. Raises :class:`UnrenderedSchemaError` where it cannot tell."""
    kind = kind_of(table)
    if kind == "VIEW":
        return VIEW_READ
    location = restored_location(jvm, table, table.parameters) if kind == "MANAGED" else None
    return table_lookup(table, kind, location)


def table_lookup(table: HiveTable, kind: str, location: str | None) -> JvmTable:
    """:func:`lookup_of_record` of a table (not a view) whose restored location (managed: else None) is known."""
    parameters = table.parameters
    tag = tag_in(parameters)
    if tag is not None:
        return JvmTable(kind, tag, location, None)
    shape = restored_shape(parameters, read_by_spark, read_by_spark)  # raises for a Hive serde table: read raw
    return jvm_table(kind, None, location, lambda: fingerprint_material(
        kind, created_millis(table), shape.provider, shape.schema, shape.partition_columns))


def restored_location(jvm: Jvm, table: HiveTable, parameters: dict[str, str]) -> str | None:
    """The location Spark's catalog restores, decoded as it renders it: a data source table's ``path`` storage
    property, a Hive serde table's stored location (:func:`~storage.catalogs.spark.table_lookup.read_raw_table`)."""
    text = path_option(storage_properties(table.fields)) if PROVIDER_PROPERTY in parameters else table.location or None
    return None if text is None else decoded_location(jvm, text)


def created_millis(table: HiveTable) -> int:
    """The creation time as Spark's ``CatalogTable`` has it: the record's seconds, in milliseconds."""
    value: Any = table.fields.get("4", {}).get("i32", 0)
    return int(value) * 1000


def read_by_spark() -> NoReturn:
    """What ``restored_shape`` asks of a Hive serde table: its columns as Spark's Hive client types them."""
    raise UnrenderedSchemaError("a Hive serde table's columns: Spark's catalog types them")
