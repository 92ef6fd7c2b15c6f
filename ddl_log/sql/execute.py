"""Running planned statements: each atomic DDL form through :class:`AtomicDDL` with ``statement=`` its original
text (what the binlog records), anything else unchanged to ``spark.sql``; names are resolved as each one runs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

import attrs

from ddl_log.errors import UnsupportedStatementError
from ddl_log.sql.names import NoSparkFacts, SessionFacts, SparkFacts
from ddl_log.sql.plan import Name, PlannedStatement, SqlResult
from ddl_log.sql.router import SparkParser, plan_script
from ddl_log.statements.typed import Statement
from storage.errors import NotAtomicError


class StatementRunner(Protocol):
    """What runs the statements of a script: :class:`~ddl_log.api.AtomicDDL` (tests use fakes)."""

    @property
    def spark(self) -> Any: ...

    def statement_options(self, kind: type[Statement[Any]]) -> frozenset[str] | None:
        """The optional clauses run for statements of type ``kind``; None when it cannot run them at all."""

    def execute(self, statement: Statement[str]) -> object: ...


def run_sql(ddl: StatementRunner, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
    """Run every statement of ``text`` in order and return their results. The whole script is parsed and checked
    first: a syntax error or an unsupported statement anywhere runs nothing."""
    plans = plan_script(text, allow_non_atomic=allow_non_atomic, parser=_spark_parser(ddl))
    plans = check_available(ddl, plans, allow_non_atomic=allow_non_atomic)
    return list(execute(ddl, plans))


def execute(ddl: StatementRunner, plans: Iterable[PlannedStatement]) -> Iterator[SqlResult]:
    """Run planned statements one by one, yielding each result as soon as it is there. Names are resolved as each
    statement runs; what is known of the session is forgotten after every statement Spark runs."""
    facts: SessionFacts | None = None
    for plan in plans:
        statement = None
        if plan.statement is not None:
            facts = facts or _session_facts(ddl)
            statement = plan.resolved(facts)
        if statement is None:
            result = ddl.spark.sql(plan.text)
            facts = None  # USE, SET CATALOG, CREATE TEMPORARY VIEW ... may have changed the session
            yield SqlResult(plan.text, "query", result)
            continue
        try:
            result = ddl.execute(statement)
        except NotAtomicError:
            if not plan.allow_non_atomic:
                raise
            facts = None
            yield SqlResult(plan.text, "query", ddl.spark.sql(plan.text))  # Spark's own statement, as asked
            continue
        yield SqlResult(plan.text, "ddl", result)


def _spark_parser(ddl: StatementRunner) -> SparkParser | None:
    """Spark's own parser, when the statements run on a classic Spark session (Connect has none in this process; a
    custom catalog without a session is not made to start one): then Spark decides what parses."""
    if getattr(ddl, "_spark", None) is None and getattr(ddl, "_catalog", None) is not None:
        return None
    spark = ddl.spark
    if getattr(spark, "_jsparkSession", None) is None:
        return None
    from storage.catalogs.spark.analysis import parse_failure  # Spark's modules only where Spark runs

    return lambda statement: parse_failure(spark, statement)


def _session_facts(ddl: StatementRunner) -> SessionFacts:
    if getattr(ddl, "_spark", None) is None and getattr(ddl, "_catalog", None) is not None:
        return NoSparkFacts()  # a custom catalog and no Spark session: do not start one just to ask
    return SparkFacts(lambda: ddl.spark)


def check_available(ddl: StatementRunner, plans: Sequence[PlannedStatement], *,
                    allow_non_atomic: bool = False) -> list[PlannedStatement]:
    """Make sure ``ddl`` runs every routed statement with the optional clauses it uses (some forms are read before
    the DDL log can run them). One it does not is unsupported, or goes to ``spark.sql`` when ``allow_non_atomic``."""
    checked: list[PlannedStatement] = []
    for plan in plans:
        if plan.statement is not None:
            missing = _missing_support(ddl, plan, plan.statement)
            if missing:
                if not allow_non_atomic:
                    raise UnsupportedStatementError(f"{plan.label} ({missing})", line=plan.line,
                                                    statement=plan.text)
                plan = PlannedStatement(plan.text, plan.line, "query", label=plan.label)
        checked.append(plan)
    return checked


def _missing_support(ddl: StatementRunner, plan: PlannedStatement, statement: Statement[Name]) -> str:
    options = ddl.statement_options(type(statement))
    if options is None:
        return f"this build of AtomicDDL has no {statement.method}()"
    used = [field.name for field in attrs.fields(type(statement))
            if field.name in plan.optional and field.name not in options]
    return f"{statement.method}() does not take {', '.join(used)} yet" if used else ""
