"""The Python side of the bridge (a Py4J proxy of ``spark_ddl_log.PythonHandler``): the JVM asks it whether the engine
runs a statement (:meth:`Handler.route`, while Spark parses), then to run it (:meth:`Handler.run`, while Spark
analyses the statement's plan), and to run the statements DataFrame writers and the catalog API match
(:meth:`Handler.write`).

It reads statements with the SQL front end, exactly as :meth:`ddl_log.AtomicDDL.sql` does, on the session that
issued them: what it routes, refuses or leaves to Spark is what ``ddl.sql`` would. Every answer is JSON
(:mod:`~ddl_log.frontends.extension.answers`); no exception crosses to the JVM."""

from __future__ import annotations

import itertools
import json
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import attrs

from actions.errors import NotTransactionalError
from ddl_log.engine.release_name import hold_message
from ddl_log.engine.typed import Statement
from ddl_log.errors import SqlParseError
from ddl_log.frontends.extension import answers
from ddl_log.frontends.extension.attached_engine import AttachedEngine
from ddl_log.frontends.extension.sessions import SessionRunner, SessionTable
from ddl_log.frontends.extension.writes import NAME, VIEW, Write, from_command
from ddl_log.frontends.sql import PlannedStatement, SqlResult, plan_script, spark_parser
from ddl_log.frontends.sql.execute import execute, summary_of
from ddl_log.frontends.sql.name_resolution import SparkFacts
from ddl_log.replication.origin import mark_of
from storage.errors import CatalogError, DDLLogError, NotAtomicError

RAW_LITERALS = "spark.sql.parser.escapedStringLiterals"
KEPT_PLANS = 128
"""Statements read at parse time and not run yet (a statement only parsed, never analysed, is forgotten after)."""


@attrs.frozen
class Kept:
    """A statement :meth:`Handler.route` read for :meth:`Handler.run`: its plan and typed statement, or why the
    engine refuses it (refused when it runs, as ``ddl.sql`` refuses it before running anything)."""

    plan: PlannedStatement | None = None
    statement: Statement | None = None
    refusal: BaseException | None = None


class Handler:
    """Implements ``spark_ddl_log.PythonHandler`` for one attached engine and the sessions of its Spark."""

    class Java:
        implements = ["spark_ddl_log.PythonHandler"]

    def __init__(self, engine: AttachedEngine, sessions: SessionTable) -> None:
        self.engine = engine
        self.sessions = sessions
        self._kept: OrderedDict[int, Kept] = OrderedDict()
        self._tokens = itertools.count()
        self._views = itertools.count()
        self._lock = threading.Lock()
        self.last_results: dict[str, SqlResult] = {}

    # ------------------------------------------------------------------ the three calls

    def route(self, jsession: Any, session_id: str, text: str, allow_non_atomic: bool) -> str:
        return self._answer(lambda: self._route(jsession, session_id, text, allow_non_atomic))

    def run(self, jsession: Any, session_id: str, token: int, text: str, allow_non_atomic: bool) -> str:
        return self._answer(lambda: self._run(jsession, session_id, token, text, allow_non_atomic))

    def write(self, jsession: Any, session_id: str, request: str, dataset: Any, allow_non_atomic: bool) -> str:
        return self._answer(lambda: self._write(jsession, session_id, json.loads(request), dataset, allow_non_atomic))

    def closed(self, session_id: str) -> str:
        """The JVM saw the session ``session_id`` go away (a Thrift server's client disconnected)."""
        return self._answer(lambda: self._closed(session_id))

    def _answer(self, call: Callable[[], str]) -> str:
        try:
            with self.engine.internal(marked_in_jvm=True):
                return call()
        except BaseException as error:  # noqa: BLE001 - every failure goes back as Spark's exception, typed inside
            return answers.failure(error)

    # ------------------------------------------------------------------ statements

    def _route(self, jsession: Any, session_id: str, text: str, allow_non_atomic: bool) -> str:
        with self.sessions.runner(session_id, jsession) as runner:
            kept = self._read(runner, text, allow_non_atomic)
        if kept is None:
            return answers.PASS
        with self._lock:
            token = next(self._tokens)
            self._kept[token] = kept
            while len(self._kept) > KEPT_PLANS:
                self._kept.popitem(last=False)
        return answers.token(token)

    def _read(self, runner: SessionRunner, text: str, allow_non_atomic: bool) -> Kept | None:
        """What the engine does with ``text`` on this session: None leaves it to Spark (a query, an object outside
        the session catalog, text Spark itself refuses to parse); inside the session's transaction a statement it
        would leave to Spark is refused, except text Spark refuses to parse."""
        try:
            plans = plan_script(text, allow_non_atomic=allow_non_atomic, parser=spark_parser(runner))
        except DDLLogError as error:
            return None if _spark_refuses(error) else Kept(refusal=error)
        if len(plans) != 1:
            return None  # several statements: Spark refuses them as it would
        plan = plans[0]
        if plan.kind == "control":
            return Kept(plan=plan)  # START TRANSACTION, COMMIT, ROLLBACK: the session's transaction
        if plan.draft is None:
            return _beside(runner, plan)
        if mark_of(plan.text) is not None:
            return Kept(plan=plan)  # a replayed statement: the front end's executor decides (skip or run once)
        try:
            statement = plan.resolved(SparkFacts(lambda: runner.spark))
        except DDLLogError as error:
            return Kept(refusal=error)
        return _beside(runner, plan) if statement is None else Kept(plan=plan, statement=statement)

    def _run(self, jsession: Any, session_id: str, token: int, text: str, allow_non_atomic: bool) -> str:
        with self._lock:
            kept = self._kept.pop(token, None)
        with self.sessions.runner(session_id, jsession) as runner:
            if kept is None:  # read again (the parse was long ago, or in another call)
                kept = self._read(runner, text, allow_non_atomic) or Kept()
            result = self._result(runner, jsession, kept, text)
        self._finished(session_id, result)
        return answers.rows(result)

    def _result(self, runner: SessionRunner, jsession: Any, kept: Kept, text: str) -> SqlResult:
        if kept.refusal is not None:
            runner.refuse(summary_of(text), kept.refusal)  # inside a transaction: rolled back first
        if kept.plan is None:
            return SqlResult(text, "query", runner.spark.sql(text))
        if kept.plan.kind == "control":
            if kept.plan.label == "START TRANSACTION" and runner.transaction is None:
                self.engine.handles.session_ends.watch(jsession)  # a Thrift client gone rolls it back (closed())
            return SqlResult(text, "transaction", runner.control(kept.plan.label))
        if kept.statement is None:
            return next(iter(execute(runner, [kept.plan])))
        return runner.run_planned(kept.plan, kept.statement)

    def _closed(self, session_id: str) -> str:
        self.sessions.closed(session_id)
        self.last_results.pop(session_id, None)
        return answers.DONE

    def _finished(self, session_id: str, result: SqlResult) -> None:
        self.last_results[session_id] = result
        for hold in getattr(result.result, "holds", ()):
            warnings.warn(f"spark-ddl-log: {hold_message(hold, self.engine.home.location)}", stacklevel=1)

    # ------------------------------------------------------------------ DataFrame writers, the catalog API

    def _write(self, jsession: Any, session_id: str, request: dict[str, Any], dataset: Any,
               allow_non_atomic: bool) -> str:
        with self.sessions.runner(session_id, jsession) as runner:
            frame = None if dataset is None else _frame(dataset, runner.spark)
            write = from_command(request, lambda name: bool(runner.spark.catalog.tableExists(name)))
            done = self.run_write(session_id, runner, write, frame, allow_non_atomic)
        return answers.DONE if done else answers.PASS

    def run_write(self, session_id: str, runner: SessionRunner, write: Write, frame: Any,
                  allow_non_atomic: bool) -> bool:
        """Run ``write`` (its DataFrame ``frame``) as its statement; False: the engine leaves it to Spark (an object
        outside the session catalog, or a form it refuses with ``allow_non_atomic`` set). The statement's text is
        built here, its literals escaped as Spark reads them by default: refused (nothing run) in a session that reads
        literals raw (``spark.sql.parser.escapedStringLiterals``)."""
        if str(runner.spark.conf.get(RAW_LITERALS, "false")).strip().lower() == "true":
            raise CatalogError(f"{RAW_LITERALS}=true: a DataFrame write's statement cannot be written for this session "
                               "(its string literals would read differently); nothing was run")
        with self._view(runner, frame) as view:
            text = write.sql.replace(VIEW, view)
            plans = plan_script(text, allow_non_atomic=allow_non_atomic, parser=spark_parser(runner))
            plan = plans[0]
            statement = None
            if plan.draft is not None:
                statement = plan.resolved(SparkFacts(lambda: runner.spark))
            if statement is None:
                if runner.transaction is None:
                    return False
                runner.refuse(summary_of(text), _outside_log(text))
            name = getattr(statement, "name", None)
            changes: dict[str, Any] = {"text": write.binlog.replace(NAME, str(getattr(name, "quoted", name)))}
            if write.overwrite_mode is not None and hasattr(statement, "overwrite_mode"):
                changes["overwrite_mode"] = write.overwrite_mode
            try:
                done = runner.run(attrs.evolve(statement, **changes))  # type: ignore[misc]
            except NotAtomicError:
                if allow_non_atomic and runner.transaction is None:
                    return False
                raise
        self._finished(session_id, SqlResult(changes["text"], "ddl", done))
        return True

    @contextmanager
    def _view(self, runner: SessionRunner, frame: Any) -> Iterator[str]:
        if frame is None:
            yield ""
            return
        from storage.catalogs.spark.engine import SOURCE_VIEW_PREFIX  # Spark's modules only where Spark runs

        view = f"{SOURCE_VIEW_PREFIX}write_{next(self._views)}"
        frame.createOrReplaceTempView(view)
        try:
            yield view
        finally:
            runner.spark.catalog.dropTempView(view)


def _frame(dataset: Any, spark: Any) -> Any:
    from pyspark.sql import DataFrame

    return DataFrame(dataset, spark)


def _beside(runner: SessionRunner, plan: PlannedStatement) -> Kept | None:
    """A statement the engine leaves to Spark: None (Spark runs it), except inside the session's transaction, which
    refuses it (it would change what a ROLLBACK cannot undo)."""
    return None if runner.transaction is None else Kept(plan=plan, refusal=_outside_log(plan.text))


def _outside_log(text: str) -> NotTransactionalError:
    return NotTransactionalError(summary_of(text), "it would run on Spark, outside the DDL log, where a ROLLBACK "
                                 "could not undo it")


def _spark_refuses(error: DDLLogError) -> bool:
    """A parse error with Spark's condition: Spark's parser refuses the text, and says so itself (exactly as on a
    session without the extension)."""
    return isinstance(error, SqlParseError) and error.condition is not None
