"""A CREATE TABLE statement's own text, made ready to run under the TMP name (:class:`CreateText`): the front end
hands Spark the author's column list, clauses and query exactly as written, so that whatever the statement says or
leaves to the session is decided by Spark itself, never re-rendered here.

The one thing added is the log's tag property, at a token boundary found over sqlglot's Spark tokens: inside the
statement's own ``TBLPROPERTIES (...)`` group when it has one, else as a ``TBLPROPERTIES`` clause right after the
column list and the ``USING`` data source, which come first (Spark takes the other clauses of CREATE TABLE in any
order), or at the end of a ``LIKE`` form (whose ``TBLPROPERTIES`` comes last)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs
from sqlglot.dialects.spark import Spark
from sqlglot.tokenizer_core import Token, TokenType

from storage.catalogs.interface import CreateText

QUERY_STARTS = frozenset({"SELECT", "WITH", "VALUES", "FROM", "TABLE", "MAP", "REDUCE"})
"""The words a query can start with."""
_WORD_TOKENS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*")
_NOT_WORDS = frozenset({TokenType.STRING, TokenType.IDENTIFIER, TokenType.RAW_STRING, TokenType.NATIONAL_STRING})


def token_words(script: str, token: Token) -> tuple[str, ...]:
    """The upper-cased keyword(s) of a bare word token (``PARTITIONED BY`` can be one token of two words); () for
    strings, backquoted names, numbers and punctuation."""
    if token.token_type in _NOT_WORDS:
        return ()
    source = script[token.start:token.end + 1]
    return tuple(source.upper().split()) if _WORD_TOKENS.fullmatch(source) else ()

GROUP_CLAUSES = frozenset({"OPTIONS", "BY", "TBLPROPERTIES", "SERDEPROPERTIES", "ON", "PARTITIONED", "CLUSTERED"})
"""Words a parenthesised group follows inside the clauses (a group after anything else starts the query)."""


def _group_end(tokens: Sequence[Token], start: int) -> int:
    """The index of the parenthesis that closes the one at ``start``."""
    depth = 0
    for index in range(start, len(tokens)):
        kind = tokens[index].token_type
        depth += 1 if kind is TokenType.L_PAREN else -1 if kind is TokenType.R_PAREN else 0
        if depth == 0:
            return index
    return len(tokens) - 1


def create_text(script: str, tokens: Sequence[Token]) -> CreateText:
    """The :class:`CreateText` of the statement part ``tokens`` (everything after the table name) of ``script``."""
    if not tokens:
        return CreateText("", 0)
    base = tokens[0].start
    body = script[base:tokens[-1].end + 1]

    def words(index: int) -> tuple[str, ...]:
        return token_words(script, tokens[index]) if 0 <= index < len(tokens) else ()

    like = words(0) == ("LIKE",)
    index, insert_at = 0, 0
    if like:
        insert_at = len(body)
    else:
        if tokens[0].token_type is TokenType.L_PAREN and not (words(1) and words(1)[0] in QUERY_STARTS):
            index = _group_end(tokens, 0) + 1
        if words(index) == ("USING",):  # the data source comes before the clauses: USING name(.name)*
            index += 2
            while index + 1 < len(tokens) and tokens[index].token_type is TokenType.DOT:
                index += 2
        insert_at = tokens[index - 1].end + 1 - base if index else 0
    while index < len(tokens):
        token, said = tokens[index], words(index)
        if said == ("AS",) and words(index - 1) != ("STORED",):
            break  # the query
        if said and said[0] in QUERY_STARTS and not like:
            break
        if token.token_type is TokenType.L_PAREN:
            if not (words(index - 1) and words(index - 1)[-1] in GROUP_CLAUSES) and not like:
                break  # a parenthesised query
            end = _group_end(tokens, index)
            if words(index - 1) == ("TBLPROPERTIES",):
                return CreateText(body, tokens[end].start - base, in_group=True, group_empty=end == index + 1)
            index = end + 1
            continue
        index += 1
    return CreateText(body, insert_at)


def create_text_of(body: str) -> CreateText:
    """The :class:`CreateText` of a statement body built by the Python API (its literals escaped)."""
    return attrs.evolve(create_text(body, list(Spark().tokenize(body))), escaped=True)
