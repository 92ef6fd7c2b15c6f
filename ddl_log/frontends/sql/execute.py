"""Running planned statements: each atomic DDL form as its typed statement on the engine's one path (the binlog
records its original text), anything else unchanged to ``spark.sql``; names are resolved as each one runs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import attrs

from actions.errors import NotTransactionalError, TransactionStateError
from actions.results import StatementResult
from chains.binlog import BinlogEvent
from ddl_log.engine.transactions import EngineTransaction
from ddl_log.engine.typed import Statement
from ddl_log.errors import UnsupportedStatementError
from ddl_log.frontends.sql.name_resolution import NoSparkFacts, SessionFacts, SparkFacts
from ddl_log.frontends.sql.plan import PlannedStatement, SqlResult
from ddl_log.frontends.sql.router import SparkParser, plan_script
from ddl_log.replication.errors import ReplayedElsewhereError
from ddl_log.replication.origin import AppliedPosition, Mark, event_id, mark_of
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

    @property
    def home_origin(self) -> str:
        """The origin id the home's own events carry in a ``binlog --sql`` script of it."""

    def begin_transaction(self, statements: Iterable[Statement] = (), *,
                          publish_to_read: bool = False) -> EngineTransaction: ...


def run_sql(ddl: StatementRunner, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
    """Run every statement of ``text`` in order and return their results. The whole script is parsed and checked
    first: a syntax error or an unsupported statement anywhere runs nothing."""
    plans = plan_script(text, allow_non_atomic=allow_non_atomic, parser=spark_parser(ddl))
    return list(execute(ddl, plans))


def execute(ddl: StatementRunner, plans: Iterable[PlannedStatement]) -> Iterator[SqlResult]:
    """Run planned statements one by one, yielding each result as soon as it is there. Names are resolved as each
    statement runs; what is known of the session is forgotten after every statement Spark runs.

    A statement with an origin marker (a ``ddl-log binlog --sql`` script) that this home has, as its own binlog says
    (applied before, or its own event: a script of its own binlog), is skipped (kind ``skipped``): the script replays
    each statement once, however often it runs and against any home, its origin included.

    ``START TRANSACTION`` ... ``COMMIT`` / ``ROLLBACK`` (:func:`check_transactions`, before anything runs): the
    statements between are resolved at START, their locks taken then in one order, and they commit as one
    (:mod:`ddl_log.engine.transactions`); a failing one rolls the transaction back and stops the script. A replayed
    group (each statement with its origin marker) reads what its earlier statements changed, as its source did."""
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
        self.applied: Applied | None = None
        self.transaction: EngineTransaction | None = None
        self.inside: dict[int, Statement] = {}

    def control(self, plan: PlannedStatement, body: list[PlannedStatement], at: list[int]) -> SqlResult:
        """START TRANSACTION (its statements resolved and their locks taken now), COMMIT or ROLLBACK."""
        if plan.label == "START TRANSACTION":
            facts = self.facts = self.facts or _session_facts(self.ddl)
            applied = self.applied = self.applied or Applied.read(self.ddl)
            self.inside = {index: _transactional(planned, facts) for index, planned in zip(at, body, strict=True)
                           if not applied.holds_text(planned.text)}
            replayed = bool(body) and all(mark_of(planned.text) is not None for planned in body)
            self.transaction = self.ddl.begin_transaction(self.inside.values(), publish_to_read=replayed)
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
            self.applied = self.applied or Applied.read(self.ddl)
            if self.applied.holds(mark):
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
            self.applied.position.seqs[mark.origin] = mark.seq
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


@attrs.frozen
class Applied:
    """What a home already has of a replayed script, as MySQL's ``gtid_executed`` says it (a statement it has is
    skipped): the events of another origin its markers name (:class:`AppliedPosition`), and its own events (a
    script of its own binlog, or of a home that replayed it: failback by script)."""

    position: AppliedPosition
    origin: str
    own: dict[int, str]
    """The home's own events: seq -> identity."""

    @classmethod
    def read(cls, ddl: StatementRunner) -> Applied:
        events = ddl.binlog_events()
        return cls(AppliedPosition.read(events), ddl.home_origin, {event.seq: event_id(event) for event in events})

    def holds(self, mark: Mark) -> bool:
        """Whether the home has the event ``mark`` names; :class:`ReplayedElsewhereError` when it has another
        event under that name (the script comes from another home at this path, or from before a restore)."""
        if mark.origin == self.origin:
            if mark.seq not in self.own:
                return False  # not (any more) in its binlog: a statement to run (recovery of a restored home)
            have: str | None = self.own[mark.seq]
        elif mark.seq > self.position.of(mark.origin):
            return False
        else:  # at or before the position: applied, skipped by a filter or copied by a bootstrap
            have = self.position.ident_of(mark.origin, mark.seq)
        if mark.ident is not None and have is not None and have != mark.ident:
            raise ReplayedElsewhereError(mark.origin, mark.seq, mark.ident, have)
        return True

    def holds_text(self, text: str) -> bool:
        """Whether ``text`` carries an origin marker of an event the home has (:meth:`holds`)."""
        mark = mark_of(text)
        return mark is not None and self.holds(mark)


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
