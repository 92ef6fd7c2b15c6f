"""The token reader the routes read statements with: names, flags, clauses, literals and groups, over the tokens of
:mod:`ddl_log.frontends.sql.tokens`; free SQL text is sliced from the script by token positions, never re-rendered."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot.tokenizer_core import Token, TokenType

from ddl_log.errors import SqlParseError, Unsupported
from ddl_log.frontends.sql.plan import Draft, Name, PlannedStatement
from ddl_log.frontends.sql.tokens import TEXT_STRINGS, line_col, slice_text, source_text, token_words, tokenize


class Cursor:
    """Reads one statement's tokens. Errors point at the offending token of the original script."""

    def __init__(self, script: str, tokens: Sequence[Token], *, end: Token | None = None) -> None:
        self.script = script
        self.tokens = list(tokens)
        self.i = 0
        self.end_token = end
        self.statement = slice_text(script, self.tokens[0], self.tokens[-1]) if self.tokens else ""
        self.line = line_col(script, self.tokens[0].start)[0] if self.tokens else 1

    # -- looking

    def token(self, k: int = 0) -> Token | None:
        index = self.i + k
        return self.tokens[index] if 0 <= index < len(self.tokens) else None

    def words(self, k: int = 0) -> tuple[str, ...]:
        token = self.token(k)
        return () if token is None else token_words(self.script, token)

    def word(self, k: int = 0) -> str:
        words = self.words(k)
        return words[0] if len(words) == 1 else " ".join(words)

    def is_kind(self, kind: TokenType, k: int = 0) -> bool:
        token = self.token(k)
        return token is not None and token.token_type is kind

    @property
    def done(self) -> bool:
        return self.i >= len(self.tokens)

    def _match(self, words: Sequence[str]) -> int:
        """How many tokens spell ``words`` from here (0: they do not)."""
        index, matched = self.i, 0
        while matched < len(words):
            if index >= len(self.tokens):
                return 0
            have = token_words(self.script, self.tokens[index])
            if not have or tuple(w.upper() for w in words[matched:matched + len(have)]) != have:
                return 0
            matched += len(have)
            index += 1
        return index - self.i

    def at(self, *words: str) -> bool:
        return self._match(words) > 0

    def at_any(self, *words: str) -> bool:
        return any(self.at(word) for word in words)

    # -- taking

    def take(self, *words: str) -> bool:
        count = self._match(words)
        self.i += count
        return count > 0

    def expect(self, *words: str) -> None:
        if not self.take(*words):
            raise self.error(f"expected {' '.join(words)}")

    def expect_kind(self, kind: TokenType, what: str) -> Token:
        token = self.token()
        if token is None or token.token_type is not kind:
            raise self.error(f"expected {what}")
        self.i += 1
        return token

    def take_kind(self, kind: TokenType) -> bool:
        if self.is_kind(kind):
            self.i += 1
            return True
        return False

    def expect_end(self) -> None:
        if not self.done:
            raise self.error("expected the end of the statement")

    def ident(self, what: str) -> str:
        token = self.token()
        if token is not None:
            if token.token_type is TokenType.IDENTIFIER:
                self.i += 1
                return token.text
            if len(self.words()) == 1:
                self.i += 1
                return source_text(self.script, token)
        raise self.error(f"expected {what}")

    def name(self, what: str) -> Name:
        if self.words() == ("IDENTIFIER",) and self.is_kind(TokenType.L_PAREN, 1):
            return self.identifier_clause(what)
        parts = [self.ident(what)]
        while self.take_kind(TokenType.DOT):
            parts.append(self.ident(what))
        return Name(tuple(parts))

    def identifier_clause(self, what: str) -> Name:
        """Spark's ``IDENTIFIER('db' || '.t')``: a constant string names the object, its text read as a (multi-part)
        name, as Spark's parser reads it. String literals, adjacent or joined by ``||``; a session variable or
        another expression is not read here (refused, not guessed)."""
        self.i += 1
        inner = self.group(what)
        parts = []
        while True:
            token = inner.token()
            if token is None or token.token_type not in TEXT_STRINGS:
                raise Unsupported("IDENTIFIER(...) of anything but string literals (a session variable, a function)")
            parts.append(inner.string())
            if inner.done:
                break
            if not inner.take_kind(TokenType.DPIPE):
                raise Unsupported("IDENTIFIER(...) of anything but string literals (a session variable, a function)")
        text = "".join(parts)
        named = Cursor(text, tokenize(text)) if text.strip() else None
        if named is None or named.done:
            raise self.error(f"IDENTIFIER(...) names no {what}")
        name = named.name(what)
        if not named.done:
            raise self.error(f"IDENTIFIER({text!r}) is not a name")
        return name

    def names(self, what: str) -> list[Name]:
        names = [self.name(what)]
        while self.take_kind(TokenType.COMMA):
            names.append(self.name(what))
        return names

    def string(self, what: str = "a string literal") -> str:
        token = self.token()
        if token is None or token.token_type not in TEXT_STRINGS:
            raise self.error(f"expected {what}")
        parts = []
        while (token := self.token()) is not None and token.token_type in TEXT_STRINGS:
            parts.append(token.text)  # adjacent literals concatenate, as in Spark
            self.i += 1
        return "".join(parts)

    def one_string(self, what: str = "a string literal") -> str:
        """One string literal token: where Spark's grammar takes a single ``stringLit`` (a property key or value, a
        comment), two adjacent literals are two items (``('k' 'v')`` is key ``k``, value ``v``), not one."""
        token = self.token()
        if token is None or token.token_type not in TEXT_STRINGS:
            raise self.error(f"expected {what}")
        self.i += 1
        return str(token.text)

    def group(self, what: str) -> Cursor:
        """The tokens inside the parentheses that open here, as a cursor of their own; moves past them."""
        open_index = self.i
        self.expect_kind(TokenType.L_PAREN, f"( {what}")
        depth = 1
        while not self.done:
            kind = self.tokens[self.i].token_type
            if kind is TokenType.L_PAREN:
                depth += 1
            elif kind is TokenType.R_PAREN:
                depth -= 1
                if depth == 0:
                    inner = Cursor(self.script, self.tokens[open_index + 1:self.i], end=self.tokens[self.i])
                    self.i += 1
                    return inner
            self.i += 1
        raise self.error("missing )")

    def rest(self) -> str:
        """The text from here to the end of the statement, as written; moves to the end."""
        if self.done:
            raise self.error("expected more text")
        text = slice_text(self.script, self.tokens[self.i], self.tokens[-1])
        self.i = len(self.tokens)
        return text

    def text(self) -> str:
        """All of this cursor's text (for a group: what is inside the parentheses)."""
        return slice_text(self.script, self.tokens[0], self.tokens[-1]) if self.tokens else ""

    def literal(self, what: str) -> str:
        """A constant as Spark stores it in a property or partition value: string, number or boolean."""
        token = self.token()
        if token is None:
            raise self.error(f"expected {what}")
        if token.token_type in TEXT_STRINGS:
            return self.string(what)
        return self._non_string_literal(token)

    def property_value(self) -> str:
        """A property value as Spark's grammar reads it: one string literal, a number or a boolean."""
        token = self.token()
        if token is not None and token.token_type in TEXT_STRINGS:
            return self.one_string("a property value")
        if token is None:
            raise self.error("expected a property value")
        return self._non_string_literal(token)

    def _non_string_literal(self, token: Token) -> str:
        sign = ""
        if token.token_type in (TokenType.DASH, TokenType.PLUS) and self.is_kind(TokenType.NUMBER, 1):
            sign = "-" if token.token_type is TokenType.DASH else ""
            self.i += 1
            token = self.tokens[self.i]
        if token.token_type is TokenType.NUMBER:
            self.i += 1
            while (following := self.token()) is not None and following.start == token.start:
                self.i += 1  # 10L / 1.5BD come as several tokens over the same text
            return sign + source_text(self.script, token)
        if self.word() in ("TRUE", "FALSE"):
            self.i += 1
            return source_text(self.script, token).lower()
        raise Unsupported(f"the value {source_text(self.script, token)!r} (only strings, numbers and booleans)")

    # -- errors and results

    def error(self, reason: str) -> SqlParseError:
        token = self.token()
        if token is None:
            token = self.end_token or (self.tokens[-1] if self.tokens else None)
            if token is None:
                return SqlParseError(reason, line=self.line, column=1, text="")
        line, column = line_col(self.script, token.start)
        return SqlParseError(reason, line=line, column=column, text=source_text(self.script, token))

    def query(self) -> PlannedStatement:
        return PlannedStatement(self.statement, self.line, "query")

    def ddl(self, label: str, statement: Draft, *, spark_sql: bool = True) -> PlannedStatement:
        """An atomic DDL statement; the binlog records this statement's original text."""
        return PlannedStatement(self.statement, self.line, "ddl", statement, label, spark_sql)
