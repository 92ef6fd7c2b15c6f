"""Running planned statements: each atomic DDL form as its typed statement on the engine's one path (the binlog
records its original text), anything else unchanged to ``spark.sql``; names are resolved as each one runs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from actions.errors import NotTransactionalError, TransactionStateError
from actions.results import StatementResult
from chains.binlog import BinlogEvent
from ddl_log.engine.transactions import EngineTransaction
from ddl_log.engine.typed import Statement
from ddl_log.errors import UnsupportedStatementError
from ddl_log.frontends.sql.name_resolution import NoSparkFacts, SessionFacts, SparkFacts
from ddl_log.frontends.sql.plan import PlannedStatement, SqlResult
from ddl_log.frontends.sql.router import SparkParser, plan_script
from ddl_log.replication.origin import AppliedPosition, mark_of
from storage.crashpoints import SimulatedCrash
from storage.errors import NotAtomicError


class StatementRunner(Protocol):
    """What runs the statements of a script: :class:`~ddl_log.AtomicDDL` (tests use fakes)."""

    @property
    def spark(self) -> Any: ...

    @property
    def spark_started(self) -> bool: ...

    @property
    def uses_custom_catalog(self) -> bool: ...

    def run(self, statement: Statement) -> StatementResult: ...

    def binlog_events(self) -> list[BinlogEvent]: ...

    def begin_transaction(self, statements: Iterable[Statement] = ()) -> EngineTransaction: ...


def run_sql(ddl: StatementRunner, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
    """Run every statement of ``text`` in order and return their results. The whole script is parsed and checked
    first: a syntax error or an unsupported statement anywhere runs nothing."""
    plans = plan_script(text, allow_non_atomic=allow_non_atomic, parser=spark_parser(ddl))
    return list(execute(ddl, plans))


def execute(ddl: StatementRunner, plans: Iterable[PlannedStatement]) -> Iterator[SqlResult]:
    """Run planned statements one by one, yielding each result as soon as it is there. Names are resolved as each
    statement runs; what is known of the session is forgotten after every statement Spark runs.

    A statement with an origin marker (a ``ddl-log binlog --sql`` script) that this home applied before, as its own
    binlog says, is skipped (kind ``skipped``): the script replays each statement once, however often it runs.

    ``START TRANSACTION`` ... ``COMMIT`` / ``ROLLBACK`` (:func:`check_transactions`, before anything runs): the
    statements between are resolved at START, their locks taken then in one order, and they commit as one
    (:mod:`ddl_log.engine.transactions`); a failing one rolls the transaction back and stops the script."""
    plans = list(plans)
    bodies = check_transactions(plans)
    script = _Script(ddl)
    try:
        for index, plan in enumerate(plans):
            if plan.kind == "control":
                yield script.control(plan, [plans[at] for at in bodies.get(index, [])], bodies.get(index, []))
            elif script.transaction is not None:  # a replayed group applied before: each of its statements skipped
                yield (SqlResult(plan.text, "ddl", ddl.run(script.inside[index])) if index in script.inside
                       else SqlResult(plan.text, "skipped", None))
            else:
                yield script.alone(plan)
    except SimulatedCrash:
        raise  # the process "died": nothing more runs, recovery decides
    except BaseException:
        transaction = script.transaction
        if transaction is not None and transaction.state in ("open", "aborted"):
            transaction.rollback()  # a failing statement, or the caller stopped reading: nothing of it stays
        raise


class _Script:
    """What a script's run knows between its statements: the session's facts, the applied source positions, the
    open transaction and its statements (resolved at START)."""

    def __init__(self, ddl: StatementRunner) -> None:
        self.ddl = ddl
        self.facts: SessionFacts | None = None
        self.applied: AppliedPosition | None = None
        self.transaction: EngineTransaction | None = None
        self.inside: dict[int, Statement] = {}

    def control(self, plan: PlannedStatement, body: list[PlannedStatement], at: list[int]) -> SqlResult:
        """START TRANSACTION (its statements resolved and their locks taken now), COMMIT or ROLLBACK."""
        if plan.label == "START TRANSACTION":
            facts = self.facts = self.facts or _session_facts(self.ddl)
            applied = self.applied = self.applied or AppliedPosition.read(self.ddl.binlog_events())
            self.inside = {index: _transactional(planned, facts) for index, planned in zip(at, body, strict=True)
                           if not applied.replayed(planned.text)}
            self.transaction = self.ddl.begin_transaction(self.inside.values())
            return SqlResult(plan.text, "transaction", None)
        ending, self.transaction = self.transaction, None
        assert ending is not None  # check_transactions paired it
        if plan.label == "COMMIT":
            return SqlResult(plan.text, "transaction", ending.commit())
        ending.rollback()
        return SqlResult(plan.text, "transaction", None)

    def alone(self, plan: PlannedStatement) -> SqlResult:
        """A statement outside a transaction (one skipped when its origin marker says it was applied before)."""
        statement = None
        mark = mark_of(plan.text)
        if mark is not None:
            self.applied = self.applied or AppliedPosition.read(self.ddl.binlog_events())
            if mark.seq <= self.applied.of(mark.origin):
                return SqlResult(plan.text, "skipped", None)
        if plan.draft is not None:
            self.facts = self.facts or _session_facts(self.ddl)
            statement = plan.resolved(self.facts)
        if statement is None and mark is not None:
            raise UnsupportedStatementError(summary_of(plan.text), line=plan.line, statement=plan.text,
                                            reason="a replayed statement must run through the DDL log (its binlog "
                                                   "event records that it was applied); this one would go to Spark")
        result = run_planned(self.ddl, plan, statement)
        if result.kind == "query":
            self.facts = None  # USE, SET CATALOG, CREATE TEMPORARY VIEW ... may have changed the session
        elif mark is not None and self.applied is not None:
            self.applied.seqs[mark.origin] = mark.seq
        return result


def check_transactions(plans: list[PlannedStatement]) -> dict[int, list[int]]:
    """The statements inside each transaction of the script (by the index of its START), checked before anything
    runs: COMMIT or ROLLBACK without START, a START inside a transaction, a transaction the script does not end."""
    bodies: dict[int, list[int]] = {}
    start: int | None = None
    for index, plan in enumerate(plans):
        if plan.kind != "control":
            if start is not None:
                bodies[start].append(index)
            continue
        if plan.label == "START TRANSACTION":
            if start is not None:
                raise TransactionStateError(f"line {plan.line}: START TRANSACTION", "a transaction is open already "
                                            f"(started at line {plans[start].line}); transactions do not nest, nothing "
                                            "was run")
            start, bodies[index] = index, []
        elif start is None:
            raise TransactionStateError(f"line {plan.line}: {plan.label}", "no transaction is open (START "
                                        "TRANSACTION first); nothing was run")
        else:
            start = None
    if start is not None:
        raise TransactionStateError(f"line {plans[start].line}: START TRANSACTION", "the script ends inside the "
                                    "transaction (no COMMIT or ROLLBACK); nothing was run")
    return bodies


def _transactional(plan: PlannedStatement, facts: SessionFacts) -> Statement:
    """The typed statement of ``plan`` inside a transaction (resolved at START: nothing inside changes the session);
    one that would go to Spark is refused before anything runs."""
    statement = plan.resolved(facts) if plan.draft is not None else None
    if statement is None:
        raise NotTransactionalError(f"line {plan.line}: {summary_of(plan.text)}",
                                    "it would run on Spark, outside the DDL log")
    return statement


def run_planned(ddl: StatementRunner, plan: PlannedStatement, statement: Statement | None) -> SqlResult:
    """Run one planned statement whose names are resolved: ``statement`` on the engine's one path, or (None) the
    text as written on ``spark.sql``; a statement the log cannot make atomic for its object (``NotAtomicError``)
    runs as Spark's own when the plan allows it."""
    if statement is None:
        return SqlResult(plan.text, "query", ddl.spark.sql(plan.text))
    try:
        return SqlResult(plan.text, "ddl", ddl.run(statement))
    except NotAtomicError:
        if not plan.allow_non_atomic:
            raise
        return SqlResult(plan.text, "query", ddl.spark.sql(plan.text))  # Spark's own statement, as asked


def read_statements(ddl: StatementRunner, text: str) -> list[Statement]:
    """The typed statements ``text`` is, names resolved now (a replica applies a source event this way): every
    statement must be one the DDL log runs; anything that would go to Spark unchanged is refused."""
    facts: SessionFacts | None = None
    statements = []
    for plan in plan_script(text, allow_non_atomic=False, parser=spark_parser(ddl)):
        facts = facts or _session_facts(ddl)
        statement = None if plan.draft is None else plan.resolved(facts)
        if statement is None:
            raise UnsupportedStatementError(summary_of(plan.text), line=plan.line, statement=plan.text,
                                            reason="it is not a statement of the DDL log (it would go to Spark "
                                                   "unchanged)")
        statements.append(statement)
    return statements


def summary_of(text: str) -> str:
    return " ".join(text.split())[:80]


def spark_parser(ddl: StatementRunner) -> SparkParser | None:
    """Spark's own parser, when the statements run on a classic Spark session (Connect has none in this process; a
    custom catalog without a session is not made to start one): then Spark decides what parses."""
    if ddl.uses_custom_catalog and not ddl.spark_started:
        return None
    from storage.catalogs.spark.profile import is_classic  # Spark's modules only where Spark runs
    from storage.catalogs.spark.sql.analysis import parse_failure

    spark = ddl.spark
    if not is_classic(spark):
        return None

    return lambda statement: parse_failure(spark, statement)


def _session_facts(ddl: StatementRunner) -> SessionFacts:
    if ddl.uses_custom_catalog and not ddl.spark_started:
        return NoSparkFacts()  # a custom catalog and no Spark session: do not start one just to ask
    return SparkFacts(lambda: ddl.spark)
