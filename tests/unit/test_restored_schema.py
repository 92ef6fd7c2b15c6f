"""What Spark's Hive catalog restores from a raw table record (the fingerprint's material without a second metastore
call): the pieces of a long schema joined, partition columns moved last, a Hive serde table's own columns where its
properties hold no schema, and a refusal for anything Spark would resolve otherwise."""

from __future__ import annotations

import json
from typing import Any

import pytest

from storage.catalogs.spark.restored_schema import restored_shape, same_ignoring_case_and_nullability
from storage.errors import UnrenderedSchemaError


def field(name: str, kind: Any = "integer", nullable: bool = True) -> dict[str, Any]:
    return {"name": name, "type": kind, "nullable": nullable, "metadata": {}}


def struct(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "struct", "fields": list(fields)}


SCHEMA = struct(field("p", "string"), field("a"), field("q"))
PARTITIONED = {"spark.sql.sources.schema.numPartCols": "2", "spark.sql.sources.schema.partCol.0": "q",
               "spark.sql.sources.schema.partCol.1": "p"}


def never() -> Any:
    raise AssertionError("a data source table's shape is in its properties")


def test_a_data_source_table_keeps_its_provider_and_moves_partition_columns_last_in_their_order():
    properties = {"spark.sql.sources.provider": "parquet", "spark.sql.sources.schema": json.dumps(SCHEMA),
                  **PARTITIONED}
    shape = restored_shape(properties, never, never)
    assert shape.provider == "parquet" and shape.partition_columns == ["q", "p"]
    assert [f["name"] for f in shape.schema["fields"]] == ["a", "q", "p"]


def test_a_long_schema_is_joined_from_its_pieces():
    text = json.dumps(SCHEMA)
    pieces = {f"spark.sql.sources.schema.part.{i}": text[i * 10:(i + 1) * 10] for i in range(len(text) // 10 + 1)}
    properties = {"spark.sql.sources.provider": "csv", "spark.sql.sources.schema.numParts": str(len(pieces)),
                  **pieces}
    assert restored_shape(properties, never, never).schema == SCHEMA


@pytest.mark.parametrize("properties", [
    {"spark.sql.sources.provider": "csv", "spark.sql.sources.schema.numParts": "2",
     "spark.sql.sources.schema.part.0": "{"},
    {"spark.sql.sources.provider": "csv", "spark.sql.sources.schema.part.0": "{}"},
    {"spark.sql.sources.provider": "csv", "spark.sql.sources.schema": json.dumps(SCHEMA),
     "spark.sql.sources.schema.numPartCols": "1", "spark.sql.sources.schema.partCol.0": "nope"},
    {"spark.sql.sources.provider": "csv", "spark.sql.sources.schema": "not json"},
], ids=["a missing piece", "no piece count", "a partition column the schema lacks", "not JSON"])
def test_an_irregular_record_is_left_to_spark(properties):
    with pytest.raises(UnrenderedSchemaError):
        restored_shape(properties, never, never)


def test_a_hive_serde_table_without_a_schema_property_has_the_metastore_columns():
    hive_columns = struct(field("aa"), field("cc", "string"))
    shape = restored_shape({}, lambda: hive_columns, lambda: ["cc"])
    assert shape == type(shape)("hive", hive_columns, ["cc"])


def test_a_hive_serde_table_keeps_the_case_and_nullability_its_properties_hold():
    spark_schema = struct(field("Aa", nullable=False), field("Cc", "string"))
    hive_columns = struct(field("aa"), field("cc", "string"))
    properties = {"spark.sql.sources.schema": json.dumps(spark_schema), "spark.sql.sources.schema.numPartCols": "1",
                  "spark.sql.sources.schema.partCol.0": "Cc"}
    shape = restored_shape(properties, lambda: hive_columns, never)
    assert shape.schema == spark_schema and shape.partition_columns == ["Cc"] and shape.provider == "hive"


def test_a_hive_serde_table_whose_properties_disagree_with_its_columns_is_left_to_spark():
    properties = {"spark.sql.sources.schema": json.dumps(struct(field("a"), field("b")))}
    with pytest.raises(UnrenderedSchemaError):
        restored_shape(properties, lambda: struct(field("a")), never)


@pytest.mark.parametrize(("left", "right", "same"), [
    (struct(field("A", struct(field("X")))), struct(field("a", struct(field("x", nullable=False)))), True),
    ({"type": "array", "elementType": "integer", "containsNull": False},
     {"type": "array", "elementType": "integer", "containsNull": True}, True),
    ({"type": "map", "keyType": "string", "valueType": struct(field("V")), "valueContainsNull": True},
     {"type": "map", "keyType": "string", "valueType": struct(field("v")), "valueContainsNull": False}, True),
    (struct(field("a")), struct(field("a", "long")), False),
    (struct(field("a")), struct(field("b")), False),
    (struct(field("a")), struct(field("a"), field("b")), False),
    ("decimal(10,2)", "decimal(10,3)", False),
])
def test_types_compare_as_spark_compares_them_ignoring_case_and_nullability(left, right, same):
    assert same_ignoring_case_and_nullability(left, right) is same
