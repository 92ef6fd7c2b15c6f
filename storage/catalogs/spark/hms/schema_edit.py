"""A table's metastore definition with one column retyped or some columns dropped, everything else exactly as it was:
what an ALTER TABLE rebuild creates its new version from (the rows are copied in afterwards).

A rebuild must change only what the statement names. Building the new version with CREATE TABLE from a partial
description (columns, provider, partitioning) loses what it does not describe: bucketing, storage OPTIONS, column
comments and DEFAULT values, a declared CHAR/VARCHAR type. So the definition is edited where Spark keeps it, on the
metastore's own ``Table`` record:

* the data source schema in the table parameters (``spark.sql.sources.schema``, or ``.numParts`` and ``.part.<i>``
  for a long one): a JSON ``StructType`` whose fields keep their metadata (comment, defaults); a CHAR/VARCHAR type is
  stored as ``string`` with the declared type in the field's ``__CHAR_VARCHAR_TYPE_STRING`` metadata, as Spark stores
  it (``CharVarcharUtils``);
* the Hive columns (``sd.cols``) and partition keys, when they mirror the schema (a Hive serde table, or a data
  source table Spark stored in a Hive-compatible way), with the Hive type string of the new type.

The new type is parsed by Spark itself (``StructType.fromDDL`` in the JVM), so whatever Spark refuses is refused here.
"""

from __future__ import annotations

import json
from typing import Any

from storage.catalogs.interface import ColumnChange
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.engine import ENGINE_ERRORS, has_class, inspect_error
from storage.catalogs.spark.jvm import new, static
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import SCHEMA_PROPERTY
from storage.errors import CatalogError, InvalidDefinitionError

SCHEMA = SCHEMA_PROPERTY
PARTS = f"{SCHEMA_PROPERTY}.numParts"
CHAR_VARCHAR = "__CHAR_VARCHAR_TYPE_STRING"
CURRENT_DEFAULT, EXISTS_DEFAULT = "CURRENT_DEFAULT", "EXISTS_DEFAULT"
DEFAULTS = "spark_ddl_log.Defaults"
"""The project's JVM class that folds a DEFAULT as Spark's statements do (``ddl_log/frontends/extension/java``)."""
PART_LENGTH = 4000
"""Spark's ``spark.sql.sources.schemaStringLengthThreshold`` default: how long one part of a split schema is."""
BUCKET_COLUMNS = ("spark.sql.sources.schema.numBucketCols", "spark.sql.sources.schema.bucketCol.")
SORT_COLUMNS = ("spark.sql.sources.schema.numSortCols", "spark.sql.sources.schema.sortCol.")


def _read_schema(parameters: Any) -> dict[str, Any] | None:
    if parameters.containsKey(SCHEMA):
        return dict(json.loads(str(parameters.get(SCHEMA))))
    if parameters.containsKey(PARTS):
        count = int(str(parameters.get(PARTS)))
        return dict(json.loads("".join(str(parameters.get(f"{SCHEMA}.part.{i}")) for i in range(count))))
    return None


def _write_schema(parameters: Any, schema: dict[str, Any]) -> None:
    """Back where it was read from, split the way Spark splits it."""
    text = json.dumps(schema, separators=(",", ":"))
    if parameters.containsKey(SCHEMA):
        parameters.put(SCHEMA, text)
        return
    old_count = int(str(parameters.get(PARTS)))
    for index in range(old_count):
        parameters.remove(f"{SCHEMA}.part.{index}")
    parts = [text[i:i + PART_LENGTH] for i in range(0, len(text), PART_LENGTH)]
    parameters.put(PARTS, str(len(parts)))
    for index, part in enumerate(parts):
        parameters.put(f"{SCHEMA}.part.{index}", part)


def _listed(parameters: Any, keys: tuple[str, str]) -> list[str]:
    count_key, prefix = keys
    if not parameters.containsKey(count_key):
        return []
    return [str(parameters.get(f"{prefix}{i}")) for i in range(int(str(parameters.get(count_key))))]


def _parsed(jvm: Jvm, column: str, type_text: str) -> Any:
    """``column type_text`` as Spark parses it (a ``StructType`` of one field)."""
    return static(jvm.view, jvm.classes.struct_type, "fromDDL")(f"{quote_ident(column)} {type_text}")


def new_field(jvm: Jvm, column: str, type_text: str, table: TableName) -> tuple[dict[str, Any], str]:
    """The schema field (JSON, as Spark stores it) and the Hive type string of ``column type_text``, parsed by Spark."""
    try:
        parsed = _parsed(jvm, column, type_text)
        stored = static(jvm.view, jvm.classes.char_varchar_utils, "replaceCharVarcharWithStringInSchema")(parsed)
    except ENGINE_ERRORS as error:
        raise InvalidDefinitionError(f"cannot change column {column!r} of {table} to {type_text!r}: "
                                     f"{inspect_error(error).message}", str(table), error) from None
    fields = json.loads(str(stored.json()))["fields"]
    if len(fields) != 1 or parsed.fields()[0].nullable() is False:
        raise InvalidDefinitionError(f"{type_text!r} is not one data type (for column {column!r} of {table})",
                                     str(table))
    return fields[0], str(parsed.fields()[0].dataType().catalogString())


def exists_default(jvm: Jvm, column: str, type_text: str, current_default: str, table: TableName) -> str:
    """The DEFAULT ``current_default`` of ``column type_text`` folded to the constant Spark stores for rows written
    before (``EXISTS_DEFAULT``), by Spark's own ``ResolveDefaultColumns``: a DEFAULT the new type cannot take is
    refused with Spark's reason (``INVALID_DEFAULT_VALUE``), as Spark's CREATE TABLE with that column refuses it.
    Spark 4.0 folds a schema's defaults in one call; where that call is gone (4.3) the project's JVM class
    (:data:`DEFAULTS`) analyses and folds as Spark's own ALTER does."""
    field = {"name": column, "nullable": True, "metadata": {CURRENT_DEFAULT: current_default}}
    fold = schema_fold(jvm)
    if fold is None and not has_class(jvm, DEFAULTS):
        raise InvalidDefinitionError(f"cannot change column {column!r} of {table} to {type_text!r}: its DEFAULT is "
                                     "folded by the project's jar on this Spark line, and the session lacks it",
                                     str(table))
    try:
        parsed = _parsed(jvm, column, type_text)
        field["type"] = json.loads(str(parsed.json()))["fields"][0]["type"]
        schema = static(jvm.view, jvm.classes.data_type, "fromJson")(
            json.dumps({"type": "struct", "fields": [field]}))
        if fold is None:
            return str(static(jvm.view, DEFAULTS, "existsDefault")(schema.apply(0), "ALTER TABLE ALTER COLUMN"))
        folded = fold(schema, "ALTER TABLE ALTER COLUMN")
    except ENGINE_ERRORS as error:
        raise InvalidDefinitionError(f"cannot change column {column!r} of {table} to {type_text!r}: "
                                     f"{inspect_error(error).message}", str(table), error) from None
    return str(json.loads(str(folded.json()))["fields"][0]["metadata"][EXISTS_DEFAULT])


def schema_fold(jvm: Jvm) -> Any:
    """Spark 4.0's ``constantFoldCurrentDefaultsToExistDefaults``; None on a line without it (4.3)."""
    try:
        return static(jvm.view, jvm.classes.resolve_default_columns, "constantFoldCurrentDefaultsToExistDefaults")
    except ENGINE_ERRORS:
        return None


def altered(jvm: Jvm, table: Any, change: ColumnChange, name: TableName) -> Any:
    """A copy of the metastore ``Table`` record ``table`` (of the table ``name``) with ``change`` applied."""
    copy = table.deepCopy()
    parameters = copy.getParameters()
    schema = _read_schema(parameters)
    if schema is None:
        raise CatalogError(f"cannot rebuild {name}: its definition holds no Spark schema", str(name))
    fields: list[dict[str, Any]] = schema["fields"]
    by_name = {field["name"].lower(): field for field in fields}
    hive_type: str | None = None
    if change.retype is not None:
        column, type_text = change.retype
        field = by_name.get(column.lower())
        if field is None:
            raise CatalogError(f"column {column!r} does not exist in {name}", column)
        replacement, hive_type = new_field(jvm, field["name"], type_text, name)
        metadata = {k: v for k, v in field.get("metadata", {}).items() if k != CHAR_VARCHAR}
        metadata.update({k: v for k, v in replacement.get("metadata", {}).items() if k == CHAR_VARCHAR})
        if change.comment is not None:
            metadata["comment"] = change.comment
        if CURRENT_DEFAULT in metadata:
            metadata[EXISTS_DEFAULT] = exists_default(jvm, field["name"], type_text, metadata[CURRENT_DEFAULT], name)
        field.update(type=replacement["type"], metadata=metadata)
    dropped = {column.lower() for column in change.drop}
    for keys, what in ((BUCKET_COLUMNS, "bucketed"), (SORT_COLUMNS, "sorted")):
        used = [column for column in _listed(parameters, keys) if column.lower() in dropped]
        if used:
            raise CatalogError(f"cannot drop column {used[0]!r} of {name}: the table is {what} by it", used[0])
    schema["fields"] = [field for field in fields if field["name"].lower() not in dropped]
    _write_schema(parameters, schema)
    storage = copy.getSd()
    storage.setCols(_hive_columns(jvm, storage.getCols(), by_name, change, hive_type))
    copy.setPartitionKeys(_hive_columns(jvm, copy.getPartitionKeys(), by_name, change, hive_type))
    return copy


def _hive_columns(jvm: Jvm, columns: Any, schema: dict[str, Any], change: ColumnChange,
                  hive_type: str | None) -> Any:
    """The Hive columns (or partition keys) with the change, when they mirror the schema; a placeholder column list
    (a data source table Spark could not store the Hive way) stays as it is."""
    if columns is None or not all(str(column.getName()).lower() in schema for column in columns):
        return columns
    dropped = {name.lower() for name in change.drop}
    kept = new(jvm.view, "java.util.ArrayList")
    for column in columns:
        lowered = str(column.getName()).lower()
        if lowered in dropped:
            continue
        if change.retype is not None and lowered == change.retype[0].lower():
            if hive_type is not None:
                column.setType(hive_type)
            if change.comment is not None:
                column.setComment(change.comment)
        kept.add(column)
    return kept
