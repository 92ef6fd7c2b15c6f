"""One metastore call for what RENAME and DROP need to know about a name: its kind, its identity, its location.

A ``DESCRIBE TABLE EXTENDED ... AS JSON`` costs a SQL statement (parse, analysis, a JSON rendering of everything),
and :meth:`~storage.catalogs.spark.engine.Engine.describe` asks ``tableExists`` first. On a classic session the
external catalog's ``getTablesByName`` gets the same ``CatalogTable`` the DESCRIBE renders in one metastore call
(an empty answer when nothing holds the name, so no error crosses Py4J), and only the few fields needed are read.
On a Hive session the table is read raw first (Spark's ``HiveClient``, below the catalog that filters ``spark.sql.``
properties): a table the log made has its tag under the hidden key there, and no DESCRIBE shows it.

The identity must stay exactly what it was (logs written before record it): the fingerprint hashes the DESCRIBE
rendering of creation time, provider, kind, columns and partition columns, so :func:`describe_columns` renders the
schema the way ``DESCRIBE ... AS JSON`` does (Spark 4.0's ``DescribeRelationJsonCommand``; read, not copied). For
what it was not checked against (character types, collations, types beyond the usual ones, an empty schema) it
gives up, and the caller describes the table as before. ``tests/spark/test_identity_lookup.py`` checks both ways
agree.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import attrs

from storage.catalogs.interface import tag_in
from storage.catalogs.names import TableName
from storage.catalogs.spark.jvm import (
    option,
    raw_tables_by_name,
    scala_map,
    seq_strings,
    static,
    tables_by_name,
    uri_text,
)
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import PROVIDER_PROPERTY, restored_shape
from storage.errors import UnrenderedSchemaError


@attrs.frozen
class TableLookup:
    """What a lookup of a name found (a table or a view; None stands for nothing at all)."""

    kind: str
    """``MANAGED``, ``EXTERNAL`` or ``VIEW``."""
    identity: str | None
    """The tag property, else the fingerprint (:func:`~storage.catalogs.spark.engine.fingerprint`); None for a
    view."""
    location: str | None
    """The decoded location of a managed table (None for other kinds)."""


@attrs.frozen
class JvmTable:
    """The fields of a ``CatalogTable`` the identity needs; ``material`` is None when the columns cannot be rendered
    as DESCRIBE renders them (the caller then describes the table)."""

    kind: str
    tag: str | None
    location: str | None
    material: dict[str, Any] | None




_SIMPLE = {
    "integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint", "float": "float", "double": "double",
    "boolean": "boolean", "binary": "binary", "date": "date", "timestamp": "timestamp_ltz",
    "timestamp_ntz": "timestamp_ntz",
}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")
_YEAR_MONTH = ("year", "month")
_DAY_TIME = ("day", "hour", "minute", "second")
_INTERVAL = re.compile(r"interval (\w+)(?: to (\w+))?")
_FIELD_METADATA = frozenset({"comment", "CURRENT_DEFAULT", "EXISTS_DEFAULT"})
"""Field metadata whose rendering is known; anything else (char/varchar markers, collations, ...) gives up."""


def _render_type(data_type: Any) -> dict[str, Any]:
    if isinstance(data_type, str):
        if data_type in _SIMPLE:
            return {"name": _SIMPLE[data_type]}
        if data_type == "string":
            return {"name": "string", "collation": "UTF8_BINARY"}
        decimal = _DECIMAL.fullmatch(data_type)
        if decimal:
            return {"name": "decimal", "precision": int(decimal[1]), "scale": int(decimal[2])}
        interval = _INTERVAL.fullmatch(data_type)
        if interval:
            start, end = interval[1], interval[2] or interval[1]
            if {start, end} <= set(_YEAR_MONTH) or {start, end} <= set(_DAY_TIME):
                return {"name": "interval", "start_unit": start, "end_unit": end}
        raise UnrenderedSchemaError(data_type)
    if not isinstance(data_type, dict):
        raise UnrenderedSchemaError(repr(data_type))
    kind = data_type.get("type")
    if kind == "array":
        return {"name": "array", "element_type": _render_type(data_type["elementType"]),
                "element_nullable": bool(data_type["containsNull"])}
    if kind == "map":
        return {"name": "map", "key_type": _render_type(data_type["keyType"]),
                "value_type": _render_type(data_type["valueType"]),
                "value_nullable": bool(data_type["valueContainsNull"])}
    if kind == "struct":
        return {"name": "struct", "fields": [_render_field(field) for field in data_type["fields"]]}
    raise UnrenderedSchemaError(repr(kind))


def _render_field(field: dict[str, Any]) -> dict[str, Any]:
    metadata = field.get("metadata") or {}
    if not set(metadata) <= _FIELD_METADATA:
        raise UnrenderedSchemaError(", ".join(sorted(set(metadata) - _FIELD_METADATA)))
    rendered: dict[str, Any] = {"name": field["name"], "type": _render_type(field["type"]),
                                "nullable": bool(field["nullable"])}
    if "comment" in metadata:
        rendered["comment"] = str(metadata["comment"])
    if "CURRENT_DEFAULT" in metadata:
        rendered["default"] = str(metadata["CURRENT_DEFAULT"])
    return rendered


def describe_columns(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``columns`` of ``DESCRIBE ... AS JSON`` for a schema in Spark's JSON form (``StructType.json``).

    Raises :class:`UnrenderedSchemaError` for an empty schema (DESCRIBE infers one) and for anything not known to
    render the same way.
    """
    if schema.get("type") != "struct" or not schema.get("fields"):
        raise UnrenderedSchemaError("empty schema")
    return list(_render_type(schema)["fields"])


def created_time(millis: int) -> str:
    """``created_time`` as DESCRIBE renders it: UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(millis // 1000))


VIEW_READ = JvmTable("VIEW", None, None, None)


def _head(jvm: Jvm, found: Any) -> tuple[Any, str, dict[str, str]] | None:
    """The first ``CatalogTable`` of ``found`` (a Scala ``Seq``), its kind and its table properties; None when empty.
    A view's properties are not read."""
    if found.isEmpty():
        return None
    table = found.head()
    kind = str(table.tableType().name())
    if kind == "VIEW":
        return table, kind, {}
    return table, kind, scala_map(jvm, table.properties())


def fingerprint_material(kind: str, created_millis: int, provider: str | None, schema: dict[str, Any],
                         partition_columns: list[str]) -> dict[str, Any]:
    """What the fingerprint hashes, as ``DESCRIBE ... AS JSON`` renders it (raises :class:`UnrenderedSchemaError`)."""
    return {
        "created_time": created_time(created_millis),
        "provider": provider,
        "type": kind,
        "columns": describe_columns(schema),
        "partition_columns": partition_columns or None,
    }


def read_jvm_table(jvm: Jvm, name: TableName, *, hive: bool) -> JvmTable | None:
    """Read ``name`` in one metastore call; None when nothing holds it.

    ``hive`` (a Hive session whose catalog restores what it reads, where tags are kept under the hidden key Spark's
    catalog filters out, :data:`~storage.catalogs.interface.HIDDEN_TAG_PROPERTY`): the table is read raw
    (:func:`read_raw_table`). Otherwise through Spark's catalog: ``getTablesByName`` returns the table as
    ``getTable`` does (the data source schema and provider restored from the table properties), without the error
    ``getTable`` raises for a missing name. Raises the engine's errors (a missing database among them). About a dozen
    Py4J round trips (:mod:`storage.catalogs.spark.jvm`).
    """
    if hive:
        return read_raw_table(jvm, name)
    head = _head(jvm, tables_by_name(jvm, name.db, name.name))
    if head is None or head[1] == "VIEW":
        return None if head is None else VIEW_READ
    table, kind, properties = head
    location = _stored_location(jvm, table.storage()) if kind == "MANAGED" else None
    return jvm_table(kind, tag_in(properties), location, lambda: fingerprint_material(
        kind, int(table.createTime()), option(table.provider()), json.loads(str(table.schema().json())),
        seq_strings(jvm, table.partitionColumnNames())))


def jvm_table(kind: str, tag: str | None, location: str | None, material: Callable[[], dict[str, Any]]
               ) -> JvmTable:
    """The table read: ``material`` asked only for an untagged table, None where it cannot be rendered."""
    if tag is not None:
        return JvmTable(kind, tag, location, None)
    try:
        return JvmTable(kind, None, location, material())
    except UnrenderedSchemaError:
        return JvmTable(kind, None, location, None)


def _stored_location(jvm: Jvm, storage: Any) -> str | None:
    """A ``CatalogStorageFormat``'s location URI, decoded; None when it has none."""
    uri = option(storage.locationUri())
    return None if uri is None else uri_text(jvm, uri)


def _raw_location(jvm: Jvm, storage: Any, properties: dict[str, str]) -> str | None:
    """The location Spark's catalog restores (``HiveExternalCatalog.restoreTableMetadata``, read): a data source
    table's ``path`` storage property (its stored location may be a placeholder), a Hive serde table's stored
    location."""
    if PROVIDER_PROPERTY not in properties:
        return _stored_location(jvm, storage)
    path = path_option(scala_map(jvm, storage.properties()))
    return None if path is None else decoded_location(jvm, path)


def path_option(options: dict[str, Any]) -> str | None:
    """A data source table's ``path`` storage option (any case), where Spark reads it; None without one."""
    return next((str(value) for key, value in options.items() if str(key).lower() == "path"), None)


def decoded_location(jvm: Jvm, text: str) -> str:
    """A stored location string as Spark's catalog renders it (``stringToURI``, then decoded): two round trips."""
    return uri_text(jvm, static(jvm.view, jvm.classes.catalog_utils, "stringToURI")(text))


SPARK_SQL_PREFIX = "spark.sql."
HIVE_GENERATED_PROPERTIES = frozenset({"transient_lastDdlTime"})
"""The properties Spark's catalog keeps to itself (:func:`restored_properties`)."""


def restored_properties(properties: dict[str, str]) -> dict[str, str]:
    """A raw record's table properties as Spark's catalog returns them: ``HiveExternalCatalog.restoreTableMetadata``
    drops every key with the ``spark.sql.`` prefix (the hidden tag among them), and for a data source table the
    ones Hive generates (read in its bytecode and checked, not copied; ``tests/spark/test_identity_lookup.py``
    compares both readings on every kind of table)."""
    data_source = PROVIDER_PROPERTY in properties
    return {key: value for key, value in properties.items() if not key.startswith(SPARK_SQL_PREFIX)
            and not (data_source and key in HIVE_GENERATED_PROPERTIES)}


@attrs.frozen
class RawDefinition:
    """A table's stored record as Spark's catalog restores it (:func:`read_raw_definition`), and its lookup."""

    lookup: JvmTable
    location: str | None
    """The restored location of the table, whatever its kind (a data source table's ``path``)."""
    properties: dict[str, str]
    """The table properties without Spark's own (``spark.sql.``) keys, as the catalog returns them."""
    provider: str
    schema: dict[str, Any]
    partition_columns: list[str]
    comment: str | None


def read_raw_definition(jvm: Jvm, name: TableName) -> RawDefinition | None:
    """``name``'s record read raw in one metastore call, with what Spark's catalog would restore of it (schema,
    provider, partition columns, location, properties: :mod:`.restored_schema`) and its lookup (the hidden tag
    first): one read serves a statement's definition and identity. None when nothing or a view holds the name.
    Raises :class:`UnrenderedSchemaError` where the restored shape cannot be told (the caller reads the catalog)."""
    head = _head(jvm, raw_tables_by_name(jvm, name.db, name.name))
    if head is None or head[1] == "VIEW":
        return None
    table, kind, properties = head
    shape = restored_shape(properties, lambda: dict(json.loads(str(table.schema().json()))),
                           lambda: seq_strings(jvm, table.partitionColumnNames()))
    location = _raw_location(jvm, table.storage(), properties)
    lookup = jvm_table(kind, tag_in(properties), location if kind == "MANAGED" else None,
                        lambda: fingerprint_material(kind, int(table.createTime()), shape.provider, shape.schema,
                                                     shape.partition_columns))
    comment = option(table.comment())
    return RawDefinition(lookup, location, restored_properties(properties),
                         shape.provider, shape.schema, list(shape.partition_columns),
                         None if comment is None else str(comment))


def read_raw_table(jvm: Jvm, name: TableName) -> JvmTable | None:
    """Kind, tag (hidden key first), location and, for an untagged table, the fingerprint's material of ``name``,
    from the record the metastore stores: one metastore call.

    The material is what Spark's catalog would restore from that record (:mod:`.restored_schema`), so no second
    read through the catalog is needed; where that cannot be told the material is None (the caller describes)."""
    head = _head(jvm, raw_tables_by_name(jvm, name.db, name.name))
    if head is None or head[1] == "VIEW":
        return None if head is None else VIEW_READ
    table, kind, properties = head
    location = _raw_location(jvm, table.storage(), properties) if kind == "MANAGED" else None

    def material() -> dict[str, Any]:
        shape = restored_shape(properties, lambda: dict(json.loads(str(table.schema().json()))),
                               lambda: seq_strings(jvm, table.partitionColumnNames()))
        return fingerprint_material(kind, int(table.createTime()), shape.provider, shape.schema,
                                    shape.partition_columns)
    return jvm_table(kind, tag_in(properties), location, material)
