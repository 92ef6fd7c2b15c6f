"""One statement of a golden file on each side, and how the two outcomes compare.

A side's :class:`Result` is what a user sees: the rows the statement returned (every statement, queries, SHOW and
DESCRIBE included: bookkeeping shows there), or the error it raised as Spark's condition (the project's typed errors
carry it as ``.condition``; a failure without one is keyed by its type in angle brackets, ``<NoSuchObjectError>``, and
can only differ from Spark's). Rows are normalised as Spark's suite normalises its golden output (times, owners,
expression ids), and sorted unless the statement is a DESCRIBE (whose row order is part of its answer).

:func:`kind_of` names the comparison: :data:`EQUAL`, :data:`FAILING_ALIKE` (the same condition), or a mismatch:
:data:`OUTPUT_DIFFERS`, :data:`ERROR_DIFFERS`, :data:`ONE_FAILS` (one side fails, the other runs), :data:`STATE_DIFFERS`
(the outcomes agree but the catalog, data or session state after them does not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from storage.errors import spark_condition

EQUAL = "equal"
FAILING_ALIKE = "failing alike"
OUTPUT_DIFFERS = "output differs"
ERROR_DIFFERS = "error differs"
ONE_FAILS = "one fails, one runs"
STATE_DIFFERS = "state differs after"
AGREEING = (EQUAL, FAILING_ALIKE)
MISMATCHES = (OUTPUT_DIFFERS, ERROR_DIFFERS, ONE_FAILS, STATE_DIFFERS)

NOT_COMPARED = "[not compared]"
VOLATILE = (
    (re.compile(r"#\d+"), "#x"),
    (re.compile(r"plan_id=\d+"), "plan_id=x"),
    (re.compile(r"(Created Time|Last Access|Created By|Owner)(\s*).*"), rf"\1\2{NOT_COMPARED}"),
    (re.compile(r"transient_lastDdlTime=\d+"), f"transient_lastDdlTime={NOT_COMPARED}"),
    (re.compile(r"'transient_lastDdlTime' = '\d+'"), f"'transient_lastDdlTime' = '{NOT_COMPARED}'"),
    (re.compile(r'"(created_time|last_access|created_by|owner|transient_lastDdlTime)":"[^"]*"'),
     rf'"\1":"{NOT_COMPARED}"'),
    (re.compile(r"(Partition Statistics\s+)\d+"), rf"\1{NOT_COMPARED}"),
    (re.compile(r"(CTERelation(?:Def|Ref)|cterelation(?:def|ref)) \d+,"), r"\1 x,"),
    (re.compile(r"@\w*,"), "@x,"),
)
"""What differs between two runs of the same statement on the same Spark (Spark's suite masks the same)."""
VOLATILE_PROPERTIES = frozenset({"transient_lastDdlTime"})
ORDERED = re.compile(r"^\s*(?:DESC|DESCRIBE)\b", re.I)


@attrs.frozen
class Result:
    """One side's outcome of one statement: rows (``ok``) or the error's condition and first line."""

    ok: bool
    rows: tuple[tuple[str, ...], ...] = ()
    condition: str = ""
    detail: str = ""
    note: str = ""
    """How the side ran it, when not as written (a documented refusal run again with ``allow_non_atomic``)."""

    def describe(self) -> str:
        if self.ok:
            shown = "; ".join(" | ".join(row) for row in self.rows[:6])
            more = f" (+{len(self.rows) - 6} rows)" if len(self.rows) > 6 else ""
            text = f"ok, {len(self.rows)} rows" + (f": {shown[:600]}{more}" if self.rows else "")
        else:
            text = f"fails {self.condition}: {self.detail}"
        return f"{text} [{self.note}]" if self.note else text


def normalise_value(value: str) -> str:
    """A row (its values joined by tabs, as Spark's suite prints it) with its volatile parts masked."""
    for pattern, replacement in VOLATILE:
        value = pattern.sub(replacement, value)
    return value


def masked(row: tuple[str, ...]) -> tuple[str, ...]:
    """A SHOW TBLPROPERTIES row of a volatile property with its value masked."""
    if len(row) == 2 and row[0] in VOLATILE_PROPERTIES:
        return (row[0], NOT_COMPARED)
    return row


def answer(statement: str, rows: Iterable[Any]) -> tuple[tuple[str, ...], ...]:
    """A statement's returned rows as a user compares them: strings, volatile parts masked, sorted unless ordered."""
    found = [masked(tuple(normalise_value("\t".join("NULL" if value is None else str(value) for value in row))
                          .split("\t"))) for row in rows]
    return tuple(found if ORDERED.match(statement) else sorted(found))


def succeeded(statement: str, rows: Iterable[Any], note: str = "") -> Result:
    return Result(True, answer(statement, rows), note=note)


def failed(error: BaseException, note: str = "") -> Result:
    condition = spark_condition(error)[0] or f"<{type(error).__name__}>"
    lines = str(error).strip().splitlines()
    return Result(False, condition=condition, detail=f"{type(error).__name__}: {lines[0][:300] if lines else ''}",
                  note=note)


def kind_of(plain: Result, atomic: Result, state: Sequence[Any]) -> str:
    """How the two sides' outcomes of one statement compare (``state``: the differences of the state after it)."""
    if plain.ok != atomic.ok:
        return ONE_FAILS
    if plain.ok and plain.rows != atomic.rows:
        return OUTPUT_DIFFERS
    if not plain.ok and plain.condition != atomic.condition:
        return ERROR_DIFFERS
    if state:
        return STATE_DIFFERS
    return EQUAL if plain.ok else FAILING_ALIKE


def head(statement: str, words: int = 3) -> str:
    """The statement's leading keywords (comments dropped), upper case: how mismatches are grouped."""
    text = re.sub(r"/\*.*?\*/", " ", statement, flags=re.S)
    tokens = re.findall(r"[A-Za-z_]+", text)
    return " ".join(tokens[:words]).upper()
