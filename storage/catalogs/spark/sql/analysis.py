"""Spark's own parser and analyzer, run on a statement without running it: what Spark refuses is refused with
Spark's reason before anything is logged, and what Spark parses is never refused by a laxer or stricter parser
of our own.

Classic sessions go through the JVM: ``sessionState.sqlParser.parsePlan`` (the parser ``spark.sql`` uses, variable
substitution included) and ``executePlan(plan, CommandExecutionMode.SKIP).assertAnalyzed()``, which resolves a
command (a CREATE TABLE's columns, partitioning, bucketing, provider, the query of a CTAS) without executing it.
Spark Connect has no JVM handle: ``EXPLAIN`` analyses without running, raising parse errors and reporting analysis
errors as its output rows ("Error occurred during query planning: ..."), which :func:`analysis_failure` reads.
"""

from __future__ import annotations

from typing import Any

import attrs

from storage.catalogs.interface import ParseFailure
from storage.catalogs.spark.engine import ENGINE_ERRORS, Failure, inspect_error, short_message
from storage.catalogs.spark.jvm import static, with_active_session
from storage.catalogs.spark.profile import jvm_of, profile_of
from storage.catalogs.spark.profiles.facts import Cause

_PLANNING_ERROR = "Error occurred during query planning:"


def _java_exception(error: BaseException) -> Any:
    """The JVM exception behind a JVM call's error: a raw Py4J error's, or the one PySpark's exception handler
    (installed for every py4j call) converted into a PySpark exception."""
    java = getattr(error, "java_exception", None)
    return java if java is not None else getattr(error, "_origin", None)


def _converted(error: BaseException) -> BaseException:
    """A Py4J error of a JVM call as the PySpark exception ``spark.sql`` would raise (condition, parameters)."""
    java = getattr(error, "java_exception", None)
    if java is None:
        return error
    try:
        from pyspark.errors.exceptions.captured import convert_exception

        return convert_exception(java)
    except Exception:  # noqa: BLE001 - an unknown Java exception keeps its Py4J form
        return error


def _option_int(scala: Any) -> int | None:
    try:
        return int(scala.get()) if scala.isDefined() else None
    except ENGINE_ERRORS:
        return None


def parse_failure(spark: Any, statement: str) -> ParseFailure | None:
    """Why Spark's parser refuses ``statement``; None when it parses. Raises :class:`LookupError` when this session
    has no JVM parser to ask (Spark Connect): the caller falls back to its own reading."""
    jvm = jvm_of(spark)
    if jvm is None:
        raise LookupError("no JVM parser on this session")
    try:  # the session's own settings (spark.sql.caseSensitive ...) decide, as in its spark.sql: it is the active one
        with_active_session(jvm, lambda: jvm.session.sessionState().sqlParser().parsePlan(statement))
    except ENGINE_ERRORS as error:
        java = _java_exception(error)
        if java is None:
            raise
        causes = profile_of(spark).conditions.java_causes(str(java.getClass().getName()))
        if Cause.PARSE_ERROR not in causes:
            raise
        line = _option_int(java.line()) or 1
        position = _option_int(java.startPosition()) or 0
        # the exception's own condition: one round trip (its parameters, read through Py4J, took about 11 ms)
        condition = java.getCondition()
        return ParseFailure(_parse_reason(str(java.getMessage())), line, position + 1,
                            None if condition is None else str(condition))
    return None


def _analyzed(state: Any, statement: str, skip: Any) -> Any:
    execution = state.executePlan(state.sqlParser().parsePlan(statement), skip)
    execution.assertAnalyzed()
    return execution.analyzed()


def _disabled_type_failure(spark: Any, analyzed: Any) -> Failure | None:
    """A CREATE TABLE whose columns hold a type the session keeps off (Spark 4.1+'s TIME): Spark's analyzer passes
    it and the CREATE fails only when it runs, so say now what Spark would say then. No JVM call on lines without
    such types; two (the setting, the definition) on the others."""
    profile = profile_of(spark)
    facts = profile.facts
    if not facts.disabled_types or str(analyzed.getClass().getSimpleName()) not in facts.classes.create_table_commands:
        return None
    schema: str | None = None
    for disabled in facts.disabled_types:
        if str(spark.conf.get(disabled.setting, "false")).lower() == "true":
            continue
        schema = str(analyzed.table().schema().json()) if schema is None else schema
        if disabled.json_marker in schema:
            message = f"[{disabled.condition}] {disabled.message}"
            return Failure(disabled.condition, {}, message, True, RuntimeError(message),
                           profile.conditions.causes(disabled.condition))
    return None


def _parse_reason(message: str) -> str:
    """Spark's parse message without its SQL excerpt and position lines."""
    return short_message(message.split("\n== SQL", 1)[0])


def analysis_failure(spark: Any, statement: str) -> Failure | None:
    """What Spark's parser or analyzer says against ``statement`` (a command is resolved, not run); None when
    both accept it."""
    return analysis(spark, statement).failure


@attrs.frozen
class Analysis:
    """What Spark's analyzer made of a statement: ``failure`` (None: accepted), else ``plan``, the analysed logical
    plan in the JVM (a classic session's; None on Spark Connect), which :func:`run_analysed` runs as ``spark.sql``
    would run the statement, without parsing or analysing it again."""

    failure: Failure | None
    plan: Any = None


def analysis(spark: Any, statement: str) -> Analysis:
    """:func:`analysis_failure`, with the analysed plan of an accepted statement on a classic session."""
    jvm = jvm_of(spark)
    if jvm is not None:
        state = jvm.session.sessionState()
        skip = static(jvm.view, jvm.classes.command_execution_mode, "SKIP")()
        try:  # with the session active, as its spark.sql would: its settings decide what parses and resolves
            analyzed = with_active_session(jvm, lambda: _analyzed(state, statement, skip))
        except ENGINE_ERRORS as error:
            return Analysis(inspect_error(_converted(error)))
        failure = _disabled_type_failure(spark, analyzed)
        return Analysis(failure, analyzed if failure is None else None)
    try:
        rows = spark.sql(f"EXPLAIN {statement}").collect()
    except ENGINE_ERRORS as error:
        return Analysis(inspect_error(error))
    output = "\n".join(str(row[0]) for row in rows)
    if not output.startswith(_PLANNING_ERROR):
        return Analysis(None)
    failure = inspect_error(RuntimeError(output[len(_PLANNING_ERROR):].strip()))
    return Analysis(attrs.evolve(failure, analysis=True))


@attrs.frozen
class CheckedStatement:
    """A statement Spark's analyzer accepted in a check: its text and analysed plan (a classic session's), which the
    statement's own run executes (:func:`run_analysed`) when it is that text, so that it is analysed once."""

    statement: str
    plan: Any


def run_analysed(spark: Any, plan: Any) -> None:
    """Run ``plan`` (an :class:`Analysis`'s, of a command on ``spark``'s classic session) as ``spark.sql`` runs a
    command: at once. Spark's analyzer skips a plan it has analysed, so the statement is analysed once in all."""
    jvm = jvm_of(spark)
    assert jvm is not None  # only a classic session's analysis has a plan
    with_active_session(jvm, lambda: static(jvm.view, jvm.classes.dataset, "ofRows")(jvm.session, plan))
