"""Statement texts written to the binlog for calls made through the Python API (quoted, canonical)."""

from __future__ import annotations

from storage.catalogs.interface import TableSpec
from storage.catalogs.names import TableName, quote_ident


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


def rename_tables_text(pairs: list[tuple[TableName, TableName]]) -> str:
    return "RENAME TABLE " + ", ".join(f"{old.quoted} TO {new.quoted}" for old, new in pairs)


def drop_text(kind: str, names: list[TableName], *, if_exists: bool) -> str:
    return f"DROP {kind} " + ("IF EXISTS " if if_exists else "") + ", ".join(name.quoted for name in names)


def drop_database_text(db: str, *, if_exists: bool, cascade: bool) -> str:
    return "DROP DATABASE " + ("IF EXISTS " if if_exists else "") + quote_ident(db) + (" CASCADE" if cascade else "")


def view_text(name: TableName, query: str, *, or_replace: bool, comment: str | None,
              columns: tuple[str, ...]) -> str:
    head = "CREATE OR REPLACE VIEW " if or_replace else "CREATE VIEW "
    cols = f" ({', '.join(quote_ident(c) for c in columns)})" if columns else ""
    note = f" COMMENT {sql_string(comment)}" if comment else ""
    return f"{head}{name.quoted}{cols}{note} AS {query}"


def function_text(name: TableName, class_name: str, resources: tuple[tuple[str, str], ...], *,
                  or_replace: bool) -> str:
    head = "CREATE OR REPLACE FUNCTION " if or_replace else "CREATE FUNCTION "
    using = ""
    if resources:
        using = " USING " + ", ".join(f"{kind.upper()} {sql_string(uri)}" for kind, uri in resources)
    return f"{head}{name.quoted} AS {sql_string(class_name)}{using}"
