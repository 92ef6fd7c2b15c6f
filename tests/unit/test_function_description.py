"""What Spark reports of a function, as each Spark line prints DESCRIBE FUNCTION EXTENDED: 4.0 puts a SQL function's
properties as JSON in its ``Usage`` row, 4.1 and later print labelled rows. Both read to one definition, so that the
probe of a new function and the function in the metastore compare alike on every line."""

from __future__ import annotations

import json

import pytest

from storage.catalogs.interface import FunctionDefinition
from storage.catalogs.spark.sql.function_records import described_as_json, parse_description, usage_definition
from storage.errors import CatalogError

LABELLED = [
    "Function:      spark_catalog.default.fx",
    "Type:          SCALAR",
    "Input:         x INT    'c'",
    "               y STRING DEFAULT 'a'",
    "Returns:       INT",
    "Comment:       hello",
    "Deterministic: false",
    "Data Access:   CONTAINS SQL",
    "Configs:       spark.sql.ansi.enabled=true",
    "               spark.sql.session.timeZone=Etc/UTC",
    "Create Time:   Sat Nov 28 15:28:52 UTC 2026",
    "Body:          x + 1",
]


def test_a_scalar_sql_function_in_labelled_rows_reads_to_its_params_returns_and_body():
    assert parse_description(LABELLED) == FunctionDefinition(
        params="x INT    'c', y STRING DEFAULT 'a'",
        returns="INT NOT DETERMINISTIC CONTAINS SQL COMMENT 'hello'", body="x + 1")


def test_when_or_where_a_function_was_made_is_not_part_of_its_definition():
    later = [line.replace("15:28:52", "16:00:00").replace("Etc/UTC", "Europe/Paris") for line in LABELLED]
    probe = [line.replace("spark_catalog.default.fx", "ddllog_fn_0123") for line in later]
    assert parse_description(probe) == parse_description(LABELLED)


def test_a_table_function_in_labelled_rows_returns_its_columns_as_a_table():
    rows = ["Function:      spark_catalog.default.ft", "Type:          TABLE", "Input:         x INT",
            "Returns:       a INT   ", "               b STRING", "Deterministic: true",
            "Data Access:   CONTAINS SQL", "Body:          SELECT x,", "               'q'"]
    assert parse_description(rows) == FunctionDefinition(params="x INT", returns="TABLE (a INT, b STRING) CONTAINS SQL",
                                                         body="SELECT x,\n'q'")


def test_spark_40s_json_usage_and_a_class_function_read_as_before():
    usage = {"sqlFunction.returnType": "INT", "sqlFunction.inputParam": "x INT", "sqlFunction.expression": "x + 1",
             "sqlFunction.containsSQL": "true"}
    assert parse_description(["Function: f", f"Usage: {json.dumps(usage)}"]) == FunctionDefinition(
        params="x INT", returns="INT CONTAINS SQL", body="x + 1")
    assert parse_description(["Function: default.g", "Class: com.x.Abs", "Usage: N/A."]) == FunctionDefinition(
        class_name="com.x.Abs")


def test_anything_else_is_an_error_naming_what_it_saw():
    with pytest.raises(CatalogError, match="unexpected DESCRIBE FUNCTION output"):
        parse_description(["Function: f", "Type: SCALAR"])


def test_the_function_info_s_usage_gives_the_parameters_the_labelled_rows_lose():
    """4.1 and later print ``x  INT    'p'`` (no COMMENT keyword; a DEFAULT's end and a comment's start lost); the
    usage of the function's ``ExpressionInfo`` is still the JSON of its properties, on every line."""
    usage = json.dumps({"sqlFunction.returnType": "STRING", "sqlFunction.expression": "y || x",
                        "sqlFunction.inputParam": "x INT COMMENT 'p', y STRING DEFAULT 'd' COMMENT 'q r'"})
    assert usage_definition(usage) == FunctionDefinition(
        params="x INT COMMENT 'p', y STRING DEFAULT 'd' COMMENT 'q r'", returns="STRING", body="y || x")
    assert usage_definition("Usage: not json") is None and usage_definition('{"a": 1}') is None
    assert not described_as_json(LABELLED) and described_as_json(["Class: x", "Usage: {\"a\": 1}"])
