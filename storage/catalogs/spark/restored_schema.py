"""A stored table's schema and partition columns as Spark's Hive catalog restores them, from the raw record.

Reading a table raw (below Spark's catalog, to see the hidden tag) and then once more through the catalog for the
fingerprint's material cost a second metastore call for every untagged table. The catalog's restoring is a pure
function of the raw record (``HiveExternalCatalog.restoreTableMetadata`` in Spark 4.0 to 4.3; read, not copied):

- a data source table (``spark.sql.sources.provider`` set): the schema is the JSON in ``spark.sql.sources.schema``
  (or its ``.numParts`` / ``.part.N`` pieces), the partition columns ``spark.sql.sources.schema.partCol.N``, moved to
  the end of the schema in that order;
- a Hive serde table: the same schema and partition columns when the properties hold them and they equal the
  metastore's columns ignoring case and nullability; the metastore's columns and partition columns when the
  properties hold none; provider ``hive``.

Whatever is irregular (missing pieces, a partition column the schema lacks, a Hive serde table whose properties
disagree with its columns, where Spark then reads a storage option) raises :class:`UnrenderedSchemaError`: the
caller then reads the table through Spark's catalog as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from storage.errors import UnrenderedSchemaError

PROVIDER_PROPERTY = "spark.sql.sources.provider"
"""Where Spark keeps a data source table's provider; a Hive serde table has none (or ``hive``)."""
SCHEMA_PROPERTY = "spark.sql.sources.schema"
"""A data source table's schema (Spark's JSON ``StructType``), or ``<key>.numParts`` and ``<key>.part.<i>`` pieces of
it; a Hive serde table Spark made keeps one too."""
PARTITION_COLUMN_PROPERTY = "spark.sql.sources.schema.partCol."
"""``<prefix><i>``: the i-th partition column of a data source table, in the case Spark was given it."""
HIVE_PROVIDER = "hive"


@attrs.frozen
class RestoredShape:
    """What Spark's catalog gives back of a stored table's shape."""

    provider: str
    schema: dict[str, Any]
    """The schema in Spark's JSON form (``StructType.json``)."""
    partition_columns: list[str]


def large_property(properties: Mapping[str, str], key: str) -> str | None:
    """``key``'s value, or its pieces joined (``CatalogTable.readLargeTableProp``); None when neither is there."""
    if key in properties:
        return properties[key]
    if not any(name.startswith(key) for name in properties):
        return None
    try:
        return "".join(properties[f"{key}.part.{index}"] for index in range(int(properties[f"{key}.numParts"])))
    except (KeyError, ValueError):
        raise UnrenderedSchemaError(f"{key} without all of its parts") from None


def _stored_partition_columns(properties: Mapping[str, str]) -> list[str]:
    count = properties.get(f"{SCHEMA_PROPERTY}.numPartCols")
    if count is None:
        return []
    try:
        return [properties[f"{PARTITION_COLUMN_PROPERTY}{index}"] for index in range(int(count))]
    except (KeyError, ValueError):
        raise UnrenderedSchemaError("partition columns without all of their parts") from None


def _partitions_last(schema: dict[str, Any], partition_columns: list[str]) -> dict[str, Any]:
    fields = list(schema.get("fields") or [])
    moved = []
    for column in partition_columns:
        field = next((field for field in fields if field.get("name") == column), None)
        if field is None:
            raise UnrenderedSchemaError(f"partition column {column!r} not in the schema")
        moved.append(field)
    return {**schema, "fields": [field for field in fields if field not in moved] + moved}


def same_ignoring_case_and_nullability(left: Any, right: Any) -> bool:
    """Spark's ``DataType.equalsIgnoreCaseAndNullability`` over the JSON forms of two types."""
    if isinstance(left, dict) and isinstance(right, dict) and left.get("type") == right.get("type"):
        kind = left.get("type")
        if kind == "array":
            return same_ignoring_case_and_nullability(left.get("elementType"), right.get("elementType"))
        if kind == "map":
            return all(same_ignoring_case_and_nullability(left.get(key), right.get(key))
                       for key in ("keyType", "valueType"))
        if kind == "struct":
            ours, theirs = left.get("fields") or [], right.get("fields") or []
            return len(ours) == len(theirs) and all(
                str(mine["name"]).casefold() == str(other["name"]).casefold()
                and same_ignoring_case_and_nullability(mine["type"], other["type"])
                for mine, other in zip(ours, theirs, strict=True))
    return bool(left == right)


def restored_shape(properties: Mapping[str, str], stored_schema: Callable[[], dict[str, Any]],
                   stored_partition_columns: Callable[[], list[str]]) -> RestoredShape:
    """The shape Spark's catalog restores from a raw table's ``properties``; ``stored_schema`` and
    ``stored_partition_columns`` read the metastore's own columns (asked only for a Hive serde table)."""
    provider = properties.get(PROVIDER_PROPERTY)
    text = large_property(properties, SCHEMA_PROPERTY)
    try:
        schema = json.loads(text) if text is not None else None
    except ValueError:
        raise UnrenderedSchemaError("schema property is not JSON") from None
    if provider is not None:
        partition_columns = _stored_partition_columns(properties)
        schema = _partitions_last(schema or {"type": "struct", "fields": []}, partition_columns)
        return RestoredShape(provider, schema, partition_columns)
    if schema is None:
        return RestoredShape(HIVE_PROVIDER, stored_schema(), stored_partition_columns())
    partition_columns = _stored_partition_columns(properties)
    schema = _partitions_last(schema, partition_columns)
    if not same_ignoring_case_and_nullability(schema, stored_schema()):
        raise UnrenderedSchemaError("the properties' schema differs from the metastore's columns")
    return RestoredShape(HIVE_PROVIDER, schema, partition_columns)
