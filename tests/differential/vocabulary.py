"""The words the generator writes with: object names, column names, types (good ones and the ones users try that
Spark 4.0.1 refuses), literals per type (including values that do not fit), comments with quotes and odd bytes.

Kept apart from the grammar (:mod:`tests.differential.grammar`) so the vocabulary of mistakes can grow without
touching the productions. Names deliberately overlap across kinds (a view and a table both called ``t1`` in turn,
a temporary view called like a table) and differ only in case (``T1``), as users' names do.
"""

from __future__ import annotations

import random

TABLES = ("t1", "t2", "t3", "T1")
"""Table names. ``T1`` is ``t1`` to the metastore."""
BAD_TABLES = ("my table", "t-4")
"""Names Spark refuses for metastore tables (INVALID_SCHEMA_OR_RELATION_NAME): a user's mistake, now and then."""
VIEWS = ("v1", "v2", "V2")
TEMP_VIEWS = ("tv", "t1", "v1")
"""Temporary views: ``tv`` of its own, and two that shadow a table's and a view's name."""
FUNCTIONS = ("f1", "f2")
DATABASES = ("x1", "x2")
DATA_COLUMNS = ("a", "b", "c", "Amount", "odd col", "x-y", "d")
PARTITION_COLUMNS = (("p", "INT"), ("q", "STRING"))
FORMATS = ("parquet", "parquet", "json", "orc")

GOOD_TYPES = ("INT", "INT", "BIGINT", "SMALLINT", "STRING", "STRING", "DOUBLE", "DECIMAL(10,2)", "CHAR(3)",
              "VARCHAR(5)", "DATE", "TIMESTAMP", "BOOLEAN", "ARRAY<INT>", "MAP<STRING,INT>",
              "STRUCT<x:INT,y:STRING>")
BAD_TYPES = ("TIME", "DATETIME", "TEXT", "BIT", "INT64", "TIMESTAMPTZ", "DOUBLE PRECISION", "VARCHAR", "NUMBER",
             "STRING(10)")
"""Types from other databases that Spark 4.0.1 refuses (UNSUPPORTED_DATATYPE, DATATYPE_MISSING_SIZE, ...)."""
TYPE_CHANGES = {
    "INT": ("BIGINT", "STRING", "SMALLINT", "DOUBLE", "DECIMAL(10,2)"),
    "BIGINT": ("INT", "STRING", "DOUBLE"),
    "SMALLINT": ("INT", "BIGINT", "STRING"),
    "STRING": ("INT", "VARCHAR(3)", "CHAR(3)", "DATE", "BIGINT"),
    "DOUBLE": ("DECIMAL(10,2)", "INT", "STRING"),
    "DECIMAL(10,2)": ("DOUBLE", "INT", "STRING", "DECIMAL(4,1)"),
    "CHAR(3)": ("STRING", "VARCHAR(5)", "INT"),
    "VARCHAR(5)": ("STRING", "VARCHAR(3)", "CHAR(3)"),
    "DATE": ("STRING", "TIMESTAMP"),
    "TIMESTAMP": ("DATE", "STRING"),
    "BOOLEAN": ("STRING", "INT"),
}
"""ALTER COLUMN TYPE targets per type: widening, narrowing (values may not fit) and conversions through strings."""

COMMENTS = (
    "'plain'",
    "'it\\'s'",
    '"double quoted"',
    "'tab\\there'",
    "'semi;colon -- not a comment'",
    "'back\\\\slash'",
    "'ünïcødé ✓ 😀'",
    "'new\\nline'",
    "''",
    "'it''s'",
)
"""COMMENT strings as users write them; the last one is SQL-standard quote doubling, which Spark does not know."""
PROPERTIES = (("'team'", "'etl'"), ("'k'", "'v'"), ("'note'", "'it\\'s ok'"), ("k2", "'2'"), ("'a.b'", "'c'"))
RESERVED_PROPERTY = ("'owner'", "'etl'")
"""A property Spark reserves (UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY): a user's mistake, now and then."""


def literal(rng: random.Random, type_text: str, *, bad: bool = False) -> str:
    """A literal for a column of ``type_text``; ``bad``: one that does not fit (overflow, too long, not a number)."""
    upper = type_text.upper()
    if rng.random() < 0.08 and not bad:
        return "NULL"
    if upper in ("INT", "BIGINT", "SMALLINT"):
        if bad:
            return rng.choice(("'abc'", "3000000000", "99999999999999999999", "'1.5x'"))
        return str(rng.choice((0, 1, -7, 42, 1000, 32767, 2147483647)))
    if upper == "DOUBLE":
        return rng.choice(("'abc'",)) if bad else rng.choice(("1.5", "-0.25", "1e10", "3"))
    if upper.startswith("DECIMAL"):
        return "123456789012.5" if bad else rng.choice(("1.25", "12.345", "-3", "99.99"))
    if upper.startswith(("CHAR", "VARCHAR")):
        return "'abcdefgh'" if bad else rng.choice(("'ab'", "'abc'", "'x'", "''"))
    if upper == "STRING":
        return rng.choice(("'abc'", "'12'", "'2024-01-02'", "'it\\'s'", "''", "'42'", "'ünï'"))
    if upper == "DATE":
        return "'not a date'" if bad else rng.choice(("DATE'2024-01-02'", "'2023-12-31'"))
    if upper == "TIMESTAMP":
        return "'never'" if bad else rng.choice(("TIMESTAMP'2024-01-02 03:04:05'", "'2024-02-29 00:00:00'"))
    if upper == "BOOLEAN":
        return "'maybe'" if bad else rng.choice(("true", "false"))
    if upper.startswith("ARRAY"):
        return "array('x')" if bad else rng.choice(("array(1, 2)", "array()", "array(3)"))
    if upper.startswith("MAP"):
        return "map(1, 'x')" if bad else rng.choice(("map('k', 1)", "map()"))
    if upper.startswith("STRUCT"):
        return "named_struct('x', 'no', 'y', 1)" if bad else "named_struct('x', 1, 'y', 'z')"
    return "NULL"


def partition_literal(rng: random.Random, type_text: str) -> str:
    """A partition value: few distinct ones, so partitions are shared by statements."""
    return str(rng.choice((1, 2, 3))) if type_text == "INT" else rng.choice(("'x'", "'y'", "'it s'"))


def quote(ident: str) -> str:
    """An identifier as Spark SQL needs it: backquoted when it is not a plain word."""
    return ident if ident.replace("_", "a").isalnum() and not ident[0].isdigit() else f"`{ident}`"
