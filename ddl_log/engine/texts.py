"""Statement texts written to the binlog for calls made through the Python API (quoted, canonical)."""

from __future__ import annotations

from collections.abc import Mapping

from storage.catalogs.interface import TableSpec
from storage.catalogs.names import TableName, quote_ident


def sql_string(value: str) -> str:
    """A Spark SQL string literal: backslash and quote escaped, ``$`` written ``\\u0024`` (Spark substitutes
    ``${...}`` in the whole statement text); needs ``spark.sql.parser.escapedStringLiterals=false``, Spark's default,
    which the engine checks before it runs a text built here (:attr:`CreateText.escaped`)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'").replace("$", "\\u0024") + "'"


def partition_text(spec: Mapping[str, str]) -> str:
    """``PARTITION (`p` = 'v', ...)``: a spec of static values (some or all partition columns)."""
    return "PARTITION (" + ", ".join(f"{quote_ident(k)} = {sql_string(v)}" for k, v in spec.items()) + ")"


def create_table_text(name: TableName, spec: TableSpec, *, or_replace: bool, if_not_exists: bool = False) -> str:
    """The statement of a Python API call as the binlog records it (a DataFrame's query as a comment)."""
    head = "CREATE OR REPLACE TABLE" if or_replace else "CREATE TABLE"
    if if_not_exists:
        head += " IF NOT EXISTS"
    if spec.text is not None:
        return f"{head} {name.quoted} {spec.text.body}"
    return f"{head} {name.quoted} {create_body(spec, '/* DataFrame */')}"


def columns_sql(spec: TableSpec, schema_text: str | None) -> str:
    """The column list: the caller's own text when it gave one (passed on as written, inside parentheses on lines
    of their own so that a trailing comment cannot reach past it), else the parsed columns."""
    if schema_text is not None:
        return f"(\n{schema_text}\n)" if "--" in schema_text else f"({schema_text})"
    assert spec.columns is not None
    return "(" + ", ".join(
        f"{quote_ident(c.name)} {c.type}" + (f" COMMENT {sql_string(c.comment)}" if c.comment is not None else "")
        for c in spec.columns) + ")"


def create_body(spec: TableSpec, query: str | None = None, *, schema_text: str | None = None) -> str:
    """What follows the table name in the CREATE statement of ``spec`` (the Python API's forms; ``query``: the text
    after ``AS`` when ``spec`` has none of its own). No ``USING`` when ``spec.using`` is None: the session's
    ``spark.sql.sources.default`` decides, as it does for Spark's own statement."""
    if spec.like is not None:
        return f"LIKE {spec.like.quoted}"
    parts = []
    if spec.columns is not None:
        parts.append(columns_sql(spec, schema_text))
    if spec.using is not None:
        parts += ["USING", spec.using]
    if spec.partitioned_by:
        parts.append("PARTITIONED BY (" + ", ".join(quote_ident(c) for c in spec.partitioned_by) + ")")
    if spec.comment is not None:
        parts += ["COMMENT", sql_string(spec.comment)]
    if spec.properties:
        parts.append(
            "TBLPROPERTIES (" + ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in spec.properties) + ")"
        )
    select = spec.as_select if spec.as_select is not None else query
    if select is not None:
        parts += ["AS", select]
    return " ".join(parts)


def rename_tables_text(pairs: list[tuple[TableName, TableName]]) -> str:
    return "RENAME TABLE " + ", ".join(f"{old.quoted} TO {new.quoted}" for old, new in pairs)


def drop_text(kind: str, names: list[TableName], *, if_exists: bool) -> str:
    return f"DROP {kind} " + ("IF EXISTS " if if_exists else "") + ", ".join(name.quoted for name in names)


def drop_database_text(db: str, *, if_exists: bool, cascade: bool) -> str:
    return "DROP DATABASE " + ("IF EXISTS " if if_exists else "") + quote_ident(db) + (" CASCADE" if cascade else "")


def view_text(name: TableName, query: str, *, or_replace: bool, comment: str | None,
              columns: tuple[str, ...], properties: tuple[tuple[str, str], ...] = (),
              schema_mode: str | None = None) -> str:
    head = "CREATE OR REPLACE VIEW " if or_replace else "CREATE VIEW "
    cols = f" ({', '.join(quote_ident(c) for c in columns)})" if columns else ""
    note = f" COMMENT {sql_string(comment)}" if comment else ""
    props = (" TBLPROPERTIES (" + ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in properties) + ")"
             if properties else "")
    mode = f" WITH SCHEMA {schema_mode}" if schema_mode else ""
    return f"{head}{name.quoted}{cols}{note}{mode}{props} AS {query}"


def function_text(name: TableName, class_name: str, resources: tuple[tuple[str, str], ...], *,
                  or_replace: bool) -> str:
    head = "CREATE OR REPLACE FUNCTION " if or_replace else "CREATE FUNCTION "
    using = ""
    if resources:
        using = " USING " + ", ".join(f"{kind.upper()} {sql_string(uri)}" for kind, uri in resources)
    return f"{head}{name.quoted} AS {sql_string(class_name)}{using}"
