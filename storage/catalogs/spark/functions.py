"""Persistent functions for :class:`~storage.catalogs.spark.catalog.SparkCatalog` (``function_definition``,
``create_function``, ``drop_function`` of the Catalog protocol).

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
function's database, :data:`RECORD_PREFIX` ``<hash of the name>.<n>``: compressed JSON in hex, split in chunks below
the metastore's 4000-character limit for database property values (longer ones are dropped without an error); hex
and a hashed name because Spark shows a property whose key or value matches ``spark.redaction.regex`` (by default
``secret|password|token|access.?key``) as ``*********(redacted)``. A record counts only while Spark still reports
what it recorded. It is written before the CREATE and also keeps the function's previous definition until the CREATE
is done, so that after a crash in between the function is reported correctly either way. A record that is not needed
(Spark reports the definition as given, no resources) is not kept. Whatever is not recorded is reported as Spark has
it: a class function made elsewhere shows no resources.

A function used in this session stays in the session's function registry after ``DROP DATABASE ... CASCADE`` (Spark
4.0.1): ``DESCRIBE FUNCTION`` still shows it and ``CREATE FUNCTION`` of that name fails. Lookups here run ``REFRESH
FUNCTION`` first, which asks the metastore and evicts such an entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import uuid
import zlib
from typing import TYPE_CHECKING, Any

import attrs

from storage.catalogs.interface import FunctionDefinition
from storage.catalogs.names import RESERVED_PREFIX, TableName, quote_ident
from storage.catalogs.spark.catalog import (
    ENGINE_ERRORS,
    ENGINE_NAME,
    _Failure,
    _inspect,
    _param_name,
    sql_string_literal,
)
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
)

if TYPE_CHECKING:
    from storage.catalogs.spark.catalog import SparkCatalog

RECORD_PREFIX = "spark_ddl_log.function."
"""Database properties ``spark_ddl_log.function.<record_id(name)>.<i>`` hold the record of function ``<name>``."""

RESOURCE_KINDS = ("jar", "file", "archive")
_CHUNK = 3000
_RECORD = re.compile(r"\(" + re.escape(RECORD_PREFIX) + r"([0-9a-f]{20})\.(\d+),([0-9a-f]+)\.(\d+)\.([0-9a-f]*)\)")
_MISSING_FUNCTION = frozenset({"UNRESOLVED_ROUTINE", "ROUTINE_NOT_FOUND", "SCHEMA_NOT_FOUND"})
_PROBE_PREFIX = RESERVED_PREFIX + "fn_"
_SQL_MARKER = "sqlFunction.returnType"
_CLEANUP_ERRORS: tuple[type[Exception], ...] = (*ENGINE_ERRORS, CatalogError)
_RECORD_LOCK = threading.Lock()
"""Database properties are rewritten read-modify-write by Spark; writers in this process take turns."""


def _to_json(definition: FunctionDefinition) -> dict[str, Any]:
    data = attrs.asdict(definition)
    data["resources"] = [list(pair) for pair in definition.resources]
    return data


def _from_json(data: Any) -> FunctionDefinition | None:
    if not isinstance(data, dict):
        return None
    try:
        fields = dict(data)
        fields["resources"] = tuple((str(kind), str(uri)) for kind, uri in fields.get("resources") or ())
        return FunctionDefinition(**fields)
    except (TypeError, ValueError):
        return None


def sql_definition(props: dict[str, Any]) -> FunctionDefinition:
    """A SQL function as Spark describes it (the JSON of its ``Usage``) -> params, returns (+ characteristics), body."""
    returns = str(props[_SQL_MARKER])
    if str(props.get("sqlFunction.isTableFunc", "false")).lower() == "true":
        returns = f"TABLE ({returns})"
    extra = []
    if str(props.get("sqlFunction.deterministic", "true")).lower() == "false":
        extra.append("NOT DETERMINISTIC")
    contains_sql = props.get("sqlFunction.containsSQL")
    if contains_sql is not None:
        extra.append("CONTAINS SQL" if str(contains_sql).lower() == "true" else "READS SQL DATA")
    if props.get("sqlFunction.comment") is not None:
        extra.append(f"COMMENT {sql_string_literal(str(props['sqlFunction.comment']))}")
    body = props.get("sqlFunction.expression")
    if body is None:
        body = props.get("sqlFunction.query", "")
    return FunctionDefinition(
        params=str(props.get("sqlFunction.inputParam", "")),
        returns=" ".join([returns, *extra]),
        body=str(body),
    )


def parse_description(lines: list[str]) -> FunctionDefinition:
    """``DESCRIBE FUNCTION EXTENDED`` rows -> the definition Spark reports (class name, or a SQL function)."""
    class_name = next((line[len("Class: ") :] for line in lines if line.startswith("Class: ")), None)
    usage = next((line[len("Usage: ") :] for line in lines if line.startswith("Usage: ")), "")
    if usage.startswith("{"):
        try:
            props = json.loads(usage)
        except ValueError:
            props = None
        if isinstance(props, dict) and _SQL_MARKER in props:
            return sql_definition(props)
    if class_name is None:
        raise CatalogError(f"unexpected DESCRIBE FUNCTION output: {lines[:2]!r}")
    return FunctionDefinition(class_name=class_name)


@attrs.frozen
class _Records:
    """Decoded function records of one database: record id -> record document, record id -> its property keys."""

    documents: dict[str, dict[str, Any]]
    keys: dict[str, list[str]]


def record_id(function: str) -> str:
    """The key part naming ``function``'s record: a hash, so that no name can trigger Spark's redaction."""
    return hashlib.sha256(function.lower().encode()).hexdigest()[:20]


def encode_text(data: Any) -> str:
    """JSON, compressed, as hex: only ``0-9a-f``, which no redaction pattern of Spark's default matches (Spark shows
    a property whose key or value matches ``spark.redaction.regex`` as ``*********(redacted)``)."""
    return zlib.compress(json.dumps(data, ensure_ascii=False, sort_keys=True).encode(), 9).hex()


def decode_text(text: str) -> Any:
    """The inverse of :func:`encode_text`; raises ValueError for anything else."""
    try:
        return json.loads(zlib.decompress(bytes.fromhex(text)))
    except zlib.error as error:
        raise ValueError(str(error)) from None


def decode_records(properties: str) -> _Records:
    """Records from the ``Properties`` row of ``DESCRIBE DATABASE EXTENDED`` (``((k,v), (k,v))``), by
    :func:`record_id`."""
    chunks: dict[str, dict[int, tuple[str, int, str]]] = {}
    keys: dict[str, list[str]] = {}
    for match in _RECORD.finditer(properties):
        function, index, write_id, count, data = match.groups()
        chunks.setdefault(function, {})[int(index)] = (write_id, int(count), data)
        keys.setdefault(function, []).append(f"{RECORD_PREFIX}{function}.{index}")
    documents: dict[str, dict[str, Any]] = {}
    for function, parts in chunks.items():
        if 0 not in parts:
            continue
        write_id, count, _ = parts[0]
        if any(i not in parts or parts[i][:2] != (write_id, count) for i in range(count)):
            continue  # torn or superseded: ignored
        try:
            document = decode_text("".join(parts[i][2] for i in range(count)))
        except ValueError:
            continue
        if isinstance(document, dict):
            documents[function] = document
    return _Records(documents, keys)


def encode_record(function: str, document: dict[str, Any]) -> dict[str, str]:
    """Database properties holding ``document`` for ``function`` (chunked, every chunk tagged with one write id)."""
    payload = encode_text(document)
    parts = [payload[i : i + _CHUNK] for i in range(0, len(payload), _CHUNK)] or [""]
    write_id = uuid.uuid4().hex[:12]
    ident = record_id(function)
    return {f"{RECORD_PREFIX}{ident}.{i}": f"{write_id}.{len(parts)}.{part}" for i, part in enumerate(parts)}


def _entry(definition: FunctionDefinition, reported: FunctionDefinition) -> dict[str, Any]:
    return {"def": _to_json(definition), "spark": _to_json(reported)}


def resolve(reported: FunctionDefinition, document: dict[str, Any] | None) -> FunctionDefinition:
    """The recorded definition whose recorded Spark view is what Spark reports now, else what Spark reports."""
    if document is not None:
        for entry in (document, document.get("prev")):
            if isinstance(entry, dict) and _from_json(entry.get("spark")) == reported:
                recorded = _from_json(entry.get("def"))
                if recorded is not None:
                    return recorded
    return reported


def database_properties_text(spark: Any, catalog: SparkCatalog, db: str) -> str | None:
    """The ``Properties`` text of ``DESCRIBE DATABASE EXTENDED db`` (``((k,v), ...)``); None when ``db`` is missing.
    One metastore call."""
    try:
        rows = spark.sql(f"DESCRIBE DATABASE EXTENDED {quote_ident(db)}").collect()
    except ENGINE_ERRORS as error:
        failure = _inspect(error)
        if failure.condition == "SCHEMA_NOT_FOUND":
            return None
        raise catalog._engine_error(failure, f"cannot describe database {db}", db) from None
    return next((str(row[1] or "") for row in rows if row[0] == "Properties"), "")


class SparkFunctions:
    """The function half of :class:`~storage.catalogs.spark.catalog.SparkCatalog` (which delegates here)."""

    def __init__(self, catalog: SparkCatalog) -> None:
        self._catalog = catalog

    @property
    def _spark(self) -> Any:
        return self._catalog.spark

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
            failure = _inspect(error)
            if failure.condition in _MISSING_FUNCTION:
                return None
            if failure.condition != "CANNOT_LOAD_FUNCTION_CLASS":
                raise self._catalog._engine_error(failure, f"cannot look up function {name}", name) from None
        return self._describe(target, name)

    def _describe(self, target: str, name: TableName) -> FunctionDefinition | None:
        try:
            rows = self._spark.sql(f"DESCRIBE FUNCTION EXTENDED {target}").collect()
        except ENGINE_ERRORS as error:
            failure = _inspect(error)
            if failure.condition in _MISSING_FUNCTION:
                return None
            raise self._catalog._engine_error(failure, f"cannot describe function {name}", name) from None
        return parse_description([str(row[0]) for row in rows])

    def _records(self, db: str) -> _Records | None:
        """The function records kept in ``db``'s properties; None when ``db`` does not exist."""
        properties = database_properties_text(self._spark, self._catalog, db)
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
        self._catalog._check_literal_mode()
        current = self._reported(name)
        if current is not None and not replace:
            raise ObjectExistsError(f"function {name} already exists", str(name))
        expected = self._probe(name, definition) if definition.is_sql else FunctionDefinition(definition.class_name)
        function = name.name.lower()
        ident = record_id(function)
        with _RECORD_LOCK:
            records = self._records(name.db)
            if records is None:
                raise NoSuchObjectError(f"database {name.db} does not exist", name.db)
            old_document = records.documents.get(ident)
            keys = records.keys.get(ident, [])
            previous = None if current is None else resolve(current, old_document)
            needed = definition != expected
            document: dict[str, Any] | None = None
            if needed or old_document is not None:
                # Written before the CREATE, with the function's previous definition: whether a crash comes before
                # or after the CREATE, the record describes what Spark then reports.
                document = {
                    **_entry(definition, expected),
                    "prev": None if current is None or previous is None else _entry(previous, current),
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
            raise self._error(name, _inspect(error), "record") from None
        return keys

    def _run(self, action: Any, name: TableName, step: str) -> None:
        try:
            action()
        except ENGINE_ERRORS as error:
            raise self._error(name, _inspect(error), step) from None

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
                raise self._error(name, _inspect(error), "check", probe) from None
            reported = self._describe(quote_ident(probe), name)
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
            raise NoSuchObjectError(f"function {name} does not exist", str(name))
        self._run(lambda: self._spark.sql(f"DROP FUNCTION {self._target(name)}"), name, "drop")
        function = name.name.lower()
        with _RECORD_LOCK:
            records = self._records(name.db)
            keys = [] if records is None else records.keys.get(record_id(function), [])
            if keys:
                self._record_step(lambda: self._write_record(name.db, function, None, keys), name)

    def _error(self, name: TableName, failure: _Failure, step: str, probe: str | None = None) -> CatalogError:
        condition = failure.condition or ""
        message = failure.message if probe is None else failure.message.replace(probe, name.name)
        label = str(name)
        if condition == "SCHEMA_NOT_FOUND":
            db = _param_name(failure.params.get("schemaName"), 1) or name.db
            return NoSuchObjectError(f"database {db} does not exist", db)
        if condition in _MISSING_FUNCTION:
            return NoSuchObjectError(f"function {name} does not exist", label)
        if condition == "ROUTINE_ALREADY_EXISTS":
            return ObjectExistsError(f"function {name} already exists", label)
        if "is not a valid object name" in failure.message:
            return InvalidNameError(f"{name} is not a valid function name", label)
        if condition == "TABLE_OR_VIEW_NOT_FOUND":
            missing = _param_name(failure.params.get("relationName")) or "a relation"
            return NoSuchObjectError(f"function {name}: {missing} does not exist", missing)
        if failure.analysis:
            return InvalidDefinitionError(f"invalid definition of function {name}: {message}", label, failure.error)
        what = {"record": "recording the definition of", "drop": "dropping", "check": "checking"}.get(step, "creating")
        return EngineOperationError(f"{what} function {name} failed: {message}", label, failure.error)
