"""Where a SQL text names objects, as a parser resolves it (Spark's own through the session,
:mod:`storage.catalogs.spark.sql.parsed_references`, or sqlglot's where no session is there): the relations (with
whether
they carry an alias), the column and star references, the functions, each with the exact positions of its name's
parts in the text. What ``--rewrite-db`` renames is decided over these (:mod:`ddl_log.replication.rewrite`), never
over tokens that merely look like a database's name."""

from __future__ import annotations

from typing import Literal

import attrs
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from storage.catalogs.names import SESSION_CATALOG, TableName

Kind = Literal["relation", "attribute", "function"]


@attrs.frozen
class NamePart:
    """One part of a multi-part name: its text (backquotes removed) and where it is written (``end`` exclusive)."""

    text: str
    start: int
    end: int


@attrs.frozen
class Reference:
    """A name the text uses: a ``relation`` (``aliased``: ``t AS x``, whose columns are then ``x.c``), an
    ``attribute`` (a column, a struct field, or ``q.*``), or a ``function``."""

    kind: Kind
    parts: tuple[NamePart, ...]
    aliased: bool = False


def identifier_parts(text: str, start: int) -> tuple[NamePart, ...]:
    """The dotted identifier that begins at ``start`` of ``text``: bare words or backquoted names (doubled
    backquotes inside), dots between them with blanks around; it ends before anything else (``(``, ``*``, ...)."""
    parts: list[NamePart] = []
    at = start
    while True:
        at = _skip_blanks(text, at)
        if at < len(text) and text[at] == "`":
            end, value = _quoted(text, at)
        else:
            end = at
            while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
                end += 1
            value = text[at:end]
        if end == at:
            return tuple(parts)
        parts.append(NamePart(value, at, end))
        dot = _skip_blanks(text, end)
        if dot >= len(text) or text[dot] != ".":
            return tuple(parts)
        at = dot + 1


def _skip_blanks(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _quoted(text: str, at: int) -> tuple[int, str]:
    value, index = [], at + 1
    while index < len(text):
        if text[index] == "`":
            if text[index + 1:index + 2] == "`":
                value.append("`")
                index += 2
                continue
            return index + 1, "".join(value)
        value.append(text[index])
        index += 1
    return at, ""  # unclosed: not a name


def like_source(text: str) -> Reference | None:
    """The LIKE source of a CREATE TABLE body (``LIKE src ...``), which Spark's plan keeps without its position."""
    stripped = len(text) - len(text.lstrip())
    if text[stripped:stripped + 4].upper() != "LIKE" or not text[stripped + 4:stripped + 5].isspace():
        return None
    parts = identifier_parts(text, stripped + 4)
    return Reference("relation", parts) if parts else None


def sqlglot_references(text: str, expression: bool = False) -> list[Reference]:
    """The relation and column references of ``text`` as sqlglot's Spark parser reads it (where no Spark session is
    there to ask, or where a millisecond matters); its parse error when it does not parse. A common table
    expression's name read in the text is no relation."""
    tree = sqlglot.parse_one(text, read="spark")
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    found = []
    for node in tree.find_all(exp.Table, exp.Column):
        if isinstance(node, exp.Table) and not node.db and node.name.lower() in ctes:
            continue  # a common table expression's name, no relation of a catalog
        named = node.parts if isinstance(node, exp.Table | exp.Column) else []
        parts = tuple(NamePart(part.name, int(part.meta["start"]), int(part.meta["end"]) + 1)
                      for part in named if isinstance(part, exp.Identifier) and "start" in part.meta)
        if isinstance(node, exp.Table):
            found.append(Reference("relation", parts, aliased=bool(node.alias)))
        else:
            found.append(Reference("attribute", parts))
    return found


def sqlglot_relations(text: str, default_db: str) -> list[TableName] | None:
    """The session catalog's relations ``text`` names as sqlglot's Spark parser reads it (:func:`session_relations`);
    None when sqlglot cannot parse it."""
    try:
        return session_relations(sqlglot_references(text), default_db)
    except SqlglotError:
        return None


def session_relations(references: list[Reference], default_db: str) -> list[TableName]:
    """The session catalog's relations among ``references``, as Spark resolves them: ``t`` in ``default_db``,
    ``db.t``, ``spark_catalog.db.t`` (a name of another catalog is none of the session catalog's)."""
    found = []
    for reference in references:
        parts = [part.text.lower() for part in reference.parts]
        if reference.kind != "relation" or not parts:
            continue
        if len(parts) == 3 and parts[0] == SESSION_CATALOG:
            parts = parts[1:]
        if len(parts) == 1:
            found.append(TableName(default_db.lower(), parts[0]))
        elif len(parts) == 2:
            found.append(TableName(parts[0], parts[1]))
    return found
