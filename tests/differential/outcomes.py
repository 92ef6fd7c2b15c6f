"""What a statement's outcome is, on either side: success, or failure of one error class.

Plain Spark names its errors by condition (``TABLE_OR_VIEW_ALREADY_EXISTS``), the project by type
(:class:`ddl_log.ObjectExistsError`); a user cares about the kind of failure, not its spelling, so both are mapped
onto a few classes and the classes compared:

========== ============================================================================================
exists     the object (table, view, function, database, partition, column) is there already
missing    the object (or column) is not there
refused    the object is there but of the wrong kind or state (a view for a table, a database not empty)
invalid    the definition or the statement's columns and types are wrong (bad type, unknown column ...)
parse      the text does not parse
data       a value does not fit (cast, overflow, too long): found while the rows are written
unsupported  the statement is refused as such (:class:`ddl_log.UnsupportedStatementError`)
========== ============================================================================================

A project error that carries the engine's error (``.cause``) is classified by that error, the most precise one; one
that names Spark's condition (``.condition``: a parse or kind refusal, a value that does not convert) by that.
An error no table knows is its own class (``other:<condition>``), so it never matches by accident.

The project may refuse a statement as not atomic only in the forms docs/limitations.md's refusal table documents
(:mod:`tests.differential.refusal_table`, the one list of them); any other refusal of a statement Spark runs is a
difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from ddl_log import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
    SqlParseError,
    StatementFailedError,
    UnsupportedStatementError,
)
from storage.errors import spark_condition
from tests.differential.refusal_table import refused_form

OK = "ok"
CONDITIONS = {
    "exists": ("TABLE_OR_VIEW_ALREADY_EXISTS", "SCHEMA_ALREADY_EXISTS", "ROUTINE_ALREADY_EXISTS",
               "PARTITIONS_ALREADY_EXIST", "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", "VIEW_ALREADY_EXISTS",
               "COLUMN_ALREADY_EXISTS"),
    "missing": ("TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND", "ROUTINE_NOT_FOUND", "PARTITIONS_NOT_FOUND",
                "UNRESOLVED_ROUTINE", "VIEW_NOT_FOUND", "CANNOT_REPLACE_MISSING_TABLE", "LOAD_DATA_PATH_NOT_EXISTS",
                "PATH_NOT_FOUND", "UNRESOLVED_COLUMN", "FIELD_NOT_FOUND", "COLUMN_NOT_FOUND"),
    "refused": ("EXPECT_TABLE_NOT_VIEW", "EXPECT_VIEW_NOT_TABLE", "WRONG_COMMAND_FOR_OBJECT_TYPE",
                "SCHEMA_NOT_EMPTY", "NOT_A_PARTITIONED_TABLE", "UNSUPPORTED_FEATURE.DROP_DATABASE",
                "CANNOT_RENAME_ACROSS_SCHEMA", "UNSUPPORTED_FEATURE.DROP_DEFAULT_DATABASE",
                "_LEGACY_ERROR_TEMP_1251", "UNSUPPORTED_OVERWRITE", "CANNOT_ALTER_PARTITION_COLUMN"),
    "invalid": ("COLUMN_NOT_DEFINED_IN_TABLE", "UNSUPPORTED_DATATYPE", "DATATYPE_MISSING_SIZE", "DATATYPE_MISMATCH",
                "INCOMPATIBLE_DATA_FOR_TABLE",
                "INSERT_COLUMN_ARITY_MISMATCH", "INSERT_PARTITION_COLUMN_ARITY_MISMATCH",
                "ALL_PARTITION_COLUMNS_NOT_ALLOWED", "INVALID_DEFAULT_VALUE", "INVALID_INLINE_TABLE",
                "NOT_SUPPORTED_CHANGE_COLUMN", "PARTITION_SCHEMA_IS_EMPTY", "INVALID_PARTITION_COLUMN_DATA_TYPE",
                "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", "NON_PARTITION_COLUMN",
                "PARTITIONS_NOT_FOUND_IN_SPEC", "INVALID_PARTITION_OPERATION", "CREATE_VIEW_COLUMN_ARITY_MISMATCH",
                "SPECIFY_BUCKETING_IS_NOT_ALLOWED", "INVALID_BUCKET_COLUMN_DATA_TYPE", "NOT_NULL_CONSTRAINT_VIOLATION",
                "INVALID_SCHEMA", "UNRESOLVED_ALL_IN_GROUP_BY", "CANNOT_UP_CAST_DATATYPE", "CANNOT_PARSE_DATATYPE",
                "INVALID_PARTITION_VALUE", "INVALID_COLUMN_NAME_AS_PATH", "INVALID_NON_DETERMINISTIC_EXPRESSIONS",
                "_LEGACY_ERROR_TEMP_1324", "AMBIGUOUS_REFERENCE", "INVALID_PARAMETER_VALUE",
                "INVALID_SCHEMA_OR_RELATION_NAME", "_LEGACY_ERROR_TEMP_1052", "_LEGACY_ERROR_TEMP_3072",
                "_LEGACY_ERROR_TEMP_1232", "_LEGACY_ERROR_TEMP_1169"),
    "parse": ("PARSE_SYNTAX_ERROR", "PARSE_EMPTY_STATEMENT", "INVALID_SQL_SYNTAX", "DUPLICATE_CLAUSES",
              "INVALID_ESC", "UNCLOSED_BRACKETED_COMMENT"),
    "data": ("CAST_INVALID_INPUT", "CAST_OVERFLOW", "CAST_OVERFLOW_IN_TABLE_INSERT", "ARITHMETIC_OVERFLOW",
             "EXCEED_LIMIT_LENGTH", "NUMERIC_VALUE_OUT_OF_RANGE", "DIVIDE_BY_ZERO", "TASK_WRITE_FAILED",
             "NOT_NULL_ASSERT_VIOLATION", "DATETIME_OVERFLOW", "INVALID_ARRAY_INDEX"),
    "unsupported": ("UNSUPPORTED_FEATURE",),
}
CLASS_OF = {condition: kind for kind, conditions in CONDITIONS.items() for condition in conditions}

LIKE_SOURCE = re.compile(r"\bLIKE\s+(`[^`]+`|\w+)", re.I)
TEMPORARY_VIEW_IN_PROJECT_ONLY_FORM = "a project-only form (DROP TABLE a, b / RENAME TABLE) naming a temporary view"
"""README ("SQL front end"): a statement that cannot go to Spark as written and names an object outside the session
catalog (a temporary view) is refused; so is ``CREATE TABLE t LIKE <temporary view>``."""
@attrs.frozen
class DocumentedDifference:
    """A difference README documents, reported apart, not as a defect: ``what`` it is, for statements matching
    ``statement``, told by exactly one of the other fields."""

    what: str
    statement: re.Pattern[str]
    plain_refuses: str = ""
    """Plain Spark refuses the statement with this (a condition, or text of its message) where the project runs it."""
    conditions: tuple[str, str] | None = None
    """Both fail, plain Spark with the first condition, the project with the second."""
    project_message: str = ""
    """Plain Spark runs the statement, the project fails with this in its error message."""
    state_part: str = ""
    """Both agree, and this part of the state is the only one that differs (empty on the atomic side)."""

    def explains(self, plain: Outcome, atomic: Outcome, state: list[tuple[str, Any, Any]]) -> bool:
        if self.plain_refuses:
            return atomic.ok and not plain.ok and self.plain_refuses in plain.detail
        if self.conditions is not None:
            return (plain.condition, atomic.condition) == self.conditions
        if self.project_message:
            return plain.ok and not atomic.ok and self.project_message in atomic.detail
        return (bool(self.state_part) and plain.agrees(atomic) and bool(state)
                and all(path.endswith("/" + self.state_part) and not value for path, _, value in state))


DOCUMENTED_DIFFERENCES = (
    DocumentedDifference(
        "INSERT OVERWRITE of a table from itself runs, where Spark refuses it (README, SQL front end)",
        re.compile(r"^\s*(?:(?:WITH|FROM)\b.*?\b)?INSERT\s+OVERWRITE\b", re.I | re.S),
        plain_refuses="UNSUPPORTED_OVERWRITE"),
    DocumentedDifference(
        "a partitioned Hive serde table renamed in (the rename path) onto the name's directory holding the table's "
        "own kept version is refused until RELEASE TABLE NAME (README Limitations)",
        re.compile(r"^\s*(?:CREATE\s+OR\s+REPLACE\s+TABLE|REPLACE\s+TABLE|ALTER\s+TABLE)\b", re.I),
        project_message="where a previous version of"),
    DocumentedDifference(
        "plain Spark's failed CREATE TABLE AS SELECT of a name its catalog cannot store leaves the data it wrote "
        "behind, so its next CREATE of that name fails LOCATION_ALREADY_EXISTS; the project refuses the name before "
        "it writes anything (INVALID_SCHEMA_OR_RELATION_NAME) every time (README, differences)",
        re.compile(r"^\s*CREATE\b", re.I),
        conditions=("LOCATION_ALREADY_EXISTS", "INVALID_SCHEMA_OR_RELATION_NAME")),
    DocumentedDifference(
        "a view renamed to its own name fails TABLE_OR_VIEW_ALREADY_EXISTS, where plain Spark first resolves the "
        "view and fails INCOMPATIBLE_VIEW_SCHEMA_CHANGE for a view its tables no longer fit (README, differences)",
        re.compile(r"^\s*ALTER\s+VIEW\b.*\bRENAME\s+TO\b", re.I),
        conditions=("INCOMPATIBLE_VIEW_SCHEMA_CHANGE", "TABLE_OR_VIEW_ALREADY_EXISTS")),
)
"""Differences README documents (docs/limitations.md, "Differences from plain Spark") that the generator's run
meets."""


@attrs.frozen
class Outcome:
    """``classes``: {"ok"}, or the error class; an emulated failure (plain Spark has no statement to compare with)
    may allow several classes a reasonable engine could report. ``detail``: what was raised, for the report."""

    classes: frozenset[str]
    detail: str = ""
    key: str = ""
    """What exactly was raised, in one word: Spark's condition, or the project's error type (and, for an
    unsupported statement, what it named); differences are grouped by it."""
    condition: str | None = None
    """Spark's error condition of the failure (plain Spark's own; the project's ``.condition``): README promises
    the project fails with the condition plain Spark raises, so two failures of one class but other conditions
    differ."""

    @property
    def ok(self) -> bool:
        return OK in self.classes

    @property
    def label(self) -> str:
        return "|".join(sorted(self.classes))

    def agrees(self, other: Outcome) -> bool:
        """The same class, and the same condition wherever both name one (an emulated failure names none)."""
        if not self.classes & other.classes:
            return False
        return self.condition is None or other.condition is None or self.condition == other.condition


def succeeded(detail: str = "") -> Outcome:
    return Outcome(frozenset({OK}), detail)


def failed(classes: str | Iterable[str], detail: str, key: str = "emulated", condition: str | None = None) -> Outcome:
    return Outcome(frozenset({classes} if isinstance(classes, str) else classes), detail, key, condition)


def condition_of(error: BaseException) -> str | None:
    getter = getattr(error, "getCondition", None)
    if callable(getter):
        try:
            found = getter()
        except Exception:  # noqa: BLE001 - an error without a condition
            return None
        return str(found) if found else None
    return None


def spark_class(condition: str) -> str:
    for key in (condition, condition.split(".")[0]):
        if key in CLASS_OF:
            return CLASS_OF[key]
    return f"other:{condition}"


def classify(error: BaseException) -> Outcome:
    """The outcome of a statement that raised ``error`` (plain Spark's or the project's), with Spark's condition of
    it (:func:`storage.errors.spark_condition`: the one walker the project's ``.condition`` uses)."""
    exact = spark_condition(error)[0]
    detail = f"{type(error).__name__}: {first_line(error)}"
    cause = getattr(error, "cause", None)
    if isinstance(cause, BaseException) and (condition_of(cause) or isinstance(error, StatementFailedError)):
        inner = classify(cause)
        return Outcome(inner.classes, f"{detail} <- {inner.detail}", f"{type(error).__name__} <- {inner.key}",
                       exact)
    condition = condition_of(error)
    if condition is not None:
        return failed(spark_class(condition), f"{condition}: {first_line(error)}", condition, exact)
    named = getattr(error, "condition", None)  # a project error that names Spark's condition for what it refused
    if isinstance(named, str) and named:
        return failed(spark_class(named), detail, f"{type(error).__name__}: {named}", exact)
    key = type(error).__name__
    if isinstance(error, UnsupportedStatementError):
        key = f"{key}: {error.what}"
    for kind, name in PROJECT_CLASSES:
        if isinstance(error, kind):
            return failed(name, detail, key, exact)
    return failed(f"other:{type(error).__name__}", detail, key, exact)


PROJECT_CLASSES: tuple[tuple[type[BaseException], str], ...] = (
    (SqlParseError, "parse"),
    (UnsupportedStatementError, "unsupported"),
    (ObjectExistsError, "exists"),
    (NoSuchObjectError, "missing"),
    (InvalidDefinitionError, "invalid"),
    (InvalidNameError, "invalid"),
    (LeftoverFilesError, "other:leftover files"),
    (EngineOperationError, "data"),
    (CatalogError, "refused"),
)
"""The project's typed errors (most specific first) when no engine error is attached."""


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:240] if text else ""


def documented_refusal(text: str, temp_views: Iterable[str] = (), relations: Iterable[str] = ()) -> str | None:
    """Which documented not-atomic form ``text`` is (None: none, so a refusal of it is a difference).
    ``temp_views``: the session's temporary views; ``relations``: the unqualified names a project-only form
    (``DROP TABLE a, b``, ``RENAME TABLE a TO b``) looks up as existing relations."""
    form = refused_form(text)
    if form is not None:
        return form
    temporary = {view.lower() for view in temp_views}
    like = LIKE_SOURCE.search(text)
    if like and re.match(r"^\s*CREATE\b", text, re.I) and like.group(1).strip("`").lower() in temporary:
        return "CREATE TABLE ... LIKE <temporary view>"
    if any(name.lower() in temporary for name in relations):
        return TEMPORARY_VIEW_IN_PROJECT_ONLY_FORM
    return None


EXTERNAL_TABLE_REFUSAL = ("INSERT INTO, INSERT OVERWRITE or an ALTER TABLE rebuild of an external table is refused "
                          "as not atomic (NotAtomicError; docs/guarantees.md, External tables)")


def documented_not_atomic(atomic: Outcome) -> str | None:
    """Which documented refusal of an object (not of a statement form) the project's failure ``atomic`` is: the
    statements of an external table whose new files would go where the log owns nothing (None: none)."""
    if atomic.key.startswith("NotAtomicError") and "the external table" in atomic.detail:
        return EXTERNAL_TABLE_REFUSAL
    return None


def documented_difference(text: str, plain: Outcome, atomic: Outcome,
                          state: Iterable[tuple[str, Any, Any]]) -> str | None:
    """Which documented difference the statement ``text`` made (None: none, a defect)."""
    found = list(state)
    for difference in DOCUMENTED_DIFFERENCES:
        if difference.statement.search(text) and difference.explains(plain, atomic, found):
            return difference.what
    return None
