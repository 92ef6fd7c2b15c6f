"""Validation: every statement is parsed with sqlglot's Spark parser before anything of the script runs; its first
error becomes a :class:`SqlParseError` at that position."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import Token, TokenType

from ddl_log.errors import SqlParseError
from ddl_log.frontends.sql.tokens import DIALECT, line_col, source_text, token_words


@contextmanager
def quiet_sqlglot() -> Iterator[None]:
    """sqlglot logs a warning for every statement it keeps as an opaque command; those are expected here."""
    logger = logging.getLogger("sqlglot")
    silence = logging.Filter("-")  # matches no logger name: drops every record
    logger.addFilter(silence)
    try:
        yield
    finally:
        logger.removeFilter(silence)


def validate(script: str, tokens: Sequence[Token]) -> None:
    """Parse with sqlglot (Spark dialect); its first error becomes a :class:`SqlParseError` at that position."""
    if (_own_form([token_words(script, t) for t in tokens[:3]]) or is_describe_history(script, tokens)
            or _swap_form(script, tokens)):
        return  # neither Spark nor sqlglot knows it: the router reads it whole (ddl_log.frontends.sql.router)
    tokens = _for_sqlglot(script, list(tokens))
    try:
        with quiet_sqlglot():
            DIALECT.parser().parse(tokens, script)
    except ParseError as exc:
        raise _parse_error(script, exc, tokens[-1]) from None


def _own_form(words: list[tuple[str, ...]]) -> bool:
    """RESTORE TABLE, UNDROP TABLE, DESCRIBE HISTORY, SHOW TABLES DROPPED, RELEASE TABLE NAME: the table versions'
    statements."""
    heads = [word[0] if word else "" for word in words]
    return (heads[:2] in (["RESTORE", "TABLE"], ["UNDROP", "TABLE"])
            or heads in (["SHOW", "TABLES", "DROPPED"], ["RELEASE", "TABLE", "NAME"]))


def is_describe_history(script: str, tokens: Sequence[Token]) -> bool:
    """``DESC[RIBE] HISTORY <one name>`` and nothing else: Delta's form of DESCRIBE HISTORY. Not ``DESCRIBE
    history`` (Spark's DESCRIBE of a table ``history``), ``DESCRIBE history.t`` (of a table of the database
    ``history``) nor ``DESCRIBE history PARTITION ...`` or ``... AS JSON`` (Spark's, with more clauses)."""
    words = [token_words(script, token) for token in tokens]
    if len(tokens) < 3 or words[0] not in (("DESCRIBE",), ("DESC",)) or words[1] != ("HISTORY",):
        return False
    at = 2
    while True:  # a name: parts separated by dots, each a word or a backquoted identifier
        if tokens[at].token_type is not TokenType.IDENTIFIER and len(words[at]) != 1:
            return False
        at += 1
        if at == len(tokens):
            return True
        if tokens[at].token_type is not TokenType.DOT or at + 1 == len(tokens):
            return False
        at += 1


def _swap_form(script: str, tokens: Sequence[Token]) -> bool:
    """ALTER TABLE a SWAP WITH b and ALTER SCHEMA (DATABASE, NAMESPACE) a SWAP WITH b (Snowflake's forms, read by
    the router)."""
    words = [token_words(script, t) for t in tokens]
    return words[:1] == [("ALTER",)] and words[1:2] in ([("TABLE",)], [("SCHEMA",)], [("DATABASE",)],
                                                         [("NAMESPACE",)]) and any(
        words[at:at + 2] == [("SWAP",), ("WITH",)] for at in range(3, len(words) - 1))


def _for_sqlglot(script: str, tokens: list[Token]) -> list[Token]:
    """Spell two valid Spark forms sqlglot's parser rejects in a way it accepts (positions unchanged):
    ``REPLACE TABLE`` as ``CREATE OR REPLACE TABLE``, and ``ALTER TABLE t CHANGE [COLUMN] c COMMENT|TYPE ...`` as
    ``ALTER TABLE t ALTER COLUMN c ...``; ``INSERT OVERWRITE ... PARTITION (...) IF NOT EXISTS`` is checked without
    its ``IF NOT EXISTS``; Spark's ``IDENTIFIER(...)`` clause (a name given as a constant string) as one name."""
    tokens = _identifier_clauses_as_names(script, tokens)
    words = [token_words(script, t) for t in tokens]
    if words[:2] == [("INSERT",), ("OVERWRITE",)]:
        for at in range(3, len(tokens) - 2):
            if words[at:at + 3] == [("IF",), ("NOT",), ("EXISTS",)] and tokens[at - 1].token_type is TokenType.R_PAREN:
                return [*tokens[:at], *tokens[at + 3:]]
    if words[:2] == [("REPLACE",), ("TABLE",)]:
        first = tokens[0]
        return [_synthetic(TokenType.CREATE, "CREATE", first), _synthetic(TokenType.OR, "OR", first), *tokens]
    if words[:2] == [("ALTER",), ("TABLE",)] and ("CHANGE",) in words:
        at = words.index(("CHANGE",))
        column = at + 2 if words[at + 1:at + 2] == [("COLUMN",)] else at + 1
        if column + 1 < len(tokens) and words[column + 1] in (("COMMENT",), ("TYPE",)):
            change = tokens[at]
            fixed = [_synthetic(TokenType.ALTER, "ALTER", change), _synthetic(TokenType.COLUMN, "COLUMN", change)]
            return [*tokens[:at], *fixed, *tokens[column:]]
    return tokens


def _identifier_clauses_as_names(script: str, tokens: list[Token]) -> list[Token]:
    """Each ``IDENTIFIER ( ... )`` as one name token at the clause's position (the router reads the clause)."""
    out: list[Token] = []
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if (token_words(script, token) == ("IDENTIFIER",) and at + 1 < len(tokens)
                and tokens[at + 1].token_type is TokenType.L_PAREN):
            depth, end = 0, at + 1
            while end < len(tokens):
                depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[end].token_type, 0)
                if depth == 0:
                    break
                end += 1
            out.append(_synthetic(TokenType.VAR, "identifier_clause", token))
            at = end + 1
            continue
        out.append(token)
        at += 1
    return out


def _synthetic(kind: TokenType, text: str, at: Token) -> Token:
    return Token(kind, text, line=at.line, col=at.col, start=at.start, end=at.end)


def _parse_error(script: str, exc: ParseError, last: Token) -> SqlParseError:
    details = exc.errors[0] if exc.errors else {}
    reason = str(details.get("description") or exc).splitlines()[0]
    if reason.startswith("Required keyword"):
        reason = "incomplete expression"
    highlight = str(details.get("highlight") or "")
    line = details.get("line")
    col = details.get("col")
    if isinstance(line, int) and isinstance(col, int):
        column = col - len(highlight) + 1 if highlight and "\n" not in highlight else col
        return SqlParseError(reason, line=line, column=max(column, 1), text=highlight)
    line, column = line_col(script, last.start)
    return SqlParseError(reason, line=line, column=column, text=source_text(script, last))


def is_data_type(text: str) -> bool:
    """Whether ``text`` is exactly one Spark data type (``exp.DataType.build`` alone ignores trailing words)."""
    try:
        with quiet_sqlglot():
            tree = DIALECT.parse(f"SELECT CAST(NULL AS {text})")[0]
    except (ParseError, TokenError):
        return False
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return False
    if any(value for key, value in tree.args.items() if key != "expressions"):
        return False
    cast = tree.expressions[0]
    if not isinstance(cast, exp.Cast) or not isinstance(cast.this, exp.Null):
        return False
    return not cast.to.is_type(exp.DataType.Type.USERDEFINED)
