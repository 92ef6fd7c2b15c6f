"""Statement texts written to the binlog for calls made through the Python API (quoted, canonical)."""

from __future__ import annotations

from storage.catalog import TableSpec
from storage.names import TableName, quote_ident


def sql_string(value: str) -> str:
    """A Spark SQL string literal: backslash and quote escaped."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def create_table_text(name: TableName, spec: TableSpec, *, or_replace: bool, if_not_exists: bool = False) -> str:
    head = "CREATE OR REPLACE TABLE" if or_replace else "CREATE TABLE"
    if if_not_exists:
        head += " IF NOT EXISTS"
    parts = [head, name.quoted]
    if spec.like is not None:
        parts += ["LIKE", spec.like.quoted]
        return " ".join(parts)
    if spec.columns is not None:
        columns = ", ".join(
            f"{quote_ident(c.name)} {c.type}" + (f" COMMENT {sql_string(c.comment)}" if c.comment else "")
            for c in spec.columns
        )
        parts.append(f"({columns})")
    parts += ["USING", quote_ident(spec.using)]
    if spec.partitioned_by:
        parts.append("PARTITIONED BY (" + ", ".join(quote_ident(c) for c in spec.partitioned_by) + ")")
    if spec.comment:
        parts += ["COMMENT", sql_string(spec.comment)]
    if spec.properties:
        parts.append(
            "TBLPROPERTIES (" + ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in spec.properties) + ")"
        )
    if spec.as_select is not None:
        parts += ["AS", spec.as_select]
    elif spec.df is not None:
        parts.append("AS /* DataFrame */")
    return " ".join(parts)
