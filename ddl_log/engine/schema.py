"""Column lists from users: parsed with sqlglot (Spark dialect) into ``Column`` records that describe them (the
in-memory catalog, the checks), and handed to Spark as written, once they are known to be a column list and nothing
more (:func:`check_column_list`): Spark alone decides what a type, NOT NULL or DEFAULT means."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.tokenizer_core import TokenType

from ddl_log.engine.texts import create_body
from ddl_log.errors import InvalidSchemaError
from storage.catalogs.create_text import create_text_of
from storage.catalogs.interface import Column, CreateText, TableSpec
from storage.catalogs.names import TableName
from storage.errors import InvalidNameError, ObjectExistsError

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
            raise ObjectExistsError.column(f"the column {column.name!r} already exists (named twice)", column.name)
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
            # NOT NULL, DEFAULT, GENERATED ...: the column list goes to Spark as written, which decides
        columns.append(Column(definition.name, definition.args["kind"].sql(dialect="spark"), comment))
    return tuple(columns)


def check_column_list(text: str) -> None:
    """Refuse a column list text that reaches past its own parentheses (``a INT) USING json (b INT``): its
    parentheses must never close more than they opened."""
    depth = 0
    try:
        tokens = sqlglot.tokenize(text, read="spark")
    except sqlglot.errors.TokenError as exc:
        raise InvalidSchemaError(f"cannot read column list {text!r}: {exc}", text) from exc
    for token in tokens:
        if token.token_type is TokenType.L_PAREN:
            depth += 1
        elif token.token_type is TokenType.R_PAREN:
            depth -= 1
            if depth < 0:
                raise InvalidSchemaError(f"column list {text!r} closes a parenthesis it did not open", text)
    if depth:
        raise InvalidSchemaError(f"column list {text!r} leaves a parenthesis open", text)


def check_type(type_text: str, column: str) -> None:
    """Re-parse a type on its own: it must be a single data type, never a smuggled clause."""
    try:
        parsed = exp.DataType.build(type_text, dialect="spark")
    except (ParseError, ValueError) as exc:
        raise InvalidSchemaError(f"column {column!r}: invalid type {type_text!r}", column) from exc
    if parsed.is_type(exp.DataType.Type.USERDEFINED):
        raise InvalidSchemaError(f"column {column!r}: unknown type {type_text!r}", column)


def same_type(current: str, wanted: str) -> bool:
    """Whether two type texts name one Spark type (``int`` and ``INTEGER``, ``decimal(10,2)`` and
    ``DECIMAL(10, 2)``); text that does not parse compares as written, case aside."""
    try:
        return bool(exp.DataType.build(current, dialect="spark") == exp.DataType.build(wanted, dialect="spark"))
    except (ParseError, ValueError):
        return current.strip().lower() == wanted.strip().lower()


def _first_error(exc: ParseError) -> str:
    if exc.errors:
        first = exc.errors[0]
        return f"{first.get('description')} at line {first.get('line')}, column {first.get('col')}"
    return str(exc)


def table_spec(*, schema: SchemaLike | None = None, like: str | TableName | None = None, as_select: str | None = None,
               df: Any = None, using: str | None = None, partitioned_by: Iterable[str] = (),
               properties: dict[str, str] | None = None, comment: str | None = None,
               text: CreateText | None = None) -> TableSpec:
    """The :class:`TableSpec` of a Python API call (or of a statement as written, ``text``): exactly one of
    ``schema``, ``like``, ``as_select``, ``df``. Unless a DataFrame is written (through a temporary view, named when
    it runs), the spec carries the CREATE text Spark runs: the caller's column list and query as given, the clauses
    built from the other arguments, no ``USING`` when ``using`` is None (the session's default data source)."""
    given = [label for label, value in (("schema", schema), ("like", like), ("as_select", as_select),
                                        ("df", df)) if value is not None]
    if len(given) != 1 and text is None:
        raise InvalidNameError(f"give exactly one of schema, like, as_select, df (got {given or 'none'})", "")
    if as_select is not None and not as_select.strip():
        raise InvalidNameError("as_select is empty", "")
    spec = TableSpec(
        columns=parse_schema(schema) if schema is not None else None,
        like=TableName.of(like) if like is not None else None,
        as_select=as_select.strip().rstrip(";").rstrip() if as_select is not None else None,
        df=df,
        using=using,
        partitioned_by=tuple(partitioned_by),
        properties=tuple(sorted((properties or {}).items())),
        comment=comment,
    )
    for name in [*(c.name for c in spec.columns or ()), *spec.partitioned_by]:
        if "${" in name:
            raise InvalidNameError(f"column names containing '${{' are not supported (Spark would substitute them): "
                                   f"{name!r}", name)
    if isinstance(schema, str):
        check_column_list(schema)
    if text is None and df is None:
        text = create_text_of(create_body(spec, schema_text=schema if isinstance(schema, str) else None))
    return attrs.evolve(spec, text=text)
