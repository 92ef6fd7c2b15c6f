"""A persistent view's stored parts read from the session catalog's own record instead of a ``DESCRIBE TABLE EXTENDED
... AS JSON`` (a statement of its own, about 50 ms): the external catalog's ``getTablesByName`` (one metastore call,
the record as Spark restores it) and about a dozen Py4J round trips. The parts come back under DESCRIBE's JSON keys,
so a view's definition is made from them as from a DESCRIBE.

One difference on purpose: DESCRIBE redacts a property whose key or value matches Spark's redaction patterns
(``password``, ``token``, ``url``, ...: its value shown as ``*********(redacted)``); the record keeps the value, and a
view's definition kept for an undo, or compared with the one a statement logged, must be the stored one.
"""

from __future__ import annotations

import json
from typing import Any

from storage.catalogs.names import SESSION_CATALOG, TableName
from storage.catalogs.spark.engine import fingerprint
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.hms.record_lookup import created_millis
from storage.catalogs.spark.jvm import (
    new,
    option,
    scala_map,
    seq_strings,
    session_part,
    tables_by_name,
    with_active_session,
)
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import SCHEMA_PROPERTY, large_property
from storage.catalogs.spark.table_lookup import SPARK_SQL_PREFIX, fingerprint_material
from storage.errors import UnrenderedSchemaError

VIEW_PREFIX = "view."
"""Spark's own view properties (the query's output names, the schema mode, the creating session's settings):
DESCRIBE leaves them out of the table properties."""
UNSUPPORTED_MODE = "UNSUPPORTED"
"""The schema mode with Spark's view schema binding turned off, which DESCRIBE leaves out."""


def read_view(jvm: Jvm, name: TableName) -> tuple[dict[str, Any] | None, str | None]:
    """What one read of the record holding ``name`` tells (one metastore call): the view's parts
    (:func:`view_info`) and its identity, the fingerprint of what ``DESCRIBE ... AS JSON`` says of it
    (:func:`~storage.catalogs.spark.engine.fingerprint`: creation time, provider, kind, columns; a DESCRIBE is a
    statement of about 40 ms). The identity is None where a table or nothing holds the name, and where the columns
    are not known to render as DESCRIBE renders them (the caller describes)."""
    found = tables_by_name(jvm, name.db, name.name)
    if found.isEmpty():
        return None, None
    table = found.head()
    kind = str(table.tableType().name())
    if kind != "VIEW":
        return {"type": kind}, None
    schema = json.loads(str(table.schema().json()))
    provider = option(table.provider())
    try:
        identity: str | None = fingerprint(fingerprint_material(
            kind, int(table.createTime()), None if provider is None else str(provider), schema, []))
    except UnrenderedSchemaError:
        identity = None
    return _view_parts(jvm, table, kind, schema), identity


def read_view_of_record(jvm: Jvm, table: HiveTable) -> tuple[dict[str, Any] | None, str | None] | None:
    """:func:`read_view` from ``table``, the view's raw record the statement's lookup already read (no metastore
    call): Spark's Hive client converts it as it converts what it reads (``convertHiveTableToCatalogTable``), and the
    schema is restored from its properties as Spark's catalog restores a view's (``spark.sql.sources.schema``; the
    metastore's own columns are Hive's types); Spark's own ``spark.sql.`` properties left out as the catalog leaves
    them out. None where the record does not hold the schema (a view older than Spark 2.2): the caller reads
    :func:`read_view`. Saves the catalog's read (a metastore call) and the schema's JSON from the JVM, about 20 ms
    of a CREATE OR REPLACE VIEW on Derby (``tests/spark/test_view_record.py`` compares both for every form of view)."""
    text = large_property(table.parameters, SCHEMA_PROPERTY)
    if not table.is_view or text is None:
        return None
    schema = json.loads(text)
    converted = getattr(session_part(jvm, "hive client"), _CONVERT)(new(jvm.view, _QL_TABLE, table.java(jvm)))
    try:
        identity: str | None = fingerprint(fingerprint_material("VIEW", created_millis(table), None, schema, []))
    except UnrenderedSchemaError:
        identity = None
    return _view_parts(jvm, converted, "VIEW", schema), identity


_QL_TABLE = "org.apache.hadoop.hive.ql.metadata.Table"
_CONVERT = "org$apache$spark$sql$hive$client$HiveClientImpl$$convertHiveTableToCatalogTable"
"""Spark's Hive client's conversion of a Hive ``Table`` into its ``CatalogTable`` (private in Scala, public in the
bytecode of Spark 4.0 to 4.3)."""


def view_info(jvm: Jvm, name: TableName) -> dict[str, Any] | None:
    """The view ``name`` as ``DESCRIBE ... AS JSON`` renders the parts of it a definition reads (``type``,
    ``catalog_name``, ``view_text``, ``columns``' names, ``view_query_output_columns``, ``comment``,
    ``table_properties``, ``view_schema_mode``); only ``type`` for a table; None when nothing holds the name."""
    return read_view(jvm, name)[0]


def _view_parts(jvm: Jvm, table: Any, kind: str, schema: dict[str, Any]) -> dict[str, Any]:
    properties = scala_map(jvm, table.properties())
    output = seq_strings(jvm, table.viewQueryColumnNames())
    mode = str(with_active_session(jvm, lambda: table.viewSchemaMode().toString()))
    comment = option(table.comment())
    info: dict[str, Any] = {
        "type": kind, "catalog_name": SESSION_CATALOG, "view_text": str(option(table.viewText()) or ""),
        "columns": [{"name": str(field["name"])} for field in schema.get("fields", [])],
        "table_properties": {str(key): str(value) for key, value in properties.items()
                             if not str(key).startswith((VIEW_PREFIX, SPARK_SQL_PREFIX)) and str(value) != ""},
    }
    if output:
        info["view_query_output_columns"] = output
    if comment is not None:
        info["comment"] = str(comment)
    if mode != UNSUPPORTED_MODE:
        info["view_schema_mode"] = mode
    return info
