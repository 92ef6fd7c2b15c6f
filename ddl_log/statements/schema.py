"""Column lists from users, parsed with sqlglot (Spark dialect) into ``Column`` records, so
that no user text is ever spliced into SQL: names are re-quoted, types re-rendered from the parse tree."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from ddl_log.errors import InvalidSchemaError
from storage.catalogs.interface import Column

SchemaLike = str | Iterable[Column] | Iterable[tuple[str, str]] | Any
"""A DDL string ``"a INT, b STRING COMMENT 'x'"``, Columns, (name, type) pairs, or a pyspark StructType."""


def parse_schema(schema: SchemaLike) -> tuple[Column, ...]:
    if isinstance(schema, str):
        columns = _parse_ddl(schema)
    elif hasattr(schema, "fields"):  # pyspark StructType, classic or Connect
        columns = tuple(
            Column(field.name, field.dataType.simpleString(), (field.metadata or {}).get("comment"))
            for field in schema.fields
        )
    else:
        columns = tuple(item if isinstance(item, Column) else Column(str(item[0]), str(item[1])) for item in schema)
    if not columns:
        raise InvalidSchemaError("a table needs at least one column", "")
    seen: set[str] = set()
    for column in columns:
        if not column.name.strip():
            raise InvalidSchemaError("empty column name", column.name)
        if column.name.lower() in seen:
            raise InvalidSchemaError(f"duplicate column {column.name!r}", column.name)
        seen.add(column.name.lower())
        check_type(column.type, column.name)
    return columns


def _parse_ddl(text: str) -> tuple[Column, ...]:
    try:
        tree = sqlglot.parse_one(f"CREATE TABLE t ({text})", dialect="spark")
    except ParseError as exc:
        raise InvalidSchemaError(f"cannot parse column list {text!r}: {_first_error(exc)}", text) from exc
    schema = tree.this if isinstance(tree, exp.Create) else None
    if not isinstance(schema, exp.Schema):
        raise InvalidSchemaError(f"cannot parse column list {text!r}", text)
    columns: list[Column] = []
    for definition in schema.expressions:
        if not isinstance(definition, exp.ColumnDef) or definition.args.get("kind") is None:
            raise InvalidSchemaError(f"not a column definition: {definition.sql(dialect='spark')!r}", text)
        comment = None
        for constraint in definition.args.get("constraints") or []:
            if isinstance(constraint.kind, exp.CommentColumnConstraint):
                comment = constraint.kind.this.name
            else:
                raise InvalidSchemaError(
                    f"column option {constraint.sql(dialect='spark')!r} is not supported", definition.name
                )
        columns.append(Column(definition.name, definition.args["kind"].sql(dialect="spark"), comment))
    return tuple(columns)


def check_type(type_text: str, column: str) -> None:
    """Re-parse a type on its own: it must be a single data type, never a smuggled clause."""
    try:
        parsed = exp.DataType.build(type_text, dialect="spark")
    except (ParseError, ValueError) as exc:
        raise InvalidSchemaError(f"column {column!r}: invalid type {type_text!r}", column) from exc
    if parsed.is_type(exp.DataType.Type.USERDEFINED):
        raise InvalidSchemaError(f"column {column!r}: unknown type {type_text!r}", column)


def _first_error(exc: ParseError) -> str:
    if exc.errors:
        first = exc.errors[0]
        return f"{first.get('description')} at line {first.get('line')}, column {first.get('col')}"
    return str(exc)
