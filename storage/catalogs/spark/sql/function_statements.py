"""Persistent functions, the Spark catalog's :class:`~storage.catalogs.ports.Functions` port (``function_definition``,
``create_function``, ``drop_function``).

Spark 4.0.1 with the Hive metastore keeps two kinds of persistent function, both supported:

* Class functions, ``CREATE FUNCTION db.f AS 'cls' USING JAR 'uri', FILE 'uri', ARCHIVE 'uri'``. Spark reports the
  class back (``DESCRIBE FUNCTION EXTENDED``) but no public API reports the resources. Neither the class nor the
  resources are checked at create time (a missing class fails when the function is first used).
* SQL functions, ``CREATE FUNCTION db.f(x INT) RETURNS INT RETURN x + 1`` (also ``RETURNS TABLE (...)``). Spark
  reports parameters and return type in a normalised form (``x int`` -> ``x INT``, ``DEFAULT`` before ``COMMENT``),
  the body as its source text (trimmed, after ``${...}`` substitution), and the characteristics ``NOT
  DETERMINISTIC``, ``CONTAINS SQL`` / ``READS SQL DATA`` and ``COMMENT``, which :meth:`function_definition` appends to
  ``returns`` (in that order) so that they survive a re-create. ``LANGUAGE SQL`` and ``SQL SECURITY`` are not kept by
  Spark. A class function cannot be replaced by a SQL function in Spark (``CANNOT_REPLACE_NON_SQL_UDF_WITH_SQL_UDF``):
  :meth:`create_function` with ``replace`` drops it first, a non-atomic step.

So that ``function_definition`` gives back exactly what ``create_function`` was given (the DDL log compares
definitions with ``==``), ``create_function`` records the given definition together with what Spark will report for
it (for a SQL function, learned beforehand from a temporary function of the same text) in properties of the
function's database (:mod:`storage.catalogs.spark.sql.function_records`), ``RECORD_PREFIX`` ``<hash of the name>.<n>``:
compressed JSON in hex, split in chunks below the metastore's 4000-character limit for database property values
(longer ones are dropped without an error); hex and a hashed name because Spark shows a property whose key or value
matches ``spark.redaction.regex`` (by default ``secret|password|token|access.?key``) as ``*********(redacted)``. A
record counts only while Spark still reports what it recorded. It is written before the CREATE and also keeps the
function's previous definition until the CREATE is done, so that after a crash in between the function is reported
correctly either way. A record that is not needed (Spark reports the definition as given, no resources) is not kept.
Whatever is not recorded is reported as Spark has it: a class function made elsewhere shows no resources.

A function used in this session stays in the session's function registry after ``DROP DATABASE ... CASCADE`` (Spark
4.0.1): ``DESCRIBE FUNCTION`` still shows it and ``CREATE FUNCTION`` of that name fails. Lookups here run ``REFRESH
FUNCTION`` first, which asks the metastore and evicts such an entry.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from typing import Any

from storage.catalogs.interface import FunctionDefinition
from storage.catalogs.names import RESERVED_PREFIX, TableName, quote_ident
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    ENGINE_NAME,
    Engine,
    Failure,
    engine_error,
    param_name,
    sql_string_literal,
)
from storage.catalogs.spark.jvm import new, static
from storage.catalogs.spark.profiles.facts import Cause
from storage.catalogs.spark.sql.function_records import (
    FunctionRecords,
    decode_records,
    described_as_json,
    encode_record,
    parse_description,
    record_entry,
    record_id,
    resolve,
    usage_definition,
)
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
)

RESOURCE_KINDS = ("jar", "file", "archive")
_MISSING_FUNCTION = (Cause.FUNCTION_MISSING, Cause.DATABASE_MISSING)
_PROBE_PREFIX = RESERVED_PREFIX + "fn_"
_CLEANUP_ERRORS: tuple[type[Exception], ...] = (*ENGINE_ERRORS, CatalogError)
_RECORD_LOCK = threading.Lock()
"""Database properties are rewritten read-modify-write by Spark; writers in this process take turns."""


class SparkFunctions:
    """The :class:`~storage.catalogs.ports.Functions` port of the Spark catalog."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def no_such_function(self, name: TableName) -> NoSuchObjectError:
        """What Spark's ``DROP FUNCTION`` of the missing function ``name`` raises: the session's profile names the
        condition."""
        return NoSuchObjectError.function(f"function {name} does not exist", str(name),
                                          condition=self._engine.profile.facts.missing_function_condition)

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    # ------------------------------------------------------------------ read

    def function_definition(self, name: TableName) -> FunctionDefinition | None:
        """The persistent function ``name`` (never a temporary or builtin one); None when missing. Three metastore
        calls (``REFRESH FUNCTION``, ``DESCRIBE FUNCTION EXTENDED``, ``DESCRIBE DATABASE EXTENDED`` for the record;
        one when missing)."""
        reported = self._reported(name)
        if reported is None:
            return None
        records = self._records(name.db)
        return resolve(reported, None if records is None else records.documents.get(record_id(name.name)))

    def _reported(self, name: TableName) -> FunctionDefinition | None:
        """What Spark reports for the persistent function ``name``, None when the metastore has none.

        ``REFRESH FUNCTION`` first: it asks the metastore, and drops a stale entry from the session's function
        registry (after ``DROP DATABASE ... CASCADE`` a function used in this session stays registered: ``DESCRIBE``
        still shows it and ``CREATE FUNCTION`` of that name fails). It fails with ``CANNOT_LOAD_FUNCTION_CLASS`` for
        SQL functions and classes not on the classpath; the function exists then.
        """
        if not (ENGINE_NAME.fullmatch(name.db) and ENGINE_NAME.fullmatch(name.name)):
            return None  # Hive stores no other names
        target = self._target(name)
        try:
            self._spark.sql(f"REFRESH FUNCTION {target}")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*_MISSING_FUNCTION):
                return None
            if not failure.means(Cause.FUNCTION_CLASS_UNLOADABLE):
                raise engine_error(failure, f"cannot look up function {name}", name) from None
        return self._describe(target, name)

    def _describe(self, target: str, name: TableName, probe: str | None = None) -> FunctionDefinition | None:
        """DESCRIBE FUNCTION EXTENDED of ``target`` (the persistent ``name``, or the temporary ``probe``)."""
        try:
            rows = self._spark.sql(f"DESCRIBE FUNCTION EXTENDED {target}").collect()
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*_MISSING_FUNCTION):
                return None
            raise engine_error(failure, f"cannot describe function {name}", name) from None
        lines = [str(row[0]) for row in rows]
        reported = parse_description(lines)
        if reported.is_sql and not described_as_json(lines):
            found = self._sql_usage(None, probe) if probe is not None else self._sql_usage(name.db, name.name)
            return found or reported
        return reported

    def _sql_usage(self, db: str | None, function: str) -> FunctionDefinition | None:
        """A SQL function as its ``ExpressionInfo`` states it (``db`` None: the temporary ``function``):
        Spark 4.1 and later describe its parameters as aligned columns (``x  INT    'p'``), which lose where a DEFAULT
        ends and a COMMENT starts; the function's properties keep them as given, and the probe and the function
        itself are read alike. None without a JVM (Spark Connect: the labelled rows) or on any failure."""
        jvm = self._engine.jvm
        if jvm is None:
            return None
        view, classes = jvm.view, jvm.classes
        try:
            ident = new(view, classes.function_identifier, function, static(view, "scala.Option", "apply")(db))
            usage = str(jvm.session.sessionState().catalog().lookupFunctionInfo(ident).getUsage())
        except ENGINE_ERRORS:
            return None
        return usage_definition(usage)

    def _records(self, db: str) -> FunctionRecords | None:
        """The function records kept in ``db``'s properties; None when ``db`` does not exist."""
        properties = self._engine.database_properties_text(db)
        return None if properties is None else decode_records(properties)

    def _write_record(self, db: str, function: str, document: dict[str, Any] | None, old_keys: list[str]) -> list[str]:
        """Store ``document`` (None: remove the record), then drop chunks of an older, longer record; returns the
        keys now holding the record."""
        new = encode_record(function, document) if document is not None else {}
        quoted = quote_ident(db)
        if new:
            pairs = ", ".join(f"{sql_string_literal(k)}={sql_string_literal(v)}" for k, v in new.items())
            self._spark.sql(f"ALTER DATABASE {quoted} SET DBPROPERTIES ({pairs})")
        stale = [key for key in old_keys if key not in new]
        if stale:
            self._spark.sql(f"ALTER DATABASE {quoted} UNSET DBPROPERTIES ({', '.join(map(sql_string_literal, stale))})")
        if new or stale:
            self._engine.forget_database(db)  # what the statement kept of the database's properties is old now
        return list(new)

    # ------------------------------------------------------------------ create / drop

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None:
        """``CREATE [OR REPLACE] FUNCTION`` for a class (with resources) or a SQL function.

        Raises :class:`ObjectExistsError` when the function exists and not ``replace``, :class:`NoSuchObjectError`
        when the database does not, :class:`InvalidDefinitionError` for a definition Spark refuses (checked before
        anything is written), :class:`InvalidNameError` for a name Hive cannot store (letters, digits, ``_``).
        Metastore calls: a refresh and a describe of the function, a describe of its database, the CREATE, and,
        when the definition needs a record (resources; SQL text Spark normalises) or an earlier one exists, one
        database property write before the CREATE and at most one after. A SQL function is first created as a
        temporary function (three session-local calls) to learn how Spark reports it.
        """
        if not (ENGINE_NAME.fullmatch(name.db) and ENGINE_NAME.fullmatch(name.name)):
            raise InvalidNameError(f"{name} is not a valid function name (letters, digits and _ only)", str(name))
        self._validate(name, definition)
        self._engine.check_literal_mode()
        current = self._reported(name)
        if current is not None and not replace:
            raise ObjectExistsError.function(f"function {name} already exists", str(name))
        expected = self._probe(name, definition) if definition.is_sql else FunctionDefinition(definition.class_name)
        function = name.name.lower()
        ident = record_id(function)
        with _RECORD_LOCK:
            records = self._records(name.db)
            if records is None:
                raise NoSuchObjectError.database(f"database {name.db} does not exist", name.db)
            old_document = records.documents.get(ident)
            keys = records.keys.get(ident, [])
            previous = None if current is None else resolve(current, old_document)
            needed = definition != expected
            document: dict[str, Any] | None = None
            if needed or old_document is not None:
                # Written before the CREATE, with the function's previous definition: whether a crash comes before
                # or after the CREATE, the record describes what Spark then reports.
                document = {
                    **record_entry(definition, expected),
                    "prev": None if current is None or previous is None else record_entry(previous, current),
                }
                keys = self._record_step(lambda: self._write_record(name.db, function, document, keys), name)
            try:
                self._run_create(name, definition, current, previous, replace=replace)
            except CatalogError:
                if document is not None:
                    with contextlib.suppress(*_CLEANUP_ERRORS):  # best effort: the original error is what matters
                        self._write_record(name.db, function, old_document, keys)
                raise
            if document is not None and (document["prev"] is not None or not needed):
                # Done: the previous definition is no longer needed (it would match a later re-create elsewhere).
                final = {**document, "prev": None} if needed else None
                with contextlib.suppress(*_CLEANUP_ERRORS):
                    self._write_record(name.db, function, final, keys)

    def _run_create(
        self,
        name: TableName,
        definition: FunctionDefinition,
        current: FunctionDefinition | None,
        previous: FunctionDefinition | None,
        *,
        replace: bool,
    ) -> None:
        if current is not None and replace and definition.is_sql and not current.is_sql:
            # Spark cannot replace a class function by a SQL one: drop, then create (not atomic).
            self._run(lambda: self._spark.sql(f"DROP FUNCTION {self._target(name)}"), name, "drop")
            try:
                self._run(lambda: self._spark.sql(self._create_sql(name, definition, replace=False)), name, "create")
            except CatalogError:
                if previous is not None:
                    with contextlib.suppress(*ENGINE_ERRORS):  # best effort: the original error is what matters
                        self._spark.sql(self._create_sql(name, previous, replace=False))
                raise
            return
        self._run(lambda: self._spark.sql(self._create_sql(name, definition, replace=replace)), name, "create")

    def _record_step(self, action: Any, name: TableName) -> list[str]:
        try:
            keys: list[str] = action()
        except ENGINE_ERRORS as error:
            raise self._error(name, self._engine.failure(error), "record") from None
        return keys

    def _run(self, action: Any, name: TableName, step: str) -> None:
        try:
            action()
        except ENGINE_ERRORS as error:
            raise self._error(name, self._engine.failure(error), step) from None

    @staticmethod
    def _target(name: TableName) -> str:
        return f"{quote_ident(name.db)}.{quote_ident(name.name)}"

    def _create_sql(
        self, name: TableName, definition: FunctionDefinition, *, replace: bool, temporary: str | None = None
    ) -> str:
        """The CREATE statement; ``temporary``: create a temporary function of that name instead."""
        head = "CREATE OR REPLACE" if replace else "CREATE"
        head += " TEMPORARY FUNCTION" if temporary is not None else " FUNCTION"
        target = self._target(name) if temporary is None else quote_ident(temporary)
        if definition.is_sql:
            return f"{head} {target}({definition.params}) RETURNS {definition.returns} RETURN {definition.body}"
        statement = f"{head} {target} AS {sql_string_literal(str(definition.class_name))}"
        if definition.resources:
            statement += " USING " + ", ".join(
                f"{kind.upper()} {sql_string_literal(uri)}" for kind, uri in definition.resources
            )
        return statement

    @staticmethod
    def _validate(name: TableName, definition: FunctionDefinition) -> None:
        label = str(name)
        if not isinstance(definition, FunctionDefinition):
            raise InvalidDefinitionError(f"the definition of function {name} must be a FunctionDefinition", label)
        if definition.is_sql:
            if definition.class_name is not None or definition.resources:
                raise InvalidDefinitionError(f"SQL function {name} cannot have a class or resources", label)
            for part, value in (("params", definition.params), ("returns", definition.returns)):
                if not isinstance(value, str):
                    raise InvalidDefinitionError(f"SQL function {name} needs {part} text", label)
            if not isinstance(definition.body, str) or not definition.body.strip(" \t\r\n;"):
                raise InvalidDefinitionError(f"SQL function {name} needs a body", label)
            if not str(definition.returns).strip():
                raise InvalidDefinitionError(f"SQL function {name} needs a return type", label)
            return
        if definition.params is not None or definition.returns is not None:
            raise InvalidDefinitionError(f"function {name}: params/returns need a SQL body", label)
        if not isinstance(definition.class_name, str) or not definition.class_name.strip():
            raise InvalidDefinitionError(f"function {name} needs a class name or a SQL body", label)
        for resource in definition.resources:
            if (
                not isinstance(resource, tuple)
                or len(resource) != 2
                or not isinstance(resource[0], str)
                or resource[0].lower() not in RESOURCE_KINDS
                or not isinstance(resource[1], str)
                or not resource[1]
            ):
                raise InvalidDefinitionError(
                    f"function {name}: resources must be (kind, uri) pairs with kind in {RESOURCE_KINDS}", label
                )

    def _probe(self, name: TableName, definition: FunctionDefinition) -> FunctionDefinition:
        """How Spark will report the SQL function ``definition``: create it as a temporary function and describe it."""
        probe = f"{_PROBE_PREFIX}{uuid.uuid4().hex}"
        statement = self._create_sql(name, definition, replace=False, temporary=probe)
        try:
            try:
                self._spark.sql(statement)
            except ENGINE_ERRORS as error:
                raise self._error(name, self._engine.failure(error), "check", probe) from None
            reported = self._describe(quote_ident(probe), name, probe)
        finally:
            with contextlib.suppress(*ENGINE_ERRORS):  # a temporary function dies with its session anyway
                self._spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {quote_ident(probe)}")
        if reported is None or not reported.is_sql:
            raise InvalidDefinitionError(f"Spark did not keep SQL function {name} as one", str(name))
        return reported

    def drop_function(self, name: TableName) -> None:
        """``DROP FUNCTION`` of the persistent function ``name`` (a temporary one of that name is untouched), then its
        record. :class:`NoSuchObjectError` when missing. Metastore calls: the DROP, a database describe, and a
        property write when there was a record."""
        if not (ENGINE_NAME.fullmatch(name.db) and ENGINE_NAME.fullmatch(name.name)):
            raise NoSuchObjectError.function(f"function {name} does not exist", str(name))
        self._run(lambda: self._spark.sql(f"DROP FUNCTION {self._target(name)}"), name, "drop")
        function = name.name.lower()
        with _RECORD_LOCK:
            records = self._records(name.db)
            keys = [] if records is None else records.keys.get(record_id(function), [])
            if keys:
                self._record_step(lambda: self._write_record(name.db, function, None, keys), name)

    def _error(self, name: TableName, failure: Failure, step: str, probe: str | None = None) -> CatalogError:
        message = failure.message if probe is None else failure.message.replace(probe, name.name)
        label = str(name)
        if failure.means(Cause.DATABASE_MISSING):
            db = param_name(failure.params.get("schemaName"), 1) or name.db
            return NoSuchObjectError.database(f"database {db} does not exist", db)
        if failure.means(*_MISSING_FUNCTION):  # Spark's own condition (its name differs between lines)
            return NoSuchObjectError.function(f"function {name} does not exist", label, condition=failure.condition)
        if failure.means(Cause.FUNCTION_EXISTS):
            return ObjectExistsError.function(f"function {name} already exists", label)
        if "is not a valid object name" in failure.message:
            return InvalidNameError(f"{name} is not a valid function name", label)
        if failure.means(Cause.RELATION_MISSING):
            missing = param_name(failure.params.get("relationName")) or "a relation"
            return NoSuchObjectError.function(f"function {name}: {missing} does not exist", missing)
        if failure.analysis:
            return InvalidDefinitionError(f"invalid definition of function {name}: {message}", label, failure.error)
        what = {"record": "recording the definition of", "drop": "dropping", "check": "checking"}.get(step, "creating")
        return EngineOperationError(f"{what} function {name} failed: {message}", label, failure.error)
