"""What reading a statement yields before it runs: the :class:`PlannedStatement` with its :class:`Name` objects
(resolved as Spark would only when the statement runs), and each statement's :class:`SqlResult`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

import attrs

from ddl_log.engine.typed import Statement
from ddl_log.errors import UnsupportedStatementError
from ddl_log.frontends.sql.name_resolution import NameKind, SessionFacts, Target, resolve
from storage.catalogs.names import SESSION_CATALOG, quote_ident


@attrs.frozen
class SqlResult:
    """One statement's outcome. ``kind``: ``"ddl"`` ran atomically through :class:`AtomicDDL` (``result`` is the
    method's return value); ``"query"`` went unchanged to ``spark.sql`` (``result`` is its DataFrame); ``"skipped"``:
    a replayed statement this home applied before (``result`` None); ``"transaction"``: START TRANSACTION, COMMIT
    (``result`` the group's :class:`~replace_table.transaction.Committed`) or ROLLBACK."""

    statement: str
    kind: Literal["ddl", "query", "skipped", "transaction"]
    result: Any = attrs.field(repr=False)


@attrs.frozen
class Name:
    """An object name as written (backquotes removed), resolved as Spark would when the statement runs. ``kind``:
    how Spark looks it up (see :data:`ddl_log.frontends.sql.name_resolution.NameKind`); ``renamed``: for the new name
    of ALTER ... RENAME TO, the name being renamed."""

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
class Draft:
    """A statement read from SQL with its names as written: ``build`` (a statement type's constructor,
    :meth:`Statement.of`) makes the typed statement once every :class:`Name` in ``args`` and ``kwargs`` is resolved
    the way Spark would resolve it when the statement runs."""

    build: Callable[..., Statement]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = attrs.field(factory=dict)


def draft(build: Callable[..., Statement], *args: Any, **kwargs: Any) -> Draft:
    return Draft(build, args, kwargs)


@attrs.frozen
class PlannedStatement:
    """A statement read and routed, not run yet. ``draft`` is None for statements that go to ``spark.sql`` and for
    transaction control (kind ``control``, ``label`` START TRANSACTION, COMMIT or ROLLBACK)."""

    text: str
    line: int
    kind: Literal["ddl", "query", "control"]
    draft: Draft | None = None
    label: str = ""
    """What the statement is, for messages (``"CREATE VIEW"``)."""
    spark_sql: bool = True
    """Spark runs this text itself (False: a form only the DDL log knows, such as ``DROP TABLE a, b``)."""
    allow_non_atomic: bool = False
    spark_if: Callable[[SessionFacts], bool] | None = attrs.field(default=None, eq=False)
    """Spark reads the same text as a statement of its own when this holds in the session (``DESCRIBE history x``
    while a relation ``history`` exists): the text then goes to Spark as written."""

    def names(self) -> list[Name]:
        """Every name of the statement, its own object first."""
        if self.draft is None:
            return []
        return list(_names([*self.draft.args, *self.draft.kwargs.values()]))

    def resolved(self, facts: SessionFacts) -> Statement | None:
        """The typed statement, every :class:`Name` resolved (a table as a parsed name, a database by name); None
        when it goes to Spark unchanged (its object lies outside the session catalog, or Spark itself refuses it).
        Raises :class:`UnsupportedStatementError` when neither the DDL log nor Spark can run it as Spark would."""
        assert self.draft is not None
        if self.spark_if is not None and self.spark_if(facts):
            return None
        done: dict[Name, Target] = {}
        targets = [name.resolve(facts, done) for name in self.names()]
        if all(target.in_session for target in targets):
            if targets and not self._session_is_current(facts, targets[0]):
                return None
            args = [_substitute(value, done) for value in self.draft.args]
            kwargs = {key: _substitute(value, done) for key, value in self.draft.kwargs.items()}
            return self.draft.build(*args, **kwargs, text=self.text)
        odd = next(target for target in targets if not target.in_session)
        if not self.spark_sql:
            raise UnsupportedStatementError(
                f"{self.label} naming {odd.text}", line=self.line, statement=self.text, name=odd.text,
                reason="this statement was not run: the DDL log acts only on the session catalog's tables, and Spark "
                       "cannot run this form (one statement per object can go to Spark)")
        if targets[0].where == "outside" or any(t.where == "spark_error" for t in targets) or self.allow_non_atomic:
            return None
        raise UnsupportedStatementError(f"{self.label} with {odd.text}", line=self.line, statement=self.text,
                                        name=odd.text,
                                        reason=f"this statement was not run, {UnsupportedStatementError.NOT_ATOMIC}")

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


def _names(values: tuple[Any, ...] | list[Any]) -> Iterator[Name]:
    for value in values:
        if isinstance(value, Name):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _names(value)


def _substitute(value: Any, done: dict[Name, Target]) -> Any:
    if isinstance(value, Name):
        return done[value].value
    if isinstance(value, list):
        return [_substitute(item, done) for item in value]
    if isinstance(value, tuple):
        return tuple(_substitute(item, done) for item in value)
    return value
