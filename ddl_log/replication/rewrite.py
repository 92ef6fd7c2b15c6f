"""``--rewrite-db src=dst``: a replica keeps a source database under another name (in the same metastore, beside the
source). Names are rewritten in the *typed* statement the SQL front end read from the event, never in the event's
text: every :class:`~storage.catalogs.names.TableName` of the statement, a database statement's name, and the
references inside the SQL texts a statement carries (a query, a view's query, a SQL function's body, a CREATE
TABLE's own text with all its clauses), found by Spark's own parser through the replica's session
(:mod:`storage.catalogs.spark.sql.parsed_references`; sqlglot's Spark parser where there is no session) and renamed as
Spark resolves the names (:func:`spans`), at their own positions, so the rest of the text stays exactly as written.
A text the parser cannot read is refused (:class:`RewriteError`), never passed on unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import sqlglot
from sqlglot.errors import SqlglotError

from ddl_log.engine.schema_swap import SwapSchemas
from ddl_log.engine.tables import CreateDatabase, DropDatabase
from ddl_log.replication.errors import RewriteError
from storage.catalogs.interface import CreateText, TableSpec
from storage.catalogs.name_references import NamePart, Reference, like_source, sqlglot_references
from storage.catalogs.names import SESSION_CATALOG, TableName, quote_ident

QUERY_FIELDS = frozenset({"as_select", "query", "body"})
"""Fields of statements and definitions that hold SQL text naming tables."""


def rewrite_name(name: TableName, mapping: Mapping[str, str]) -> TableName:
    return TableName(mapping.get(name.db, name.db), name.name)


Finder = Callable[[str, bool], list[Reference]]
"""A parser's references of a text (``True``: an expression, not a statement); raises when it cannot read it."""


def session_finder(spark: Any) -> Finder | None:
    """Spark's own parser of ``spark`` (None: no session, or Spark Connect, which has none here: sqlglot's then)."""
    if spark is None:
        return None
    from storage.catalogs.spark.profile import is_classic  # Spark's modules only where Spark runs
    from storage.catalogs.spark.sql.parsed_references import spark_references

    if not is_classic(spark):
        return None

    return lambda text, expression: spark_references(spark, text, expression=expression)


def mentions(text: str, mapping: Mapping[str, str]) -> bool:
    """Whether an identifier of ``text`` is one of the databases ``mapping`` renames (a fast check before parsing;
    True when the text does not even tokenize)."""
    try:
        tokens = sqlglot.tokenize(text, read="spark")
    except SqlglotError:
        return True
    return any(token.text.lower() in mapping for token in tokens if token.token_type != sqlglot.TokenType.STRING)


def spans(references: list[Reference], mapping: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """Where a database ``mapping`` renames is named, as Spark resolves the names: the database part of a relation
    (``db.t``, ``spark_catalog.db.t``) or of a function (``db.f(...)``); the first part of a column or star reference
    ``db.t.c`` / ``db.t.*`` only while the text reads ``db.t`` as a relation without an alias (Spark qualifies its
    columns so; with ``t AS db`` the same words are an alias, a column and a field, and stay as they are)."""
    def unqualified(parts: tuple[NamePart, ...]) -> tuple[NamePart, ...]:
        return parts[1:] if len(parts) >= 3 and parts[0].text.lower() == SESSION_CATALOG else parts

    relations = {(p[-2].text.lower(), p[-1].text.lower()) for r in references if r.kind == "relation"
                 and not r.aliased and len(p := unqualified(r.parts)) >= 2}
    found = []
    for reference in references:
        parts = unqualified(reference.parts)
        if reference.kind in ("relation", "function") and len(parts) >= 2:
            part = parts[-2]
        elif reference.kind == "attribute" and len(parts) >= 2 and (
                parts[0].text.lower(), parts[1].text.lower()) in relations:
            part = parts[0]
        else:
            continue
        if part.text.lower() in mapping:
            found.append((part.start, part.end, mapping[part.text.lower()]))
    return sorted(set(found))


def rewrite_query(text: str, mapping: Mapping[str, str], *, what: str, finder: Finder | None = None) -> str:
    """``text`` (a query, a view's query, a SQL function's body) with the database part of each reference that
    ``mapping`` renames replaced at its position (:func:`spans`), as ``finder`` (default: sqlglot's) reads it."""
    if not mapping or not mentions(text, mapping):
        return text
    return _replaced(text, _references(text, what, finder or sqlglot_references), mapping)


def rewrite_create_text(text: CreateText, mapping: Mapping[str, str], *, what: str,
                        finder: Finder | None = None) -> CreateText:
    """A CREATE TABLE statement's own text (all its clauses: OPTIONS, bucketing, DEFAULT ...) with its references
    renamed: read as the whole statement, and its LIKE source (which Spark's plan keeps without its position)."""
    if not mapping or not mentions(text.body, mapping):
        return text
    head = "CREATE TABLE `x` "
    found = [attrs.evolve(reference, parts=tuple(attrs.evolve(part, start=part.start - len(head),
                                                                end=part.end - len(head)) for part in reference.parts))
             for reference in _references(head + text.body, what, finder or sqlglot_references)]
    like = like_source(text.body)
    references = [r for r in found if all(part.start >= 0 for part in r.parts)] + ([like] if like else [])
    places = spans(references, mapping)
    body = _replaced(text.body, references, mapping)
    shift = sum(len(quote_ident(target)) - (end - start) for start, end, target in places if end <= text.insert_at)
    return attrs.evolve(text, body=body, insert_at=text.insert_at + shift)


def _references(text: str, what: str, finder: Finder) -> list[Reference]:
    try:
        return finder(text, False)
    except Exception as first:  # noqa: BLE001 - a parser's refusal, of any kind: try it as an expression
        try:
            return finder(text, True)
        except Exception:  # noqa: BLE001 - neither: the text is not rewritten, and not applied
            raise RewriteError(what, f"its SQL cannot be read to rewrite database names ({str(first)[:200]})"
                               ) from None


def _replaced(text: str, references: list[Reference], mapping: Mapping[str, str]) -> str:
    for start, end, target in reversed(spans(references, mapping)):
        text = text[:start] + quote_ident(target) + text[end:]
    return text


def rewrite_statement(statement: Any, mapping: Mapping[str, str], finder: Finder | None = None) -> Any:
    """The statement (or any part of one) with the databases of ``mapping`` renamed, ``text`` left to the caller;
    ``finder``: the parser that reads its SQL texts (Spark's through the session where there is one)."""
    if not mapping:
        return statement
    return _rewrite(statement, mapping, str(getattr(statement, "label", "statement")), finder)


def _rewrite(value: Any, mapping: Mapping[str, str], what: str, finder: Finder | None) -> Any:
    if isinstance(value, TableName):
        return rewrite_name(value, mapping)
    if isinstance(value, CreateDatabase | DropDatabase):
        return attrs.evolve(value, name=mapping.get(value.name, value.name))
    if isinstance(value, SwapSchemas):
        return attrs.evolve(value, first=mapping.get(value.first, value.first),
                            second=mapping.get(value.second, value.second))
    if isinstance(value, tuple):
        return tuple(_rewrite(item, mapping, what, finder) for item in value)
    if isinstance(value, list):
        return [_rewrite(item, mapping, what, finder) for item in value]
    if isinstance(value, dict):
        return {key: _rewrite(item, mapping, what, finder) for key, item in value.items()}
    if not attrs.has(type(value)):
        return value
    changes: dict[str, Any] = {}
    for field in attrs.fields(type(value)):
        if not field.init or field.name == "text" or not field.eq:
            continue
        current = getattr(value, field.name)
        if field.name in QUERY_FIELDS and isinstance(current, str):
            new = rewrite_query(current, mapping, what=what, finder=finder)
        else:
            new = _rewrite(current, mapping, what, finder)
        if new is not current and new != current:
            changes[field.alias or field.name] = new
    if isinstance(value, TableSpec) and value.text is not None:  # the statement as written: every clause kept
        written = rewrite_create_text(value.text, mapping, what=what, finder=finder)
        if written != value.text:
            changes["text"] = written
    return attrs.evolve(value, **changes) if changes else value
