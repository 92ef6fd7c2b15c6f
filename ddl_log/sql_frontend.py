"""The SQL front end: run a script of Spark SQL statements, the DDL atomically through :class:`AtomicDDL`.

How a script is read:

1. sqlglot's Spark tokenizer turns the whole script into tokens, so strings, comments and backquoted names are
   understood exactly as sqlglot does; the script is split at ``;`` tokens (never inside a string or comment).
2. Every statement is parsed with sqlglot's Spark parser before anything runs: a syntax error anywhere in the script
   raises :class:`SqlParseError` (line, column, offending text) and runs nothing. ``REPLACE TABLE`` (which sqlglot
   does not know) is parsed as ``CREATE OR REPLACE TABLE``; forms sqlglot only keeps as an opaque command
   (``RENAME TABLE a TO b, c TO d``, ``CREATE FUNCTION ... USING JAR ..., FILE ...``, ``UNSET TBLPROPERTIES``) are
   checked by the reader of step 3 alone.
3. The DDL forms this project makes atomic are read over the same tokens (names, flags, clauses, property lists);
   every piece of free SQL text handed on (the SELECT of an AS SELECT, a column list, a function body) is sliced
   from the original text by token positions, never re-rendered, so Spark sees exactly what the user wrote.
4. Each atomic DDL form goes to its :class:`AtomicDDL` method with ``statement=`` the original statement text (what
   the binlog records); any other statement goes unchanged to ``spark.sql``. A DDL form that the DDL log cannot run
   atomically raises :class:`UnsupportedStatementError` (nothing of the script is run) unless ``allow_non_atomic``.

Names are resolved when the statement runs, exactly as Spark would resolve them then (so ``USE`` earlier in the
script works as in Spark): current catalog and namespace, catalog-qualified names, temporary views and functions (see
:mod:`ddl_log.name_resolution`). A statement whose object lies outside the session catalog (another catalog, a
temporary view) or that Spark itself would refuse goes to ``spark.sql`` unchanged; one that Spark cannot run as
written (``DROP TABLE a, b``, ``RENAME TABLE``) and that names such an object is refused. Names handed to
:class:`AtomicDDL` are backquoted (```db`.`t` ``).
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import attrs
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import Token, TokenType

from ddl_log import alter_ops
from ddl_log.name_resolution import (
    NameKind,
    NoSparkFacts,
    SessionFacts,
    SparkFacts,
    Target,
    resolve,
)
from storage.catalogs.names import SESSION_CATALOG, quote_ident
from storage.errors import DDLLogError

_DIALECT = Spark()
_STRING_TYPES = frozenset(
    getattr(TokenType, name)
    for name in ("STRING", "RAW_STRING", "NATIONAL_STRING", "HEX_STRING", "BIT_STRING", "BYTE_STRING",
                 "HEREDOC_STRING", "UNICODE_STRING", "IDENTIFIER")
    if hasattr(TokenType, name)
)
_TEXT_STRINGS = frozenset({TokenType.STRING, TokenType.RAW_STRING})
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*")
_QUERY_STARTS = frozenset({"SELECT", "WITH", "VALUES", "FROM", "TABLE", "MAP", "REDUCE"})


# ---------------------------------------------------------------------------------------------------- errors


class SqlParseError(DDLLogError):
    """The SQL text does not parse. ``line`` and ``column`` (1-based) point at the start of ``text``."""

    def __init__(self, reason: str, *, line: int, column: int, text: str) -> None:
        near = f" near {text!r}" if text else ""
        super().__init__(f"syntax error at line {line}, column {column}{near}: {reason}")
        self.reason = reason
        self.line = line
        self.column = column
        self.text = text


class UnsupportedStatementError(DDLLogError):
    """A DDL statement the DDL log cannot run atomically; it was not run (Spark alone would not make it atomic).
    ``name``: the object that made it so, when one did (found when the statement was about to run)."""

    NOT_ATOMIC = ("because run directly on Spark it would not be atomic (allow_non_atomic=True or --allow-non-atomic "
                  "runs it anyway)")

    def __init__(self, what: str, *, line: int, statement: str, reason: str = "", name: str = "") -> None:
        reason = reason or f"nothing was run, {self.NOT_ATOMIC}"
        super().__init__(f"line {line}: {what} is not supported by the DDL log; {reason}")
        self.what = what
        self.line = line
        self.statement = statement
        self.name = name


# ---------------------------------------------------------------------------------------------------- results


@attrs.frozen
class SqlResult:
    """One statement's outcome. ``kind``: ``"ddl"`` ran atomically through :class:`AtomicDDL` (``result`` is the
    method's return value); ``"query"`` went unchanged to ``spark.sql`` (``result`` is its DataFrame)."""

    statement: str
    kind: Literal["ddl", "query"]
    result: Any = attrs.field(repr=False)


@attrs.frozen
class Name:
    """An object name as written (backquotes removed), resolved as Spark would when the statement runs. ``kind``:
    how Spark looks it up (see :data:`ddl_log.name_resolution.NameKind`); ``renamed``: for the new name of ALTER
    ... RENAME TO, the name being renamed."""

    parts: tuple[str, ...]
    kind: NameKind = "object"
    renamed: Name | None = None

    def resolve(self, facts: SessionFacts, done: dict[Name, Target]) -> Target:
        """Where Spark would look this name up (``done``: names of the statement already resolved)."""
        if self not in done:
            renamed = self.renamed.resolve(facts, done) if self.renamed is not None else None
            done[self] = resolve(self.parts, self.kind, facts, renamed=renamed)
        return done[self]

    def as_kind(self, kind: NameKind, renamed: Name | None = None) -> Name:
        return Name(self.parts, kind, renamed)

    @property
    def qualified(self) -> bool:
        return len(self.parts) > 1


@attrs.frozen
class PlannedStatement:
    """A statement read and routed, not run yet. ``method`` is None for statements that go to ``spark.sql``."""

    text: str
    line: int
    kind: Literal["ddl", "query"]
    method: str | None = None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = attrs.field(factory=dict)
    optional: frozenset[str] = frozenset()
    """Keyword arguments that only some builds of AtomicDDL accept (a feature the user used)."""
    label: str = ""
    """What the statement is, for messages (``"CREATE VIEW"``)."""
    spark_sql: bool = True
    """Spark runs this text itself (False: a form only the DDL log knows, such as ``DROP TABLE a, b``)."""
    allow_non_atomic: bool = False

    def names(self) -> list[Name]:
        """Every name of the call, the statement's own object first."""
        return [*_names(self.args), *_names(tuple(self.kwargs.values()))]

    def resolved(self, facts: SessionFacts) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        """The call's arguments with every :class:`Name` resolved and backquoted; None when the statement goes to
        Spark unchanged (its object lies outside the session catalog, or Spark itself refuses it). Raises
        :class:`UnsupportedStatementError` when neither the DDL log nor Spark can run it as Spark would."""
        done: dict[Name, Target] = {}
        targets = [name.resolve(facts, done) for name in self.names()]
        if all(target.in_session for target in targets):
            if not self._session_is_current(facts, targets[0]):
                return None
            return (tuple(_substitute(a, done) for a in self.args),
                    {k: _substitute(v, done) for k, v in self.kwargs.items()})
        odd = next(target for target in targets if not target.in_session)
        if not self.spark_sql:
            raise UnsupportedStatementError(
                f"{self.label} naming {odd.text}", line=self.line, statement=self.text, name=odd.text,
                reason="this statement was not run: the DDL log acts only on the session catalog's tables, and Spark "
                       "cannot run this form (one statement per object can go to Spark)")
        if targets[0].where == "outside" or any(t.where == "spark_error" for t in targets) or self.allow_non_atomic:
            return None
        raise UnsupportedStatementError(f"{self.label} with {odd.text}", line=self.line, statement=self.text,
                                        name=odd.text, reason=f"this statement was not run, {_NOT_ATOMIC}")


    def _session_is_current(self, facts: SessionFacts, target: Target) -> bool:
        """Whether the DDL log can run the statement: its steps name session-catalog objects ``db.name``, which Spark
        resolves in the current catalog, so in another one they would act on that catalog's objects. False: the
        statement goes to Spark as written (allow_non_atomic)."""
        catalog = facts.current_catalog()
        if catalog.lower() == SESSION_CATALOG:
            return True
        if self.allow_non_atomic and self.spark_sql:
            return False
        raise UnsupportedStatementError(
            f"{self.label} on {target.text} in the session catalog while the current catalog is "
            f"{quote_ident(catalog)}", line=self.line, statement=self.text, name=target.text,
            reason="this statement was not run: the DDL log runs its steps in the current catalog; USE spark_catalog."
                   "<database> first" + (" (or allow_non_atomic=True runs it on Spark directly, not atomically)"
                                         if self.spark_sql else ""))


_NOT_ATOMIC = UnsupportedStatementError.NOT_ATOMIC


def _names(values: tuple[Any, ...] | list[Any]) -> Iterator[Name]:
    for value in values:
        if isinstance(value, Name):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _names(value)


def _substitute(value: Any, done: dict[Name, Target]) -> Any:
    if isinstance(value, Name):
        return done[value].text
    if isinstance(value, list):
        return [_substitute(item, done) for item in value]
    if isinstance(value, tuple):
        return tuple(_substitute(item, done) for item in value)
    return value


# ---------------------------------------------------------------------------------------------------- running


def run_sql(ddl: Any, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
    """Run every statement of ``text`` in order and return their results. The whole script is parsed and checked
    first: a syntax error or an unsupported statement anywhere runs nothing."""
    plans = plan_script(text, allow_non_atomic=allow_non_atomic)
    plans = check_available(ddl, plans, allow_non_atomic=allow_non_atomic)
    return list(execute(ddl, plans))


def execute(ddl: Any, plans: Iterable[PlannedStatement]) -> Iterator[SqlResult]:
    """Run planned statements one by one, yielding each result as soon as it is there. Names are resolved as each
    statement runs; what is known of the session is forgotten after every statement Spark runs."""
    facts: SessionFacts | None = None
    for plan in plans:
        call = None
        if plan.method is not None:
            facts = facts or _session_facts(ddl)
            call = plan.resolved(facts)
        if plan.method is None or call is None:
            result = ddl.spark.sql(plan.text)
            facts = None  # USE, SET CATALOG, CREATE TEMPORARY VIEW ... may have changed the session
            yield SqlResult(plan.text, "query", result)
            continue
        args, kwargs = call
        yield SqlResult(plan.text, "ddl", getattr(ddl, plan.method)(*args, **kwargs))


def _session_facts(ddl: Any) -> SessionFacts:
    if getattr(ddl, "_spark", None) is None and getattr(ddl, "_catalog", None) is not None:
        return NoSparkFacts()  # a custom catalog and no Spark session: do not start one just to ask
    return SparkFacts(lambda: ddl.spark)


def check_available(ddl: Any, plans: Sequence[PlannedStatement], *,
                    allow_non_atomic: bool = False) -> list[PlannedStatement]:
    """Make sure ``ddl`` has a method, taking these arguments, for every routed statement (some forms are newer
    than some builds). A missing one is unsupported, or goes to ``spark.sql`` when ``allow_non_atomic``."""
    checked: list[PlannedStatement] = []
    for plan in plans:
        if plan.method is not None:
            missing = _missing_support(ddl, plan)
            if missing:
                if not allow_non_atomic:
                    raise UnsupportedStatementError(f"{plan.label} ({missing})", line=plan.line,
                                                    statement=plan.text)
                plan = PlannedStatement(plan.text, plan.line, "query", label=plan.label)
        checked.append(plan)
    return checked


def _missing_support(ddl: Any, plan: PlannedStatement) -> str:
    assert plan.method is not None
    method = getattr(ddl, plan.method, None)
    if not callable(method):
        return f"this build of AtomicDDL has no {plan.method}()"
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return ""
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return ""
    absent = [key for key in plan.kwargs if key not in parameters]
    if not absent:
        return ""
    used = [key for key in absent if key in plan.optional]
    if used:
        return f"{plan.method}() does not take {', '.join(used)} yet"
    return f"{plan.method}() does not take {', '.join(absent)}"


# ---------------------------------------------------------------------------------------------------- planning


def plan_script(text: str, *, allow_non_atomic: bool = False) -> list[PlannedStatement]:
    """Tokenize, split, parse and route every statement of ``text``; run nothing."""
    return [plan_statement(text, piece, allow_non_atomic=allow_non_atomic) for piece in split_script(text)]


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

    def text(self, script: str) -> str:
        return _slice(script, self.tokens[0], self.tokens[-1])


def split_script(text: str) -> list[Piece]:
    """Split at ``;`` tokens: never inside a string, a comment or a backquoted name."""
    raw = _tokenize(text)
    pieces: list[Piece] = []
    current: list[Token] = []
    for token in [*raw, None]:
        if token is None or token.token_type is TokenType.SEMICOLON:
            if current:
                end = token.start if token is not None else len(text)
                pieces.append(Piece(tuple(current), tuple(_expand_command(text, current, end))))
            current = []
        else:
            current.append(token)
    return pieces


def _tokenize(text: str, base: int = 0) -> list[Token]:
    try:
        return list(_DIALECT.tokenize(text))
    except TokenError as exc:
        raise _token_error(text, exc, base) from None


_COMMANDS = frozenset(_DIALECT.tokenizer_class.COMMANDS)


def _expand_command(script: str, tokens: list[Token], end: int) -> list[Token]:
    """sqlglot keeps everything after a leading command keyword as one string token (at a wrong position): tokenize
    that text (up to ``end``, where the statement ends) into tokens at their true positions."""
    if len(tokens) != 2 or tokens[0].token_type not in _COMMANDS or tokens[1].token_type is not TokenType.STRING:
        return tokens
    start = tokens[0].end + 1
    inner = _tokenize(script[start:end], start)
    shifted = [
        Token(t.token_type, t.text, *_line_col(script, start + t.end), start=start + t.start, end=start + t.end,
              comments=t.comments)
        for t in inner
    ]
    return [tokens[0], *_expand_command(script, shifted, end)] if shifted else tokens[:1]


def plan_statement(script: str, piece: Piece, *, allow_non_atomic: bool = False) -> PlannedStatement:
    """Route one statement of ``script`` (a piece from :func:`split_script`)."""
    _validate(script, piece.raw)
    cursor = _Cursor(script, piece.tokens)
    try:
        plan = _Router(cursor).route()
        return attrs.evolve(plan, allow_non_atomic=True) if allow_non_atomic and plan.method else plan
    except _Unsupported as unsupported:
        if not allow_non_atomic:
            raise UnsupportedStatementError(unsupported.what, line=cursor.line, statement=cursor.statement) from None
        return cursor.query()


class _Unsupported(Exception):  # noqa: N818 - internal signal, turned into UnsupportedStatementError
    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    """sqlglot logs a warning for every statement it keeps as an opaque command; those are expected here."""
    logger = logging.getLogger("sqlglot")
    silence = logging.Filter("-")  # matches no logger name: drops every record
    logger.addFilter(silence)
    try:
        yield
    finally:
        logger.removeFilter(silence)


def _validate(script: str, tokens: Sequence[Token]) -> None:
    """Parse with sqlglot (Spark dialect); its first error becomes a :class:`SqlParseError` at that position."""
    tokens = _for_sqlglot(script, list(tokens))
    try:
        with _quiet_sqlglot():
            _DIALECT.parser().parse(tokens, script)
    except ParseError as exc:
        raise _parse_error(script, exc, tokens[-1]) from None


def _for_sqlglot(script: str, tokens: list[Token]) -> list[Token]:
    """Spell two valid Spark forms sqlglot's parser rejects in a way it accepts (positions unchanged):
    ``REPLACE TABLE`` as ``CREATE OR REPLACE TABLE``, and ``ALTER TABLE t CHANGE [COLUMN] c COMMENT|TYPE ...`` as
    ``ALTER TABLE t ALTER COLUMN c ...``; ``INSERT OVERWRITE ... PARTITION (...) IF NOT EXISTS`` is checked without
    its ``IF NOT EXISTS``."""
    words = [_token_words(script, t) for t in tokens]
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
    line, column = _line_col(script, last.start)
    return SqlParseError(reason, line=line, column=column, text=_source(script, last))


def _token_error(text: str, exc: TokenError, base: int) -> SqlParseError:
    """``text`` starts at offset ``base`` of the script; positions are reported in the script. (Only the whole
    script can fail to tokenize, so ``base`` is 0 here in practice.)"""
    found = _find_unterminated(text)
    offset, reason = found if found is not None else (exc.start or 0, "cannot read the text here")
    if found is not None:
        reason = f"unterminated {reason}"
    line, column = _line_col(text, offset)
    if base:
        reason += f" (at offset {base + offset})"
    return SqlParseError(reason, line=line, column=column, text=text[offset:offset + 20])


def _find_unterminated(script: str) -> tuple[int, str] | None:
    """Where a string, backquoted name or comment opens and never closes (only to explain a tokenizer error)."""
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
                return start, "backquoted name" if ch == "`" else "string"
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
                return start, "comment"
        else:
            i += 1
    return None


def _line_col(script: str, offset: int) -> tuple[int, int]:
    line = script.count("\n", 0, offset) + 1
    return line, offset - (script.rfind("\n", 0, offset) + 1) + 1


def _source(script: str, token: Token) -> str:
    return script[token.start:token.end + 1]


def _slice(script: str, first: Token, last: Token) -> str:
    return script[first.start:last.end + 1]


def _token_words(script: str, token: Token) -> tuple[str, ...]:
    """The upper-cased keyword(s) of a bare word token (``PARTITIONED BY`` is one token of two words); () for
    strings, backquoted names, numbers and punctuation."""
    if token.token_type in _STRING_TYPES:
        return ()
    source = _source(script, token)
    if not _WORDS.fullmatch(source):
        return ()
    return tuple(source.upper().split())


# ---------------------------------------------------------------------------------------------------- token reader


class _Cursor:
    """Reads one statement's tokens. Errors point at the offending token of the original script."""

    def __init__(self, script: str, tokens: Sequence[Token], *, end: Token | None = None) -> None:
        self.script = script
        self.tokens = list(tokens)
        self.i = 0
        self.end_token = end
        self.statement = _slice(script, self.tokens[0], self.tokens[-1]) if self.tokens else ""
        self.line = _line_col(script, self.tokens[0].start)[0] if self.tokens else 1

    # -- looking

    def token(self, k: int = 0) -> Token | None:
        index = self.i + k
        return self.tokens[index] if 0 <= index < len(self.tokens) else None

    def words(self, k: int = 0) -> tuple[str, ...]:
        token = self.token(k)
        return () if token is None else _token_words(self.script, token)

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
            have = _token_words(self.script, self.tokens[index])
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
                return _source(self.script, token)
        raise self.error(f"expected {what}")

    def name(self, what: str) -> Name:
        parts = [self.ident(what)]
        while self.take_kind(TokenType.DOT):
            parts.append(self.ident(what))
        return Name(tuple(parts))

    def names(self, what: str) -> list[Name]:
        names = [self.name(what)]
        while self.take_kind(TokenType.COMMA):
            names.append(self.name(what))
        return names

    def string(self, what: str = "a string literal") -> str:
        token = self.token()
        if token is None or token.token_type not in _TEXT_STRINGS:
            raise self.error(f"expected {what}")
        parts = []
        while (token := self.token()) is not None and token.token_type in _TEXT_STRINGS:
            parts.append(token.text)  # adjacent literals concatenate, as in Spark
            self.i += 1
        return "".join(parts)

    def group(self, what: str) -> _Cursor:
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
                    inner = _Cursor(self.script, self.tokens[open_index + 1:self.i], end=self.tokens[self.i])
                    self.i += 1
                    return inner
            self.i += 1
        raise self.error("missing )")

    def rest(self) -> str:
        """The text from here to the end of the statement, as written; moves to the end."""
        if self.done:
            raise self.error("expected more text")
        text = _slice(self.script, self.tokens[self.i], self.tokens[-1])
        self.i = len(self.tokens)
        return text

    def text(self) -> str:
        """All of this cursor's text (for a group: what is inside the parentheses)."""
        return _slice(self.script, self.tokens[0], self.tokens[-1]) if self.tokens else ""

    def literal(self, what: str) -> str:
        """A constant as Spark stores it in a property or partition value: string, number or boolean."""
        token = self.token()
        if token is None:
            raise self.error(f"expected {what}")
        if token.token_type in _TEXT_STRINGS:
            return self.string(what)
        sign = ""
        if token.token_type in (TokenType.DASH, TokenType.PLUS) and self.is_kind(TokenType.NUMBER, 1):
            sign = "-" if token.token_type is TokenType.DASH else ""
            self.i += 1
            token = self.tokens[self.i]
        if token.token_type is TokenType.NUMBER:
            self.i += 1
            while (following := self.token()) is not None and following.start == token.start:
                self.i += 1  # 10L / 1.5BD come as several tokens over the same text
            return sign + _source(self.script, token)
        if self.word() in ("TRUE", "FALSE"):
            self.i += 1
            return _source(self.script, token).lower()
        raise _Unsupported(f"the value {_source(self.script, token)!r} (only strings, numbers and booleans)")

    # -- errors and results

    def error(self, reason: str) -> SqlParseError:
        token = self.token()
        if token is None:
            token = self.end_token or (self.tokens[-1] if self.tokens else None)
            if token is None:
                return SqlParseError(reason, line=self.line, column=1, text="")
        line, column = _line_col(self.script, token.start)
        return SqlParseError(reason, line=line, column=column, text=_source(self.script, token))

    def query(self) -> PlannedStatement:
        return PlannedStatement(self.statement, self.line, "query")

    def ddl(self, label: str, method: str, *args: Any, optional: Iterable[str] = (), spark_sql: bool = True,
            **kwargs: Any) -> PlannedStatement:
        kwargs["statement"] = self.statement
        return PlannedStatement(self.statement, self.line, "ddl", method, args, kwargs, frozenset(optional), label,
                                spark_sql)


# ---------------------------------------------------------------------------------------------------- routes


_PASS_THROUGH_CLAUSES = {
    "LOCATION": "LOCATION (an external table: its files live outside the warehouse)",
    "OPTIONS": "OPTIONS (...)",
    "CLUSTERED BY": "CLUSTERED BY (bucketing)",
    "CLUSTER BY": "CLUSTER BY (clustering)",
    "SORTED BY": "SORTED BY (bucketing)",
    "SKEWED BY": "SKEWED BY",
    "STORED AS": "STORED AS (a Hive serde table)",
    "STORED BY": "STORED BY (a Hive storage handler)",
    "ROW FORMAT": "ROW FORMAT (a Hive serde table)",
}


class _Router:
    def __init__(self, cursor: _Cursor) -> None:
        self.c = cursor

    def route(self) -> PlannedStatement:
        c = self.c
        head = (c.words() or ("",))[0]
        if head == "CREATE":
            return self.create()
        if head == "REPLACE" and c.at("REPLACE", "TABLE"):
            c.i = 2
            return self.create_table(or_replace=True, verb="REPLACE TABLE")
        if head == "RENAME" and c.at("RENAME", "TABLE"):
            c.i = 2
            return self.rename_tables()
        if head == "ALTER":
            c.i = 1
            if c.take("TABLE"):
                return self.alter_table()
            if c.take("VIEW"):
                return self.alter_view()
            raise _Unsupported(f"ALTER {c.word() or '...'}")
        if head == "DROP":
            c.i = 1
            return self.drop()
        if head == "TRUNCATE":
            c.i = 1
            c.expect("TABLE")
            return self.truncate()
        if head == "INSERT" and c.at("INSERT", "OVERWRITE"):
            c.i = 2
            return self.insert_overwrite()
        if head in ("MSCK", "REPAIR"):
            raise _Unsupported(f"{head} ... (adds or drops many partitions, one by one)")
        if head == "LOAD":
            raise _Unsupported("LOAD DATA (moves files into a table)")
        if head == "COMMENT" and c.at("COMMENT", "ON"):
            raise _Unsupported("COMMENT ON")
        if head == "EXECUTE":
            raise _Unsupported("EXECUTE IMMEDIATE (it runs SQL the DDL log cannot see)")
        if head == "BEGIN":
            raise _Unsupported("a compound statement BEGIN ... END")
        if any(c.words(k) == ("INSERT",) and c.words(k + 1) == ("OVERWRITE",) for k in range(len(c.tokens))):
            raise _Unsupported("INSERT OVERWRITE in this form (only INSERT OVERWRITE [TABLE] t <query>)")
        return c.query()

    # -- CREATE

    def create(self) -> PlannedStatement:
        c = self.c
        c.i = 1
        or_replace = c.take("OR", "REPLACE")
        temporary = c.take("TEMPORARY") or c.take("TEMP") or c.take("GLOBAL", "TEMPORARY") or c.take("GLOBAL", "TEMP")
        if temporary:
            return c.query()  # temporary views and functions live in the session only: nothing to make atomic
        if c.take("EXTERNAL"):
            raise _Unsupported("CREATE EXTERNAL TABLE (its files live outside the warehouse)")
        if c.take("TABLE"):
            return self.create_table(or_replace=or_replace, verb="CREATE OR REPLACE TABLE" if or_replace
                                     else "CREATE TABLE")
        if c.take("VIEW"):
            return self.create_view(or_replace)
        if c.take("FUNCTION"):
            return self.create_function(or_replace)
        if c.at_any("DATABASE", "SCHEMA", "NAMESPACE"):
            c.i += 1
            return self.create_database(or_replace)
        raise _Unsupported(f"CREATE {c.word() or '...'}")

    def create_table(self, *, or_replace: bool, verb: str) -> PlannedStatement:
        c = self.c
        if_not_exists = c.at("IF", "NOT", "EXISTS")
        if if_not_exists and or_replace:
            raise c.error("OR REPLACE and IF NOT EXISTS cannot be used together")
        c.take("IF", "NOT", "EXISTS")
        name = c.name("a table name")
        kwargs: dict[str, Any] = {}
        if c.is_kind(TokenType.L_PAREN):
            columns = c.group("column list")
            if columns.done:
                raise columns.error("empty column list")
            kwargs["schema"] = columns.text()
        seen: set[str] = set()
        while not c.done:
            clause = c.word()
            if clause in seen:
                raise c.error(f"{clause} given twice")
            seen.add(clause)
            if c.take("USING"):
                kwargs["using"] = ".".join(c.name("a data source").parts)
            elif c.take("PARTITIONED", "BY"):
                kwargs["partitioned_by"] = self.partition_columns()
            elif c.take("COMMENT"):
                kwargs["comment"] = c.string("a comment string")
            elif c.take("TBLPROPERTIES"):
                kwargs["properties"] = self.properties()
            elif c.take("LIKE"):
                kwargs["like"] = c.name("a table name")
            elif c.at("AS"):
                if "schema" in kwargs:
                    raise c.error("AS SELECT cannot be combined with a column list")
                c.i += 1
                if not c.at_any(*_QUERY_STARTS) and not c.is_kind(TokenType.L_PAREN):
                    raise c.error("expected a query after AS")
                kwargs["as_select"] = c.rest()
            else:
                raise _Unsupported(f"{verb} with {self.clause_name()}")
        if "like" in kwargs and len(kwargs) > 1:
            raise _Unsupported(f"{verb} ... LIKE with other clauses")
        if not ({"schema", "like", "as_select"} & kwargs.keys()):
            raise _Unsupported(f"{verb} without a column list, LIKE or AS SELECT")
        if "like" in kwargs:  # Spark's CREATE TABLE LIKE is a v1 command: its names resolve the v1 way
            name, kwargs["like"] = name.as_kind("v1"), kwargs["like"].as_kind("v1_relation")
        if or_replace:  # Spark knows no [CREATE OR] REPLACE TABLE ... LIKE
            return c.ddl(verb, "create_or_replace_table", name, spark_sql="like" not in kwargs, **kwargs)
        return c.ddl(verb, "create_table", name, if_not_exists=if_not_exists, **kwargs)

    def clause_name(self) -> str:
        c = self.c
        for words in (c.words(), c.words() + c.words(1)):
            key = " ".join(words)
            if key in _PASS_THROUGH_CLAUSES:
                return _PASS_THROUGH_CLAUSES[key]
        token = c.token()
        return repr(_source(c.script, token)) if token is not None else "more clauses"

    def partition_columns(self) -> list[str]:
        inner = self.c.group("partition columns")
        columns: list[str] = []
        while True:
            columns.append(inner.ident("a partition column"))
            if inner.done:
                return columns
            if not inner.take_kind(TokenType.COMMA):
                raise _Unsupported("PARTITIONED BY with column types or transforms (only column names)")

    def properties(self) -> dict[str, str]:
        inner = self.c.group("properties")
        result: dict[str, str] = {}
        while True:
            key = self.property_key(inner)
            inner.take_kind(TokenType.EQ)
            result[key] = inner.literal("a property value")
            if inner.done:
                return result
            inner.expect_kind(TokenType.COMMA, ", or )")

    def property_keys(self) -> list[str]:
        inner = self.c.group("property keys")
        keys = [self.property_key(inner)]
        while inner.take_kind(TokenType.COMMA):
            keys.append(self.property_key(inner))
        inner.expect_end()
        return keys

    @staticmethod
    def property_key(inner: _Cursor) -> str:
        token = inner.token()
        if token is not None and token.token_type in _TEXT_STRINGS:
            return inner.string()
        return ".".join(inner.name("a property key").parts)

    def partition_spec(self) -> dict[str, str]:
        c = self.c
        c.expect("PARTITION")
        inner = c.group("partition spec")
        spec: dict[str, str] = {}
        while True:
            column = inner.ident("a partition column")
            if not inner.take_kind(TokenType.EQ):
                raise _Unsupported("a partition spec without a value for every column")
            if inner.word() == "NULL":
                raise _Unsupported("a NULL partition value")
            spec[column] = inner.literal("a partition value")
            if inner.done:
                return spec
            inner.expect_kind(TokenType.COMMA, ", or )")

    def create_view(self, or_replace: bool) -> PlannedStatement:
        c = self.c
        verb = "CREATE OR REPLACE VIEW" if or_replace else "CREATE VIEW"
        if_not_exists = c.at("IF", "NOT", "EXISTS")
        if if_not_exists and or_replace:
            raise c.error("OR REPLACE and IF NOT EXISTS cannot be used together")
        c.take("IF", "NOT", "EXISTS")
        name = c.name("a view name")
        kwargs: dict[str, Any] = {"or_replace": or_replace, "comment": None}
        optional: list[str] = []
        if if_not_exists:
            kwargs["if_not_exists"] = True
            optional.append("if_not_exists")
        if c.is_kind(TokenType.L_PAREN):
            inner = c.group("view columns")
            columns = [inner.ident("a column name")]
            while not inner.done:
                if inner.at("COMMENT"):
                    raise _Unsupported(f"{verb} with column comments")
                inner.expect_kind(TokenType.COMMA, ", or )")
                columns.append(inner.ident("a column name"))
            kwargs["columns"] = tuple(columns)
            optional.append("columns")
        while not c.done:
            if c.take("COMMENT"):
                kwargs["comment"] = c.string("a comment string")
            elif c.take("TBLPROPERTIES"):
                kwargs["properties"] = self.properties()
                optional.append("properties")
            elif c.take("AS"):
                return c.ddl(verb, "create_view", name, as_select=self.query_text(), optional=optional, **kwargs)
            else:
                raise _Unsupported(f"{verb} with {self.clause_name()}")
        raise c.error("expected AS and a query")

    def query_text(self) -> str:
        c = self.c
        if not c.at_any(*_QUERY_STARTS) and not c.is_kind(TokenType.L_PAREN):
            raise c.error("expected a query")
        return c.rest()

    def create_function(self, or_replace: bool) -> PlannedStatement:
        c = self.c
        verb = "CREATE OR REPLACE FUNCTION" if or_replace else "CREATE FUNCTION"
        if_not_exists = c.take("IF", "NOT", "EXISTS")
        extra: dict[str, Any] = {"if_not_exists": True} if if_not_exists else {}
        name = c.name("a function name")
        if c.take("AS"):
            class_name = c.string("a class name string")
            resources: list[tuple[str, str]] = []
            if c.take("USING"):
                while True:
                    kind = c.word()
                    if kind not in ("JAR", "FILE", "ARCHIVE"):
                        raise c.error("expected JAR, FILE or ARCHIVE")
                    c.i += 1
                    resources.append((kind.lower(), c.string("a resource URI string")))
                    if not c.take_kind(TokenType.COMMA):
                        break
            c.expect_end()
            return c.ddl(verb, "create_function", name, class_name=class_name, resources=resources,
                         or_replace=or_replace, optional=extra, **extra)
        if c.is_kind(TokenType.L_PAREN):
            params = c.group("parameters")
            c.expect("RETURNS")
            start = c.i
            depth = 0
            while not c.done and not (depth == 0 and c.at("RETURN")):
                token_type = c.tokens[c.i].token_type
                depth += 1 if token_type is TokenType.L_PAREN else -1 if token_type is TokenType.R_PAREN else 0
                c.i += 1
            if c.done or c.i == start:
                raise c.error("expected RETURNS <type> RETURN <expression>")
            returns = _slice(c.script, c.tokens[start], c.tokens[c.i - 1])
            if not _is_data_type(returns):
                raise _Unsupported(f"{verb} ... RETURNS {returns} (only a return type, then RETURN)")
            c.i += 1
            body = c.rest()
            return c.ddl(verb, "create_sql_function", name, params=params.text(), returns=returns, body=body,
                         or_replace=or_replace, optional=extra, **extra)
        raise c.error("expected AS 'class' or a parameter list")

    def create_database(self, or_replace: bool) -> PlannedStatement:
        c = self.c
        if or_replace:
            raise c.error("CREATE OR REPLACE DATABASE does not exist")
        if_not_exists = c.take("IF", "NOT", "EXISTS")
        database = self.database_name()
        kwargs: dict[str, Any] = {"if_not_exists": if_not_exists}
        optional: list[str] = []
        while not c.done:
            if c.take("COMMENT"):
                kwargs["comment"] = c.string("a comment string")
                optional.append("comment")
            elif c.take("WITH", "DBPROPERTIES") or c.take("WITH", "PROPERTIES"):
                kwargs["properties"] = self.properties()
                optional.append("properties")
            else:
                raise _Unsupported(f"CREATE DATABASE with {self.clause_name()}")
        return c.ddl("CREATE DATABASE", "create_database", database, optional=optional, **kwargs)

    def database_name(self) -> Name:
        return self.c.name("a database name").as_kind("database")

    # -- RENAME, ALTER

    def rename_tables(self) -> PlannedStatement:
        c = self.c
        pairs: list[tuple[Name, Name]] = []
        while True:
            old = c.name("a table name").as_kind("relation")
            c.expect("TO")
            pairs.append((old, c.name("a table name")))
            if not c.take_kind(TokenType.COMMA):
                break
        c.expect_end()
        return c.ddl("RENAME TABLE", "rename_tables", pairs, spark_sql=False)  # not Spark SQL (MariaDB's)

    def alter_table(self) -> PlannedStatement:
        c = self.c
        name = c.name("a table name").as_kind("relation")
        if c.take("RENAME", "TO"):
            new = c.name("a table name").as_kind("new_name", renamed=name)
            c.expect_end()
            return c.ddl("ALTER TABLE ... RENAME TO", "rename_tables", [(name, new)])
        op = self.alter_op()
        c.expect_end()
        return c.ddl(f"ALTER TABLE ... {type(op).__name__}", "alter_table", name, op)

    def alter_op(self) -> alter_ops.AlterOp:
        c = self.c
        if c.take("ADD"):
            if c.take("COLUMNS") or c.take("COLUMN"):
                if c.is_kind(TokenType.L_PAREN):
                    columns = c.group("column list")
                    if columns.done:
                        raise columns.error("empty column list")
                    return alter_ops.AddColumns(columns.text())
                return alter_ops.AddColumns(c.rest())
            if_not_exists = c.take("IF", "NOT", "EXISTS")
            if c.at("PARTITION"):
                spec = self.partition_spec()
                if c.at("PARTITION"):
                    raise _Unsupported("ALTER TABLE ... ADD PARTITION with several partitions (one per statement)")
                if c.at("LOCATION"):
                    raise _Unsupported("ALTER TABLE ... ADD PARTITION ... LOCATION (files outside the warehouse)")
                return alter_ops.AddPartition(spec, if_not_exists)
            raise _Unsupported(f"ALTER TABLE ... ADD {c.word() or '...'}")
        if c.take("DROP"):
            if c.take("COLUMNS") or c.take("COLUMN"):
                if_exists = c.take("IF", "EXISTS")
                source = c.group("column names") if c.is_kind(TokenType.L_PAREN) else c
                dropped = [self.column_name(source)]
                while source.take_kind(TokenType.COMMA):
                    dropped.append(self.column_name(source))
                source.expect_end()
                return alter_ops.DropColumns(tuple(dropped), if_exists)
            if_exists = c.take("IF", "EXISTS")
            if c.at("PARTITION"):
                spec = self.partition_spec()
                if c.is_kind(TokenType.COMMA):
                    raise _Unsupported("ALTER TABLE ... DROP PARTITION with several partitions (one per statement)")
                if c.at("PURGE"):
                    raise _Unsupported("ALTER TABLE ... DROP PARTITION ... PURGE")
                return alter_ops.DropPartition(spec, if_exists)
            raise _Unsupported(f"ALTER TABLE ... DROP {c.word() or '...'}")
        if c.take("SET", "TBLPROPERTIES"):
            return alter_ops.SetProperties(self.properties())
        if c.take("UNSET", "TBLPROPERTIES"):
            if_exists = c.take("IF", "EXISTS")
            return alter_ops.UnsetProperties(tuple(self.property_keys()), if_exists)
        if c.take("ALTER") or c.take("CHANGE"):
            c.take("COLUMN")
            column = self.column_name(c)
            if c.take("TYPE"):
                type_start = c.i
                type_text = c.rest()
                if not _is_data_type(type_text):
                    c.i = type_start
                    raise c.error("expected a data type")
                return alter_ops.ChangeColumnType(column, type_text)
            if c.take("COMMENT"):
                return alter_ops.ColumnComment(column, c.string("a comment string"))
            raise _Unsupported("ALTER TABLE ... ALTER COLUMN in this form (only TYPE or COMMENT)")
        words = " ".join(c.words() + c.words(1)) or "..."
        raise _Unsupported(f"ALTER TABLE ... {words}")

    @staticmethod
    def column_name(source: _Cursor) -> str:
        name = source.name("a column name")
        if name.qualified:
            raise _Unsupported(f"the nested column {'.'.join(name.parts)!r}")
        return name.parts[0]

    def alter_view(self) -> PlannedStatement:
        c = self.c
        name = c.name("a view name").as_kind("relation")
        if c.take("AS"):
            return c.ddl("ALTER VIEW", "alter_view", name, as_select=self.query_text())
        if c.take("RENAME", "TO"):
            new = c.name("a view name").as_kind("new_name", renamed=name)
            c.expect_end()
            return c.ddl("ALTER VIEW ... RENAME TO", "rename_view", name, new)
        raise _Unsupported(f"ALTER VIEW ... {c.word() or '...'}")

    # -- DROP, TRUNCATE, INSERT OVERWRITE

    def drop(self) -> PlannedStatement:
        c = self.c
        if c.at("TEMPORARY") or c.at("TEMP"):
            return c.query()  # DROP TEMPORARY FUNCTION / VARIABLE: session only
        kind = c.word()
        if kind in ("DATABASE", "SCHEMA", "NAMESPACE"):
            c.i += 1
            if_exists = c.take("IF", "EXISTS")
            database = self.database_name()
            cascade = c.take("CASCADE")
            if not cascade:
                c.take("RESTRICT")
            c.expect_end()
            return c.ddl("DROP DATABASE", "drop_database", database, if_exists=if_exists, cascade=cascade)
        if kind not in ("TABLE", "VIEW", "FUNCTION"):
            raise _Unsupported(f"DROP {kind or '...'}")
        c.i += 1
        if_exists = c.take("IF", "EXISTS")
        if kind == "FUNCTION":
            function = c.name("a function name").as_kind("function")
            c.expect_end()
            return c.ddl("DROP FUNCTION", "drop_function", function, if_exists=if_exists)
        names = [name.as_kind("relation") for name in c.names(f"a {kind.lower()} name")]
        if kind == "TABLE" and c.at("PURGE"):
            raise _Unsupported("DROP TABLE ... PURGE")
        c.expect_end()
        single = len(names) == 1  # Spark drops one object per statement
        if kind == "TABLE":
            return c.ddl("DROP TABLE", "drop_tables", names, if_exists=if_exists, spark_sql=single)
        return c.ddl("DROP VIEW", "drop_views", names, if_exists=if_exists, spark_sql=single)

    def truncate(self) -> PlannedStatement:
        c = self.c
        name = c.name("a table name").as_kind("relation")
        if c.at("PARTITION"):
            raise _Unsupported("TRUNCATE TABLE ... PARTITION")
        c.expect_end()
        return c.ddl("TRUNCATE TABLE", "truncate_table", name)

    def insert_overwrite(self) -> PlannedStatement:
        c = self.c
        if c.at("DIRECTORY") or c.at("LOCAL", "DIRECTORY"):
            raise _Unsupported("INSERT OVERWRITE DIRECTORY (writes files, not a table)")
        c.take("TABLE")
        name = c.name("a table name").as_kind("relation")
        extra: dict[str, Any] = {}
        if c.at("PARTITION"):
            extra["partition"] = self.overwrite_partition_spec()
        if c.take("IF", "NOT", "EXISTS"):
            if "partition" not in extra:
                raise c.error("IF NOT EXISTS needs a PARTITION spec")
            extra["if_not_exists"] = True
        if c.at("BY", "NAME") or c.at("REPLACE"):
            raise _Unsupported(f"INSERT OVERWRITE ... {c.word()}")
        if c.is_kind(TokenType.L_PAREN) and not (c.words(1) and c.words(1)[0] in _QUERY_STARTS) \
                and not c.is_kind(TokenType.L_PAREN, 1):
            raise _Unsupported("INSERT OVERWRITE with a column list")
        return c.ddl("INSERT OVERWRITE", "insert_overwrite", name, as_select=self.query_text(), optional=extra,
                     **extra)

    def overwrite_partition_spec(self) -> dict[str, str | None]:
        """``PARTITION (a=1, b)``: a static value, or None for a dynamic column (the query yields it)."""
        c = self.c
        c.expect("PARTITION")
        inner = c.group("partition spec")
        spec: dict[str, str | None] = {}
        while True:
            column = inner.ident("a partition column")
            if inner.take_kind(TokenType.EQ):
                if inner.word() == "NULL":
                    raise _Unsupported("a NULL static partition value (write the column without a value and "
                                       "yield NULL from the query, in dynamic overwrite mode)")
                spec[column] = inner.literal("a partition value")
            else:
                spec[column] = None
            if inner.done:
                return spec
            inner.expect_kind(TokenType.COMMA, ", or )")


def _is_data_type(text: str) -> bool:
    """Whether ``text`` is exactly one Spark data type (``exp.DataType.build`` alone ignores trailing words)."""
    try:
        with _quiet_sqlglot():
            tree = _DIALECT.parse(f"SELECT CAST(NULL AS {text})")[0]
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
