"""Where a SQL text names objects, as a parser resolves it (Spark's own through the session,
:mod:`storage.catalogs.spark.sql.parsed_references`, or sqlglot's where no session is there): the relations (with
whether
they carry an alias), the column and star references, the functions, each with the exact positions of its name's
parts in the text. What ``--rewrite-db`` renames is decided over these (:mod:`ddl_log.replication.rewrite`), never
over tokens that merely look like a database's name."""

from __future__ import annotations

from typing import Literal

import attrs

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
