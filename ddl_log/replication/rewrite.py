"""``--rewrite-db src=dst``: a replica keeps a source database under another name (in the same metastore, beside the
source). Names are rewritten in the *typed* statement the SQL front end read from the event, never in the event's
text: every :class:`~storage.catalogs.names.TableName` of the statement, a database statement's name, and the table
references inside the SQL texts a statement carries (a query, a view's query, a SQL function's body), found by
sqlglot's Spark parser as table references (a ``db`` part of a table or of a column), and replaced at their own
positions, so the rest of the text stays exactly as written. A text the parser cannot read is refused
(:class:`RewriteError`), never passed on unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ddl_log.engine.tables import CreateDatabase, DropDatabase
from ddl_log.replication.errors import RewriteError
from storage.catalogs.interface import TableSpec
from storage.catalogs.names import TableName, quote_ident

QUERY_FIELDS = frozenset({"as_select", "query", "body"})
"""Fields of statements and definitions that hold SQL text naming tables."""


def rewrite_name(name: TableName, mapping: Mapping[str, str]) -> TableName:
    return TableName(mapping.get(name.db, name.db), name.name)


def mentions(text: str, mapping: Mapping[str, str]) -> bool:
    """Whether an identifier of ``text`` is one of the databases ``mapping`` renames (a fast check before parsing;
    True when the text does not even tokenize)."""
    try:
        tokens = sqlglot.tokenize(text, read="spark")
    except SqlglotError:
        return True
    return any(token.text.lower() in mapping for token in tokens if token.token_type != sqlglot.TokenType.STRING)


def rewrite_query(text: str, mapping: Mapping[str, str], *, what: str) -> str:
    """``text`` with the database part of each table (and column) reference that ``mapping`` renames replaced."""
    if not mapping or not mentions(text, mapping):
        return text
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError as error:
        raise RewriteError(what, f"its SQL cannot be read to rewrite database names ({str(error)[:200]})") from None
    spans: list[tuple[int, int, str]] = []
    for node in tree.find_all(exp.Table, exp.Column):
        part = node.args.get("db")
        if not isinstance(part, exp.Identifier) or part.name.lower() not in mapping:
            continue
        start, end = part.meta.get("start"), part.meta.get("end")
        if start is None or end is None:
            raise RewriteError(what, f"the position of the database name {part.name!r} is unknown")
        spans.append((int(start), int(end), mapping[part.name.lower()]))
    for start, end, target in sorted(spans, reverse=True):
        text = text[:start] + quote_ident(target) + text[end + 1:]
    return text


def rewrite_statement(statement: Any, mapping: Mapping[str, str]) -> Any:
    """The statement (or any part of one) with the databases of ``mapping`` renamed, ``text`` left to the caller."""
    if not mapping:
        return statement
    return _rewrite(statement, mapping, str(getattr(statement, "label", "statement")))


def _rewrite(value: Any, mapping: Mapping[str, str], what: str) -> Any:
    if isinstance(value, TableName):
        return rewrite_name(value, mapping)
    if isinstance(value, CreateDatabase | DropDatabase):
        return attrs.evolve(value, name=mapping.get(value.name, value.name))
    if isinstance(value, tuple):
        return tuple(_rewrite(item, mapping, what) for item in value)
    if isinstance(value, list):
        return [_rewrite(item, mapping, what) for item in value]
    if isinstance(value, dict):
        return {key: _rewrite(item, mapping, what) for key, item in value.items()}
    if not attrs.has(type(value)):
        return value
    changes: dict[str, Any] = {}
    for field in attrs.fields(type(value)):
        if not field.init or field.name == "text" or not field.eq:
            continue
        current = getattr(value, field.name)
        if field.name in QUERY_FIELDS and isinstance(current, str):
            new = rewrite_query(current, mapping, what=what)
        else:
            new = _rewrite(current, mapping, what)
        if new is not current and new != current:
            changes[field.alias or field.name] = new
    if isinstance(value, TableSpec) and value.text is not None and mentions(value.text.body, mapping):
        changes["text"] = None  # the statement as written names the old database: the spec's fields say it all
    return attrs.evolve(value, **changes) if changes else value
