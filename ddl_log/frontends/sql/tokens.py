"""Reading a script into tokens: sqlglot's Spark tokenizer, the split at ``;`` tokens (never inside a string,
comment or backquoted name), and the positions every message and every slice of user text is taken from."""

from __future__ import annotations

import re

import attrs
from sqlglot.dialects.spark import Spark
from sqlglot.errors import TokenError
from sqlglot.tokenizer_core import Token, TokenType

from ddl_log.errors import SqlParseError

DIALECT = Spark()
_STRING_TYPES = frozenset(
    getattr(TokenType, name)
    for name in ("STRING", "RAW_STRING", "NATIONAL_STRING", "HEX_STRING", "BIT_STRING", "BYTE_STRING",
                 "HEREDOC_STRING", "UNICODE_STRING", "IDENTIFIER")
    if hasattr(TokenType, name)
)
TEXT_STRINGS = frozenset({TokenType.STRING, TokenType.RAW_STRING})
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*")


def split_statements(text: str) -> list[str]:
    """The statements of a script, each as written (without its ``;`` and surrounding comments)."""
    return [piece.text(text) for piece in split_script(text)]


@attrs.frozen
class Piece:
    """One statement's tokens. ``raw``: as sqlglot's tokenizer gives them (what its parser expects); ``tokens``: the
    same with the text sqlglot keeps whole after a command keyword (``RENAME``, ``SHOW``, ``EXPLAIN``, ...)
    tokenized too, every token at its true position in the script."""

    raw: tuple[Token, ...]
    tokens: tuple[Token, ...]
    start: int = 0
    """Where the piece begins in the script (just after the previous ``;``): its leading comments are before its
    first token."""

    def text(self, script: str) -> str:
        return slice_text(script, self.tokens[0], self.tokens[-1])

    def leading(self, script: str) -> str:
        """The comments (and blanks) before the statement's first token."""
        return script[self.start:self.tokens[0].start]


def split_script(text: str) -> list[Piece]:
    """Split at ``;`` tokens: never inside a string, a comment or a backquoted name."""
    raw = tokenize(text)
    pieces: list[Piece] = []
    current: list[Token] = []
    start = 0
    for token in [*raw, None]:
        if token is None or token.token_type is TokenType.SEMICOLON:
            if current:
                end = token.start if token is not None else len(text)
                pieces.append(Piece(tuple(current), tuple(_expand_command(text, current, end)), start))
            current = []
            start = token.end + 1 if token is not None else len(text)
        else:
            current.append(token)
    return pieces


def tokenize(text: str, base: int = 0) -> list[Token]:
    try:
        return list(DIALECT.tokenize(blank_comments(text)))
    except TokenError as exc:
        raise token_error(text, exc, base) from None


_COMMANDS = frozenset(DIALECT.tokenizer_class.COMMANDS)


def _expand_command(script: str, tokens: list[Token], end: int) -> list[Token]:
    """sqlglot keeps everything after a leading command keyword as one string token (at a wrong position): tokenize
    that text (up to ``end``, where the statement ends) into tokens at their true positions."""
    if len(tokens) != 2 or tokens[0].token_type not in _COMMANDS or tokens[1].token_type is not TokenType.STRING:
        return tokens
    start = tokens[0].end + 1
    inner = tokenize(script[start:end], start)
    shifted = [
        Token(t.token_type, t.text, *line_col(script, start + t.end), start=start + t.start, end=start + t.end,
              comments=t.comments)
        for t in inner
    ]
    return [tokens[0], *_expand_command(script, shifted, end)] if shifted else tokens[:1]


def token_error(text: str, exc: TokenError, base: int) -> SqlParseError:
    """``text`` starts at offset ``base`` of the script; positions are reported in the script. (Only the whole
    script can fail to tokenize, so ``base`` is 0 here in practice.)"""
    found = _find_unterminated(text)
    offset, reason = found if found is not None else (exc.start or 0, "cannot read the text here")
    if found is not None:
        reason = f"unterminated {reason}"
    line, column = line_col(text, offset)
    if base:
        reason += f" (at offset {base + offset})"
    return SqlParseError(reason, line=line, column=column, text=text[offset:offset + 20])


def _find_unterminated(script: str) -> tuple[int, str] | None:
    """Where a string, backquoted name or comment opens and never closes (only to explain a tokenizer error)."""
    return _scan(script)[1]


def blank_comments(script: str) -> str:
    """``script`` with every bracketed comment as Spark's lexer reads it (nested: ``/*/**/*/`` is one comment; a
    quote inside one is text) turned into blanks, newlines kept, so every offset stays the script's: sqlglot's
    tokenizer ends a comment at its first ``*/``. An unclosed comment is Spark's ``UNCLOSED_BRACKETED_COMMENT``."""
    if "/*" not in script:
        return script  # no bracketed comment (an unclosed quote is the tokenizer's to report): no scan
    spans, unterminated = _scan(script)
    if unterminated is not None and unterminated[1] == "comment":
        offset = unterminated[0]
        line, column = line_col(script, offset)
        raise SqlParseError("unclosed bracketed comment (append */ at its end)", line=line, column=column,
                            text=script[offset:offset + 20], condition="UNCLOSED_BRACKETED_COMMENT")
    if not spans:
        return script
    chars = list(script)
    for start, end in spans:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _scan(script: str) -> tuple[list[tuple[int, int]], tuple[int, str] | None]:
    """The bracketed comments of ``script`` (start, end), outermost only, and where a string, backquoted name or
    comment opens and never closes (None: everything closes)."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in "'\"`":
            raw = ch != "`" and i > 0 and script[i - 1] in "rR" and (i < 2 or not script[i - 2].isalnum())
            start, i = i, i + 1
            while i < n:
                if script[i] == "\\" and ch != "`" and not raw:
                    i += 2
                    continue
                if script[i] == ch:
                    if ch == "`" and i + 1 < n and script[i + 1] == "`":
                        i += 2
                        continue
                    break
                i += 1
            if i >= n:
                return spans, (start, "backquoted name" if ch == "`" else "string")
            i += 1
        elif script.startswith("--", i):
            end = script.find("\n", i)
            i = n if end < 0 else end + 1
        elif script.startswith("/*", i):
            start, depth, i = i, 1, i + 2
            while i < n and depth:
                if script.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif script.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            if depth:
                return spans, (start, "comment")
            spans.append((start, i))
        else:
            i += 1
    return spans, None


def line_col(script: str, offset: int) -> tuple[int, int]:
    line = script.count("\n", 0, offset) + 1
    return line, offset - (script.rfind("\n", 0, offset) + 1) + 1


def source_text(script: str, token: Token) -> str:
    return script[token.start:token.end + 1]


def slice_text(script: str, first: Token, last: Token) -> str:
    return script[first.start:last.end + 1]


def token_words(script: str, token: Token) -> tuple[str, ...]:
    """The upper-cased keyword(s) of a bare word token (``PARTITIONED BY`` is one token of two words); () for
    strings, backquoted names, numbers and punctuation."""
    if token.token_type in _STRING_TYPES:
        return ()
    source = source_text(script, token)
    if not _WORDS.fullmatch(source):
        return ()
    return tuple(source.upper().split())
