"""Running planned statements: each atomic DDL form through :class:`AtomicDDL` with ``statement=`` its original
text (what the binlog records), anything else unchanged to ``spark.sql``; names are resolved as each one runs."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ddl_log.errors import UnsupportedStatementError
from ddl_log.sql.names import NoSparkFacts, SessionFacts, SparkFacts
from ddl_log.sql.plan import PlannedStatement, SqlResult
from ddl_log.sql.router import plan_script


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
