"""Running a script on both sides and comparing them after every statement.

The two sides share one Spark (one JVM, one metastore, one warehouse) but each has its own session of it
(``spark.newSession()``): temporary views, the current database and ``SET`` settings are per session, so a script's
``CREATE TEMPORARY VIEW t1`` or ``SET spark.sql.sources.default=json`` acts on its own side only, exactly as it would
for a user running the script alone. The plain side's main database is ``diffplain``, the atomic side's
``diffatomic``; the atomic side runs every statement through ``AtomicDDL(spark=<its session>).sql``.

Per statement: the atomic side runs first (so that a project-only form it refuses as documented need not run on the
plain side at all), then the plain side (:class:`~tests.differential.plain.PlainRunner`); the outcomes must agree
and the two states must be equal (:mod:`tests.differential.state`). A statement the project refuses in a form README
documents as not atomic is run again with ``allow_non_atomic=True`` (what its users do) and compared as such.
"""

from __future__ import annotations

import itertools
import shutil
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from ddl_log import AtomicDDL, CommittedWithPendingWorkWarning
from ddl_log.frontends.extension import statement_error
from tests.differential.outcomes import (
    Outcome,
    classify,
    documented_difference,
    documented_not_atomic,
    documented_refusal,
    succeeded,
)
from tests.differential.plain import PlainRunner
from tests.differential.refused_forms import LOCATIONS
from tests.differential.script import ATOMIC_PREFIX, PLAIN_PREFIX, DropMany, RenameMany, Step, display, render
from tests.differential.state import RowCache, differences, snapshot
from tests.spark.sweep_support import scala_strings


@attrs.frozen
class Difference:
    """Where the two sides parted: the statement, both outcomes, the state paths that differ, a warning."""

    index: int
    step: Step
    plain: Outcome
    atomic: Outcome
    state: tuple[tuple[str, Any, Any], ...] = ()
    warning: str = ""
    documented: str = ""
    """Which difference README documents this is ("" for a defect)."""

    @property
    def outcomes_differ(self) -> bool:
        return not self.plain.agrees(self.atomic)

    @property
    def signature(self) -> str:
        """The class of this difference (statement kind, what each side did, or else which parts of the state
        differ), so the report groups instances and a shrink keeps the same difference."""
        parts = [self.step.production]
        if self.outcomes_differ:  # what the states then differ in follows from it
            parts.append(f"plain {self.plain.label} [{self.plain.key}] / atomic {self.atomic.label} "
                         f"[{self.atomic.key}]")
            if self.plain.classes & self.atomic.classes:  # one class, other conditions
                parts.append(f"condition {self.plain.condition} / {self.atomic.condition}")
        elif self.state:
            paths = sorted({generalise(path) for path, _, _ in self.state})
            parts.append("state " + ", ".join(paths))
        if self.warning:
            parts.append("warning")
        return " | ".join(parts)

    def describe(self) -> str:
        lines = [f"statement {self.index}: {display(self.step.text)}",
                 f"  plain Spark: {self.plain.label}  {self.plain.detail}  ({self.plain.condition})",
                 f"  project:     {self.atomic.label}  {self.atomic.detail}  ({self.atomic.condition})"]
        for path, plain, atomic in self.state[:8]:
            lines.append(f"  state {path}:\n    plain  {shorten(plain)}\n    atomic {shorten(atomic)}")
        if self.warning:
            lines.append(f"  warning: {self.warning}")
        return "\n".join(lines)


def generalise(path: str) -> str:
    """A state path without object names (``database «»/table t1/rows`` -> ``table/rows``)."""
    return "/".join(part.split(" ")[0] for part in path.split("/")[1:] or [path])


def shorten(value: Any, limit: int = 400) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


class Sides:
    """The two sessions, their databases and the atomic side's DDL log home; :meth:`reset` starts afresh.
    ``attached``: the atomic side runs each statement as ``spark.sql`` on a session attached to the home (README
    "Attached sessions"; the JVM must have the extension), not through ``AtomicDDL.sql``."""

    def __init__(self, spark: Any, workdir: Path, *, attached: bool = False) -> None:
        self.spark = spark
        self.workdir = workdir
        self.attached = attached
        self.homes = itertools.count()
        self.ddl: AtomicDDL | None = None
        self.home = workdir / "home"
        self.plain_session: Any = None
        self.atomic_session: Any = None
        self.cache = RowCache()
        self.statements = 0
        self.refused: list[str] = []
        """The statements the project refused as documented (then run with ``allow_non_atomic``)."""

    def reset(self) -> None:
        """Both sides empty: their databases dropped and made again, new sessions, a new DDL log home."""
        self.close()
        external = self.spark._jsparkSession.sharedState().externalCatalog()
        for db in scala_strings(external.listDatabases()):
            if db.startswith((PLAIN_PREFIX, ATOMIC_PREFIX)):
                self.spark.sql(f"DROP DATABASE IF EXISTS `{db}` CASCADE")
        warehouse = Path(str(self.spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:"))
        for leftover in warehouse.glob("diff*.db"):
            shutil.rmtree(leftover, ignore_errors=True)
        shutil.rmtree(LOCATIONS, ignore_errors=True)
        self.cache = RowCache()
        self.plain_session = self.spark.newSession()
        self.atomic_session = self.spark.newSession()
        if self.attached:
            from ddl_log.frontends.extension import ENABLED

            self.plain_session.conf.set(ENABLED, "false")
        for session, prefix in ((self.plain_session, PLAIN_PREFIX), (self.atomic_session, ATOMIC_PREFIX)):
            session.sql(f"CREATE DATABASE {prefix}")
            session.sql(f"USE {prefix}")
        self.home = self.workdir / f"home-{next(self.homes)}"
        shutil.rmtree(self.home, ignore_errors=True)
        if self.attached:
            from ddl_log.frontends.extension import ENABLED, attach

            self.atomic_session.conf.set(ENABLED, "true")
            self.ddl = attach(self.atomic_session, home=self.home)
        else:
            self.ddl = AtomicDDL(spark=self.atomic_session, home=self.home)

    def close(self) -> None:
        """Close the DDL log home (and remove it: every script starts with a new one)."""
        if self.ddl is not None:
            self.ddl.close()
            self.ddl = None
            shutil.rmtree(self.home, ignore_errors=True)

    def temp_views(self) -> set[str]:
        catalog = self.plain_session._jsparkSession.sessionState().catalog()
        found = catalog.listLocalTempViews("*")
        return {str(found.apply(i).table()) for i in range(found.size())}

    def atomic(self, text: str, *, allow_non_atomic: bool = False) -> tuple[Outcome, str]:
        """The atomic side's outcome and any CommittedWithPendingWorkWarning it issued."""
        assert self.ddl is not None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CommittedWithPendingWorkWarning)
            try:
                if self.attached:
                    self.run_attached(render(text, ATOMIC_PREFIX), allow_non_atomic=allow_non_atomic)
                else:
                    self.ddl.sql(render(text, ATOMIC_PREFIX), allow_non_atomic=allow_non_atomic)
                outcome = succeeded()
            except Exception as error:  # noqa: BLE001 - every failure is an outcome to compare
                outcome = classify(statement_error(error) or error)
        pending = [str(w.message) for w in caught if issubclass(w.category, CommittedWithPendingWorkWarning)]
        return outcome, "; ".join(pending)

    def run_attached(self, text: str, *, allow_non_atomic: bool) -> None:
        """``text`` as ``spark.sql`` on the attached session (each statement of it: Spark takes one at a time),
        ``allow_non_atomic`` as the session's setting."""
        from ddl_log.frontends.extension import ALLOW_NON_ATOMIC
        from ddl_log.frontends.sql import split_statements

        self.atomic_session.conf.set(ALLOW_NON_ATOMIC, str(allow_non_atomic).lower())
        try:
            for statement in split_statements(text):
                self.atomic_session.sql(statement)
        finally:
            self.atomic_session.conf.set(ALLOW_NON_ATOMIC, "false")

    def run_step(self, step: Step) -> tuple[Outcome, Outcome, str]:
        """Run ``step`` on both sides: (plain outcome, atomic outcome, warning)."""
        self.statements += 1
        refusal = documented_refusal(render(step.text, PLAIN_PREFIX), self.temp_views(), relations(step))
        atomic, warning = self.atomic(step.text)
        refused_object = documented_not_atomic(atomic)
        if refused_object:
            refusal = refused_object
        if refusal and ("unsupported" in atomic.classes or refused_object):
            self.refused.append(step.text)
            if step.project_only:
                return atomic, atomic, warning
            atomic, warning = self.atomic(step.text, allow_non_atomic=True)
            atomic = attrs.evolve(atomic, detail=f"(documented refusal: {refusal}; with allow_non_atomic) "
                                                 f"{atomic.detail}")
        plain = PlainRunner(self.plain_session).run(step)
        return plain, atomic, warning

    def compare(self, index: int, step: Step, *, check_state: bool = True) -> Difference | None:
        plain, atomic, warning = self.run_step(step)
        state: list[tuple[str, Any, Any]] = []
        if check_state:
            state = differences(snapshot(self.plain_session, PLAIN_PREFIX, self.cache),
                                snapshot(self.atomic_session, ATOMIC_PREFIX, self.cache))
        if plain.agrees(atomic) and not state and not warning:
            return None
        documented = "" if warning else documented_difference(step.text, plain, atomic, state) or ""
        return Difference(index, step, plain, atomic, tuple(state), warning, documented)


def relations(step: Step) -> list[str]:
    """The unqualified names a project-only form looks up as existing relations (temporary views first)."""
    if isinstance(step.plain, DropMany):
        return [name.ident for name in step.plain.names if name.db is None]
    if isinstance(step.plain, RenameMany):
        return [old.ident for old, _ in step.plain.pairs if old.db is None]
    return []


@attrs.define
class ScriptResult:
    statements: int = 0
    differences: list[tuple[Difference, list[Step]]] = attrs.Factory(list)
    """Each difference with the statements that ran before it (the ones without a difference)."""
    documented: list[Difference] = attrs.Factory(list)
    """Differences README documents (not defects; the sides are rebuilt without the statement all the same)."""


def run_script(sides: Sides, steps: Sequence[Step], *, keep_going: bool = True) -> ScriptResult:
    """Run ``steps`` comparing after each one. After a difference the sides have parted, so (``keep_going``) they
    are rebuilt from the statements that agreed so far, without the one that differed, and the script goes on."""
    result = ScriptResult()
    sides.reset()
    kept: list[Step] = []
    for index, step in enumerate(steps):
        found = sides.compare(index, step)
        result.statements += 1
        if found is None:
            kept.append(step)
            continue
        if found.documented:
            result.documented.append(found)
        else:
            result.differences.append((found, list(kept)))
            if not keep_going:
                break
        replay(sides, kept)
    return result


def replay(sides: Sides, steps: Sequence[Step]) -> None:
    """Both sides rebuilt from ``steps`` (run, not compared)."""
    sides.reset()
    for step in steps:
        sides.run_step(step)


def reproduce(sides: Sides, before: Sequence[Step], step: Step, signature: str) -> Difference | None:
    """``step``'s difference after ``before`` (rebuilt, not compared), if it is the one of ``signature``."""
    replay(sides, before)
    found = sides.compare(len(before), step)
    return found if found is not None and found.signature == signature else None


def shrink(sides: Sides, difference: Difference, before: list[Step], *,
           seconds: float = 90.0) -> tuple[list[Step], Difference]:
    """The fewest statements before ``difference``'s statement that still give the same difference (chunks, then
    single statements, dropped while it persists; the statement itself stays last), and that difference. Stops
    after ``seconds`` with the shortest script found so far."""
    deadline = time.monotonic() + seconds
    signature = difference.signature
    alone = reproduce(sides, [], difference.step, signature)
    if alone is not None:
        return [difference.step], alone
    current, best = list(before), difference
    chunk = max(1, len(current) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start, removed = 0, False
        while start < len(current) and time.monotonic() < deadline:
            candidate = current[:start] + current[start + chunk:]
            found = reproduce(sides, candidate, difference.step, signature)
            if found is not None:
                current, best, removed = candidate, found, True
            else:
                start += chunk
        if not removed:
            chunk //= 2
    return [*current, difference.step], best
