"""What the golden-file run counts apart from defects: the project's documented refusals and differences
(docs/limitations.md, "What the SQL front end refuses" and "Differences from plain Spark"), and classes being fixed
elsewhere.

A statement of a form of the refusal table (:mod:`tests.differential.refusal_table`) that the project refuses
(``UnsupportedStatementError``) is run again with ``allow_non_atomic=True``, what its users do, and that run is
compared. :data:`KNOWN` names the mismatches that remain documented (or under way elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from tests.differential.golden_compare import ONE_FAILS, OUTPUT_DIFFERS, Result


class Mismatch(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def statement(self) -> str: ...
    @property
    def plain(self) -> Result: ...
    @property
    def atomic(self) -> Result: ...


def rebuilds_on_type_change(compared: Mismatch) -> bool:
    """``ALTER TABLE t CHANGE|ALTER [COLUMN] c [c] TYPE`` to another type: the project rebuilds the table (a
    feature) where Spark refuses a v1 table's type change."""
    return (compared.kind == ONE_FAILS and compared.atomic.ok
            and compared.plain.condition == "NOT_SUPPORTED_CHANGE_COLUMN"
            and bool(re.match(r"\s*ALTER\s+TABLE\b", compared.statement, re.I)))


def replaces_a_session_table(compared: Mismatch) -> bool:
    """``CREATE OR REPLACE TABLE`` / ``REPLACE TABLE`` of a session-catalog table: the project's atomic replace runs
    where Spark refuses it for a v1 table."""
    return (compared.kind == ONE_FAILS and compared.atomic.ok
            and compared.plain.condition == "UNSUPPORTED_FEATURE.TABLE_OPERATION"
            and bool(re.match(r"\s*(?:CREATE\s+OR\s+REPLACE|REPLACE)\s+TABLE\b", compared.statement, re.I)))


_VERSION_ROWS = ("Location", "Statistics")


def describes_a_version_the_project_built(compared: Mismatch) -> bool:
    """DESC of a table whose current version the project built (a replace, a rebuild): it lives in the directory
    its statement wrote, a ``ddllog_`` one (DESC's ``Location``), and its ``Statistics`` row counts the files
    written there (an empty rebuilt table has Spark's empty data file, where plain Spark's never had one); every
    other row as plain Spark's."""
    if compared.kind != OUTPUT_DIFFERS or not re.match(r"\s*(?:DESC|DESCRIBE)\b", compared.statement, re.I):
        return False

    def others(rows: tuple[tuple[str, ...], ...]) -> list[tuple[str, ...]]:
        return [row for row in rows if not row or row[0].strip() not in _VERSION_ROWS]

    locations = [row for row in compared.atomic.rows if row and row[0].strip() == "Location"]
    return (others(compared.atomic.rows) == others(compared.plain.rows) and bool(locations)
            and all("/ddllog_" in " ".join(row) for row in locations))


KNOWN: tuple[tuple[str, Callable[[Mismatch], bool]], ...] = (
    ("documented: a column type change rebuilds the table where Spark refuses NOT_SUPPORTED_CHANGE_COLUMN",
     rebuilds_on_type_change),
    ("documented: CREATE OR REPLACE / REPLACE TABLE replaces a session-catalog table where Spark refuses "
     "UNSUPPORTED_FEATURE.TABLE_OPERATION", replaces_a_session_table),
    ("documented: a version the project built lives in the directory its statement wrote (DESC's Location, "
     "Statistics)", describes_a_version_the_project_built),
)
"""(what, does it apply): mismatches counted apart. A mismatch none names is a defect."""


def known_as(compared: Mismatch) -> str:
    for what, applies in KNOWN:
        if applies(compared):
            return what
    return ""
