"""The :class:`~storage.catalogs.interface.Catalog` on a Spark session with a Hive metastore.

Only public Spark APIs are used (``spark.sql``, ``spark.catalog``, ``spark.conf``, ``spark.read``, ``DataFrame``,
``DataType``), so the same code runs on a classic session and on a Spark Connect session.

Statement text is built from quoted identifiers (:func:`storage.catalogs.names.quote_ident`), escaped string literals
(:func:`sql_string_literal`), providers checked against a strict pattern and column types that Spark itself parsed
and this module printed again (:func:`type_sql`). The one piece of user text spliced as it is, is the SELECT of a
``CREATE TABLE ... AS SELECT``: it is the user's query by design, and it sits inside a subquery, so it can only be a
query.

Spark / Hive behaviours this module deals with (Spark 4.0.1, built-in Hive 2.3 metastore client):

* Table and database names must match ``[A-Za-z0-9_]+`` (``INVALID_SCHEMA_OR_RELATION_NAME``); anything else is
  refused at create (:class:`InvalidNameError`). Column names may hold any character.
* ``spark.sql`` substitutes ``${...}`` everywhere in the text, inside string literals and quoted identifiers too
  (``'${env:HOME}'`` reads as the home directory). Literals therefore write ``$`` as ``\\u0024``; identifiers cannot
  be escaped, so names containing ``${`` are refused.
* ``''`` is *not* an escaped quote in Spark SQL (``'it''s'`` is two adjacent literals: ``its``); literals use
  backslash escapes, which needs ``spark.sql.parser.escapedStringLiterals=false`` (the default; checked).
* A managed table's default location is ``<database location>/<name>``. CREATE refuses it when it exists and is not
  empty, RENAME as soon as it exists, even empty (both ``LOCATION_ALREADY_EXISTS``, a ``SparkRuntimeException``).
* A CTAS whose SELECT fails while running leaves its target directory behind: empty for an unpartitioned table,
  holding ``_temporary/`` for a partitioned one (which blocks the next CREATE of that name). A process killed
  mid-CTAS leaves ``_temporary/`` too. :meth:`SparkCatalog.create` removes such leftovers of its own failures.
* RENAME of a managed table in its default location moves the directory: Hive renames the directory, then commits
  the metastore change, so a kill in between leaves the table under the old name with its data in the new name's
  directory (:meth:`SparkCatalog.settle_rename` repairs that). RENAME across databases is refused by Spark.
* DROP of a managed table removes the metastore entry, then the directory (``PURGE`` skips any trash).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote

import attrs
from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql.types import ArrayType, CharType, DataType, MapType, StructField, StructType, VarcharType

from storage.catalogs.interface import (
    TAG_PROPERTY,
    Column,
    DatabaseObjects,
    Fill,
    FunctionDefinition,
    TableMetadata,
    TableSpec,
    ViewDefinition,
)
from storage.catalogs.names import RESERVED_PREFIX, SESSION_CATALOG, TableName, quote_ident, split_qualified
from storage.catalogs.spark.session import quiet_pyspark_error_loggers
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
)

if TYPE_CHECKING:
    from storage.catalogs.spark.alter import SparkTableAlter
    from storage.catalogs.spark.databases import SparkDatabases
    from storage.catalogs.spark.functions import SparkFunctions
    from storage.catalogs.spark.views import SparkViews

LeftoverStrategy = Literal["auto", "local", "metastore"]

ENGINE_NAME = re.compile(r"[A-Za-z0-9_]+")
"""Database and table names the Spark session catalog accepts (Java ``\\w``: ASCII only)."""

_PROVIDER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CONDITION = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_GLOB_CHARS = re.compile(r"[\[\]{}*?\\]")
_MAX_MESSAGE = 300
_SETTLE_POLL_SECONDS = 0.05
_SETTLE_QUIET_SECONDS = 0.3
_SETTLE_MAX_SECONDS = 3.0

_MISSING = frozenset({"TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND"})
_BAD_DEFINITION = frozenset({"DATA_SOURCE_NOT_FOUND", "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE"})
"""Conditions that mean "bad definition" even when Spark raises them outside analysis."""

_GC_PREFIX = RESERVED_PREFIX + "gc_"
"""Names of the helper tables :meth:`SparkCatalog.clean_leftovers` uses on file systems Python cannot reach."""

_GC_TARGET = "spark_ddl_log.gc_target"
"""Table property of a helper table: the directory it was made to delete."""

REDACTED = "*********(redacted)"
"""What Spark shows instead of the value of a property whose key or value matches ``spark.redaction.regex`` (a static
setting, by default ``(?i)secret|password|token|access[.]?key``): a placeholder, never written back as a value."""

_SOURCE_VIEW_PREFIX = RESERVED_PREFIX + "src_"
"""Names of the temporary views through which :meth:`SparkCatalog.create` writes a DataFrame."""


def _engine_error_types() -> tuple[type[Exception], ...]:
    """Exceptions a Spark call raises: PySpark's (classic and Connect), raw Py4J and gRPC errors, lost connections."""
    types: list[type[Exception]] = [PySparkException, ConnectionError]
    for module, attribute in (("py4j.protocol", "Py4JError"), ("grpc", "RpcError")):
        try:  # a Connect-only client has no Py4J, a classic-only installation no gRPC
            types.append(getattr(importlib.import_module(module), attribute))
        except (ImportError, AttributeError):
            continue
    return tuple(types)


ENGINE_ERRORS = _engine_error_types()
_DATAFRAME_ERRORS: tuple[type[Exception], ...] = (*ENGINE_ERRORS, AttributeError, TypeError)


def sql_string_literal(value: str) -> str:
    """Return ``value`` as a Spark SQL string literal that reads back exactly as ``value``.

    Spark literals take backslash escapes (``''`` is not an escape in Spark SQL). Backslash and quote are escaped;
    ``$`` is written ``\\u0024`` so ``${...}`` variable substitution, which runs over the whole statement text, never
    sees it. Needs ``spark.sql.parser.escapedStringLiterals=false`` (Spark's default).
    """
    out: list[str] = ["'"]
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "'":
            out.append("\\'")
        elif ch == "$":
            out.append("\\u0024")
        else:
            out.append(ch)
    out.append("'")
    return "".join(out)


def type_sql(data_type: DataType) -> str:
    """Print a parsed data type as DDL, quoting nested field names and escaping nested comments ourselves.

    (Spark's own ``toDDL`` leaves backslashes in comments unescaped, so its output cannot be trusted as SQL.)
    """
    if isinstance(data_type, StructType):
        return "STRUCT<" + ", ".join(_struct_field_sql(field) for field in data_type.fields) + ">"
    if isinstance(data_type, ArrayType):
        return f"ARRAY<{type_sql(data_type.elementType)}>"
    if isinstance(data_type, MapType):
        return f"MAP<{type_sql(data_type.keyType)}, {type_sql(data_type.valueType)}>"
    return str(data_type.simpleString())


def _nested(data_type: DataType) -> list[DataType]:
    if isinstance(data_type, StructType):
        return [field.dataType for field in data_type.fields]
    if isinstance(data_type, ArrayType):
        return [data_type.elementType]
    if isinstance(data_type, MapType):
        return [data_type.keyType, data_type.valueType]
    return []


def _has_char_type(data_type: DataType) -> bool:
    return isinstance(data_type, (CharType, VarcharType)) or any(_has_char_type(inner) for inner in _nested(data_type))


def _quoted_field_names(data_type: DataType) -> list[str]:
    """Nested struct field names that only parse when quoted."""
    names = []
    if isinstance(data_type, StructType):
        names = [field.name for field in data_type.fields if not ENGINE_NAME.fullmatch(field.name)]
    return names + [name for inner in _nested(data_type) for name in _quoted_field_names(inner)]


def poisons_the_metastore(data_type: DataType) -> bool:
    """Whether a column of this type makes a table Spark can store but never read back, nor even drop.

    Spark keeps a CHAR/VARCHAR column's type as its unquoted catalog string and parses it again on every lookup of
    the table, so a column that contains CHAR/VARCHAR anywhere and also a nested struct field whose name needs
    quoting (``struct<`x y`: int, z: char(3)>``) breaks ``tableExists``, ``DESCRIBE``, reads and ``DROP TABLE``
    alike with ``PARSE_SYNTAX_ERROR`` / ``INVALID_IDENTIFIER`` (Spark 4.0.1).
    """
    return _has_char_type(data_type) and bool(_quoted_field_names(data_type))


def _struct_field_sql(field: StructField) -> str:
    text = f"{quote_ident(field.name)}: {type_sql(field.dataType)}"
    if not field.nullable:
        text += " NOT NULL"
    comment = field.metadata.get("comment")
    if comment is not None:
        text += f" COMMENT {sql_string_literal(str(comment))}"
    return text


def short_message(text: str) -> str:
    """One line of an engine error message: no JVM stack trace, no SQL excerpt, no plan, no SQLSTATE."""
    text = text.split("JVM stacktrace:", 1)[0]
    match = _CONDITION.search(text)
    if match:
        text = text[match.start() :]
    else:
        # A raw Py4J error: "An error occurred while calling o41.sql.\n: java.io.IOException: ...\n\tat ..."
        lines = [line.strip() for line in text.splitlines()]
        java = [line[1:].strip() for line in lines if line.startswith(":")]
        text = java[0] if java else next((line for line in lines if line), "")
    text = text.split("SQLSTATE:", 1)[0].split("== SQL", 1)[0]
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(first) > _MAX_MESSAGE:
        first = first[: _MAX_MESSAGE - 3] + "..."
    return first or "unknown Spark error"


def local_path(location: str) -> Path | None:
    """The local path of a decoded ``file:`` location (or of a bare absolute path); None for other file systems.

    The location is *decoded* text (``DESCRIBE`` output after unquoting), so it is not parsed as a URI: ``#`` or
    ``?`` in a directory name stay part of the path.
    """
    if location.startswith("file:"):
        rest = location[len("file:") :]
    elif location.startswith("/") and not _SCHEME.match(location):
        rest = location
    else:
        return None
    if rest.startswith("//"):
        authority, _, path = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            return None
        rest = "/" + path
    return Path(rest)


def fingerprint(info: dict[str, Any]) -> str:
    """``fp:`` + a hash of the metadata in a ``DESCRIBE ... AS JSON`` that renames do not change."""
    material = {key: info.get(key) for key in ("created_time", "provider", "type", "columns", "partition_columns")}
    digest = hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()
    return "fp:" + digest[:32]


@attrs.frozen
class _Failure:
    """What an engine exception says, reduced to what the translation needs."""

    condition: str | None
    params: dict[str, str]
    message: str
    analysis: bool
    """The statement was refused before it ran (AnalysisException / ParseException)."""
    error: BaseException


def _identity_of(info: dict[str, Any]) -> str:
    """The identity :meth:`SparkCatalog.identity` reports for a table described as ``info``."""
    properties = info.get("table_properties") or {}
    if TAG_PROPERTY in properties:
        return str(properties[TAG_PROPERTY])
    return fingerprint(info)


def _inspect(error: BaseException) -> _Failure:
    """Read the error condition, parameters and a one-line message from a classic, Connect or Py4J exception."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - a Py4J error whose JVM is gone cannot even print itself
        text = type(error).__name__
    condition: str | None = None
    params: dict[str, str] = {}
    if isinstance(error, PySparkException):
        try:
            condition = error.getCondition()
            params = dict(error.getMessageParameters() or {})
        except Exception:  # noqa: BLE001 - classic exceptions ask the JVM, which may be gone
            condition, params = None, {}
    if not condition:
        match = _CONDITION.search(text.split("JVM stacktrace:", 1)[0])
        condition = match.group(1) if match else None
    return _Failure(condition, params, short_message(text), isinstance(error, AnalysisException), error)


def _param_name(value: str | None, parts_expected: int = 2) -> str | None:
    """``\\`spark_catalog\\`.\\`default\\`.\\`t\\``` as found in error parameters -> ``default.t``.

    ``parts_expected``: 2 for a table name, 1 for a database name; a leading ``spark_catalog`` beyond it is dropped.
    """
    if not value:
        return None
    try:
        parts = split_qualified(value)
    except CatalogError:
        return value
    if len(parts) == parts_expected + 1 and parts[0].lower() == "spark_catalog":
        parts = parts[1:]
    return ".".join(parts)


def _substitutes(text: str) -> bool:
    """Whether Spark's ``${...}`` variable substitution could rewrite ``text`` inside a statement."""
    return "${" in text


def _kind(info: dict[str, Any]) -> str:
    """``MANAGED``, ``EXTERNAL`` or ``VIEW`` from a ``DESCRIBE ... AS JSON``."""
    return str(info.get("type", "")).upper()


def _label(name: TableName | None) -> str:
    return "the new table" if name is None else str(name)


def _ename(name: TableName | None) -> str | None:
    return None if name is None else str(name)


class SparkCatalog:
    """Tables, views, persistent functions and databases of the Hive-backed Spark session catalog
    (``spark_catalog``), on a classic or Spark Connect session. ALTER TABLE, views, functions and databases are
    implemented in the alter, views, functions and
    :mod:`storage.catalogs.spark.databases`, where their Spark behaviours are described.

    Each method costs one to a few metastore round trips (given per method); nothing is cached, so changes made
    by other sessions are always seen.

    ``leftovers`` says how :meth:`clean_leftovers` and :meth:`settle_rename` touch directories: ``"local"`` with
    Python's file functions (``file:`` locations this process can see), ``"metastore"`` through the Hive metastore
    (any file system the engine reaches; see :meth:`clean_leftovers`), ``"auto"`` picks ``"local"`` for ``file:``
    locations. For a Spark Connect server on another machine with a ``file:`` warehouse, pass ``"metastore"``.

    ``quiet`` silences PySpark's Python-side error loggers (process-wide, see
    :func:`storage.catalogs.spark.session.quiet_pyspark_error_loggers`): every engine error is translated here anyway.
    """

    def __init__(self, spark: Any, *, leftovers: LeftoverStrategy = "auto", quiet: bool = True) -> None:
        if leftovers not in ("auto", "local", "metastore"):
            raise ValueError(f"leftovers must be 'auto', 'local' or 'metastore', not {leftovers!r}")
        self._spark = spark
        self._leftovers: LeftoverStrategy = leftovers
        if quiet:
            quiet_pyspark_error_loggers()
        # ALTER TABLE, views, functions and databases live in their own modules, which import this one.
        from storage.catalogs.spark.alter import SparkTableAlter
        from storage.catalogs.spark.databases import SparkDatabases
        from storage.catalogs.spark.functions import SparkFunctions
        from storage.catalogs.spark.views import SparkViews

        self._alter: SparkTableAlter = SparkTableAlter(self)
        self._views: SparkViews = SparkViews(self)
        self._functions: SparkFunctions = SparkFunctions(self)
        self._databases: SparkDatabases = SparkDatabases(self)

    @property
    def spark(self) -> Any:
        return self._spark

    # ------------------------------------------------------------------ lookups

    def exists(self, name: TableName) -> bool:
        """Whether a table (managed or external) is called ``name``; a view is not a table, temporary views are not
        in the catalog at all. One metastore call when the name is free, two when something holds it (see
        :meth:`_describe`)."""
        info = self._describe(name)
        return info is not None and _kind(info) != "VIEW"

    def _occupied(self, name: TableName) -> bool:
        """Whether a table or a view holds ``name`` (temporary views never count). One metastore call."""
        if _substitutes(name.db) or _substitutes(name.name):
            return False
        try:
            return bool(self._spark.catalog.tableExists(name.quoted))
        except ENGINE_ERRORS as error:
            raise self._engine_error(_inspect(error), f"cannot look up {name}", name) from None

    def identity(self, name: TableName) -> str | None:
        """The tag property of ``name``, else ``fp:`` + a fingerprint of immutable metadata; None when missing.

        The fingerprint hashes creation time (one second resolution), provider, kind, columns and partition
        columns: it survives renames, but two untagged tables of one shape created within the same second share
        it. None for a view (not a table). See :meth:`_describe` for the metastore calls.
        """
        info = self._describe(name)
        if info is None or _kind(info) == "VIEW":
            return None
        return _identity_of(info)

    def list_tables(self, db: str) -> list[TableName]:
        """Tables (managed or external; no views, no temporary views) of ``db``, sorted. Two metastore calls."""
        if _substitutes(db):
            raise NoSuchObjectError(f"database {db} does not exist", db)
        quoted = quote_ident(db)
        try:
            tables = self._spark.sql(f"SHOW TABLES IN {quoted}").collect()
            views = self._spark.sql(f"SHOW VIEWS IN {quoted}").collect()
        except ENGINE_ERRORS as error:
            failure = _inspect(error)
            if failure.condition in _MISSING:
                raise NoSuchObjectError(f"database {db} does not exist", db) from None
            raise self._engine_error(failure, f"cannot list the tables of {db}", None) from None
        view_names = {row["viewName"] for row in views if not row["isTemporary"]}
        names = {row["tableName"] for row in tables if not row["isTemporary"]} - view_names
        return [TableName(db.lower(), table) for table in sorted(names)]

    def default_location(self, name: TableName) -> str | None:
        """Where a managed table called ``name`` keeps its data: ``<database location>/<name>``, decoded.

        None when the database does not exist. One metastore call.
        """
        db_location = self._database_location(name.db)
        if db_location is None:
            return None
        return db_location.rstrip("/") + "/" + name.name

    def table_location(self, name: TableName) -> str | None:
        """The location recorded for the table ``name`` (None if missing, or a view). One metastore call."""
        info = self._describe(name)
        if info is None or not info.get("location"):
            return None
        return str(info["location"])

    # ------------------------------------------------------------------ create

    def check_current_catalog(self) -> None:
        """:class:`CatalogError` naming the current catalog unless it is the session catalog. One Py4J call on a
        classic session (the catalog manager), one SQL round trip on Spark Connect."""
        jsession = getattr(self._spark, "_jsparkSession", None)
        try:
            if jsession is not None:
                current = str(jsession.sessionState().catalogManager().currentCatalog().name())
            else:
                current = str(self._spark.sql("SELECT current_catalog()").collect()[0][0])
        except ENGINE_ERRORS as error:
            raise self._engine_error(_inspect(error), "cannot read the current catalog", None) from None
        if current.lower() != SESSION_CATALOG:
            raise CatalogError(f"the session's current catalog is {current!r}, not {SESSION_CATALOG!r}: the DDL log "
                               f"acts on {SESSION_CATALOG} only; run `USE {SESSION_CATALOG}.<database>` first",
                               current)

    def check_create(self, spec: TableSpec) -> None:
        """Raise what :meth:`create` would raise for a bad definition, without side effects.

        Checks the form, provider, properties, column types (parsed by Spark), partition columns against the
        columns (or the query's / DataFrame's schema), that a LIKE source exists, and that a SELECT analyses
        (``spark.sql`` of the query analyses it without running it). Cannot check: an unknown provider, types a
        provider cannot store, runtime failures.
        """
        self._create_statement(None, spec, "", None)
        if spec.like is not None:
            if not self._occupied(spec.like):  # LIKE takes a view as well
                raise NoSuchObjectError(f"table {spec.like} does not exist", str(spec.like))
            return
        if spec.columns is not None:
            names = [column.name for column in spec.columns]
        elif spec.as_select is not None:
            try:
                names = list(self._spark.sql(self._select_sql(spec.as_select, None)).schema.names)
            except ENGINE_ERRORS as error:
                raise self._create_error(None, spec, "select", _inspect(error)) from None
        else:
            try:
                names = list(spec.df.schema.names)
            except _DATAFRAME_ERRORS as error:
                message = _inspect(error).message if isinstance(error, ENGINE_ERRORS) else "not a DataFrame"
                raise InvalidDefinitionError(f"cannot use the DataFrame: {message}", None, error) from None
        lowered = [column.lower() for column in names]
        if len(set(lowered)) != len(lowered):
            raise InvalidDefinitionError(f"duplicate column names in {names}")
        unknown = [column for column in spec.partitioned_by if column.lower() not in lowered]
        if unknown:
            raise InvalidDefinitionError(f"partition columns {unknown} are not among the columns {names}")
        if spec.partitioned_by and len(spec.partitioned_by) >= len(names):
            raise InvalidDefinitionError("cannot partition by every column: a table needs one data column")

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """Create ``name`` as ``spec`` says, with ``tag`` stored as table property :data:`TAG_PROPERTY`.

        All-or-nothing as far as Spark allows: when the statement fails, what it left (a table carrying ``tag``, the
        directory of a failed CTAS) is removed before the error is raised. Files that were at the default location
        *before* block the create (:class:`LeftoverFilesError`) unless ``name`` is one of the DDL log's own
        (reserved prefix): then they are removed and the create retried once. An interrupt (``KeyboardInterrupt``)
        skips the clean-up, the engine may still be writing: recovery runs :meth:`drop` / :meth:`clean_leftovers`.

        ``like`` copies columns, provider and partitioning of the source (not its properties: give them in
        ``properties``); ``using`` and ``partitioned_by`` do not apply to it; a ``comment`` is set right after the
        CREATE (Spark's CREATE TABLE LIKE has no COMMENT clause), still before anyone knows the table.
        ``as_select`` is the user's query text, ``df`` a
        DataFrame of this session (written through a temporary view).

        Metastore calls: an existence check, then the CREATE (a CTAS also runs a Spark job); more on failure.
        """
        if _substitutes(name.db) or _substitutes(name.name):
            raise InvalidNameError(f"table names containing '${{' are not supported: {name}", str(name))
        view = f"{_SOURCE_VIEW_PREFIX}{uuid.uuid4().hex}" if spec.df is not None else None
        statement = self._create_statement(name, spec, tag, view)
        self._check_literal_mode()
        if self._occupied(name):
            raise ObjectExistsError(f"{name} already exists", str(name))
        try:
            if view is not None:
                self._register_view(spec.df, view, name)
            self._run_create(name, spec, tag, statement)
            if spec.like is not None and spec.comment is not None:
                self._set_like_comment(name, spec.comment, tag)
        finally:
            if view is not None:
                self._drop_view(view)

    def _set_like_comment(self, name: TableName, comment: str, tag: str) -> None:
        try:
            self._spark.sql(f"ALTER TABLE {name.quoted} SET TBLPROPERTIES ('comment' = {sql_string_literal(comment)})")
        except ENGINE_ERRORS as error:
            self._undo_failed_create(name, tag)
            raise self._create_error(name, TableSpec(like=name), "like", _inspect(error)) from None

    def _run_create(self, name: TableName, spec: TableSpec, tag: str, statement: str) -> None:
        for attempt in (1, 2):
            try:
                self._spark.sql(statement)
                return
            except ENGINE_ERRORS as error:
                failure = _inspect(error)
            if failure.condition == "LOCATION_ALREADY_EXISTS":
                if attempt == 1 and name.is_reserved and not self._occupied(name):
                    self.clean_leftovers(name)
                    continue
                raise self._leftover_error(name, "create") from None
            if failure.condition != "TABLE_OR_VIEW_ALREADY_EXISTS":
                self._undo_failed_create(name, tag)
            raise self._create_error(name, spec, spec.form, failure) from None

    def _undo_failed_create(self, name: TableName, tag: str) -> None:
        """After a failed CREATE of a name that did not exist: drop what carries our tag, remove leftover files."""
        try:
            identity = self.identity(name)
            if identity == tag:
                self.drop(name)
            if identity in (tag, None):
                self._clean_until_quiet(name)
        except CatalogError:
            pass  # best effort: the caller gets the original error; recovery repeats drop / clean_leftovers

    def _clean_until_quiet(self, name: TableName) -> None:
        """Remove the leftovers of a failed write, and again while tasks Spark is still cancelling re-create them.

        A failed job returns while its other tasks are being killed; one killed mid-write can re-create
        ``<location>/_temporary/...`` after the job's own abort removed it. Polls the location (local strategy)
        until it has stayed absent for a moment, for at most a few seconds; the metastore strategy cleans once more
        after a pause.
        """
        self.clean_leftovers(name)
        location = self.default_location(name)
        if location is None:
            return
        path = local_path(location) if self._strategy(location) == "local" else None
        if path is None:
            time.sleep(_SETTLE_QUIET_SECONDS)
            self.clean_leftovers(name)
            return
        deadline = time.monotonic() + _SETTLE_MAX_SECONDS
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(_SETTLE_POLL_SECONDS)
            if path.exists() or path.is_symlink():
                self.clean_leftovers(name)
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= _SETTLE_QUIET_SECONDS:
                return

    def _create_statement(self, name: TableName | None, spec: TableSpec, tag: str, view: str | None) -> str:
        """The CREATE statement for ``spec``, validating everything that needs no metastore (``name`` None: check)."""
        try:
            form = spec.form
        except ValueError as error:
            raise InvalidDefinitionError(str(error), _ename(name)) from None
        target = name.quoted if name is not None else quote_ident(RESERVED_PREFIX + "check")
        properties = self._properties_sql(spec, tag, name)
        if form == "columns":
            assert spec.columns is not None
            if not spec.columns:
                raise InvalidDefinitionError(f"{_label(name)} needs at least one column", _ename(name))
            columns = ", ".join(self._column_sql(column, name) for column in spec.columns)
            statement = (
                f"CREATE TABLE {target} ({columns}) USING {self._provider(spec, name)}"
                f"{self._partitioning_sql(spec, name)}{self._comment_sql(spec)}{properties}"
            )
        elif form == "like":
            assert spec.like is not None
            if spec.partitioned_by:
                raise InvalidDefinitionError(
                    f"partitioned_by cannot be given with like (it comes from {spec.like})", _ename(name)
                )
            statement = f"CREATE TABLE {target} LIKE {spec.like.quoted}{properties}"
        else:
            statement = (
                f"CREATE TABLE {target} USING {self._provider(spec, name)}"
                f"{self._partitioning_sql(spec, name)}{self._comment_sql(spec)}{properties} AS "
            )
        if _substitutes(statement):
            raise InvalidDefinitionError(
                f"names containing '${{' are not supported (Spark would substitute them) in {_label(name)}",
                _ename(name),
            )
        if spec.as_select is not None:
            return statement + self._select_sql(spec.as_select, name)
        if spec.df is not None:
            return statement + f"SELECT * FROM {quote_ident(view or RESERVED_PREFIX + 'src')}"
        return statement

    def _column_sql(self, column: Column, table: TableName | None) -> str:
        """``\\`name\\` TYPE [COMMENT '...']`` with TYPE parsed by Spark and printed again by :func:`type_sql`."""
        if not isinstance(column.name, str) or not column.name:
            raise InvalidDefinitionError(f"empty column name in {_label(table)}", _ename(table))
        where = f"column {column.name!r} of {_label(table)}"
        if not isinstance(column.type, str) or not column.type.strip():
            raise InvalidDefinitionError(f"{where}: empty type", _ename(table))
        try:
            parsed = DataType.fromDDL(f"{quote_ident(column.name)} {column.type}")
        except ENGINE_ERRORS as error:
            raise InvalidDefinitionError(
                f"{where}: invalid type {column.type!r}: {_inspect(error).message}", _ename(table), error
            ) from None
        if (
            not isinstance(parsed, StructType)
            or len(parsed.fields) != 1
            or parsed.fields[0].name != column.name
            or not parsed.fields[0].nullable
            or parsed.fields[0].metadata
        ):
            raise InvalidDefinitionError(
                f"{where}: the type must be one data type (no NOT NULL, COMMENT or further columns): {column.type!r}",
                _ename(table),
            )
        data_type = parsed.fields[0].dataType
        if poisons_the_metastore(data_type):
            raise InvalidDefinitionError(
                f"{where}: CHAR/VARCHAR inside a type whose nested field names need quoting "
                f"({', '.join(map(repr, _quoted_field_names(data_type)))}) makes a table Spark cannot read back; "
                "use STRING or plain field names",
                _ename(table),
            )
        printed = type_sql(data_type)
        try:
            again = DataType.fromDDL(f"c {printed}")
        except ENGINE_ERRORS as error:
            raise InvalidDefinitionError(f"{where}: unsupported type {column.type!r}", _ename(table), error) from None
        if again != StructType([StructField("c", data_type)]):
            raise InvalidDefinitionError(f"{where}: unsupported type {column.type!r}", _ename(table))
        text = f"{quote_ident(column.name)} {printed}"
        if column.comment is not None:
            text += f" COMMENT {sql_string_literal(column.comment)}"
        return text

    @staticmethod
    def _provider(spec: TableSpec, name: TableName | None) -> str:
        if not isinstance(spec.using, str) or not _PROVIDER.fullmatch(spec.using):
            raise InvalidDefinitionError(f"invalid table provider {spec.using!r} for {_label(name)}", _ename(name))
        return spec.using

    @staticmethod
    def _partitioning_sql(spec: TableSpec, name: TableName | None) -> str:
        if not spec.partitioned_by:
            return ""
        if any(not isinstance(column, str) or not column for column in spec.partitioned_by):
            raise InvalidDefinitionError(f"empty partition column name for {_label(name)}", _ename(name))
        if len({column.lower() for column in spec.partitioned_by}) != len(spec.partitioned_by):
            raise InvalidDefinitionError(f"duplicate partition column for {_label(name)}", _ename(name))
        return " PARTITIONED BY (" + ", ".join(quote_ident(column) for column in spec.partitioned_by) + ")"

    @staticmethod
    def _comment_sql(spec: TableSpec) -> str:
        return "" if spec.comment is None else f" COMMENT {sql_string_literal(spec.comment)}"

    @staticmethod
    def _properties_sql(spec: TableSpec, tag: str, name: TableName | None) -> str:
        keys = [key for key, _ in spec.properties]
        if TAG_PROPERTY in keys:
            raise InvalidDefinitionError(f"property {TAG_PROPERTY!r} is reserved for the DDL log", _ename(name))
        if any(not isinstance(key, str) or not key for key in keys) or any(
            not isinstance(value, str) for _, value in spec.properties
        ):
            raise InvalidDefinitionError(f"table properties of {_label(name)} must be non-empty strings", _ename(name))
        if len(set(keys)) != len(keys):
            raise InvalidDefinitionError(f"duplicate table property for {_label(name)}", _ename(name))
        if any(value == REDACTED for _, value in spec.properties):
            raise InvalidDefinitionError(
                f"a table property of {_label(name)} is {REDACTED!r}: Spark's placeholder for a redacted value, whose "
                "real value cannot be read back",
                _ename(name),
            )
        if not isinstance(tag, str):
            raise InvalidDefinitionError(f"the tag must be a string, not {type(tag).__name__}", _ename(name))
        pairs = [*spec.properties, (TAG_PROPERTY, tag)]
        assignments = ", ".join(f"{sql_string_literal(key)}={sql_string_literal(value)}" for key, value in pairs)
        return f" TBLPROPERTIES ({assignments})"

    @staticmethod
    def _select_sql(select: str, name: TableName | None) -> str:
        """The user's query as a subquery: whatever it holds, it cannot turn into anything but a query."""
        text = select.strip()
        while text.endswith(";"):
            text = text[:-1].rstrip()
        if not text:
            raise InvalidDefinitionError(f"empty SELECT for {_label(name)}", _ename(name))
        return f"SELECT * FROM (\n{text}\n) AS {quote_ident(RESERVED_PREFIX + 'select')}"

    def _register_view(self, df: Any, view: str, name: TableName) -> None:
        try:
            df.createOrReplaceTempView(view)
        except _DATAFRAME_ERRORS as error:
            message = _inspect(error).message if isinstance(error, ENGINE_ERRORS) else "not a DataFrame"
            raise InvalidDefinitionError(f"cannot use the DataFrame for {name}: {message}", str(name), error) from None

    def _drop_view(self, view: str) -> None:
        with contextlib.suppress(*ENGINE_ERRORS):  # a temporary view dies with its session anyway
            self._spark.catalog.dropTempView(view)

    def _create_error(self, name: TableName | None, spec: TableSpec, form: str, failure: _Failure) -> CatalogError:
        condition = failure.condition or ""
        label = _label(name)
        if condition == "TABLE_OR_VIEW_ALREADY_EXISTS":
            return ObjectExistsError(f"{label} already exists", _ename(name))
        if condition == "SCHEMA_NOT_FOUND":
            db = _param_name(failure.params.get("schemaName"), 1) or (name.db if name is not None else None)
            return NoSuchObjectError(f"database {db} does not exist", db)
        if condition == "TABLE_OR_VIEW_NOT_FOUND":
            missing = str(spec.like) if spec.like is not None else _param_name(failure.params.get("relationName"))
            return NoSuchObjectError(f"cannot create {label}: {missing or 'a table'} does not exist", missing)
        if name is not None and (
            condition == "INVALID_SCHEMA_OR_RELATION_NAME"
            or (
                condition == "INVALID_ATTRIBUTE_NAME_SYNTAX"
                and str(failure.params.get("name", "")).lower() in (name.name.lower(), name.db.lower())
            )
        ):
            return InvalidNameError(f"{name} is not a valid Spark table name (letters, digits and _ only)", str(name))
        if failure.analysis or condition in _BAD_DEFINITION:
            return InvalidDefinitionError(f"cannot create {label}: {failure.message}", _ename(name), failure.error)
        if form == "select":
            return EngineOperationError(
                f"creating {label} failed while running its query: {failure.message}", _ename(name), failure.error
            )
        return EngineOperationError(f"creating {label} failed: {failure.message}", _ename(name), failure.error)

    # ------------------------------------------------------------------ insert

    def insert(self, name: TableName, fill: Fill) -> None:
        """``INSERT INTO name`` the rows of ``fill`` (a SELECT text or a DataFrame of this session), by position.

        Not all-or-nothing under a crash: Spark's job commit moves the task files into the table one by one, so a
        kill during it leaves part of the rows, a kill before it a ``_temporary/`` directory that readers ignore. A
        query that fails adds no rows; a task Spark was still cancelling may leave an (ignored) ``_temporary/``
        directory behind, which is not removed here since other writers may be using it. Metastore calls: the
        INSERT and its Spark job (an existence check after a failure). ``fill.partition`` with static values
        becomes the INSERT's ``PARTITION`` clause; ``fill.keep`` is ``SparkPartitionKeep``.
        """
        from storage.catalogs.spark.overwrite import SparkPartitionKeep, partition_clause  # it imports this module

        given = [value for value in (fill.as_select, fill.df) if value is not None]
        if len(given) != 1:
            raise InvalidDefinitionError("a Fill needs exactly one of as_select, df", str(name))
        self._check_literal_mode()
        view = f"{_SOURCE_VIEW_PREFIX}{uuid.uuid4().hex}" if fill.df is not None else None
        if fill.as_select is not None:
            source = self._select_sql(fill.as_select, name)
        else:
            source = f"SELECT * FROM {quote_ident(str(view))}"
        try:
            if view is not None:
                self._register_view(fill.df, view, name)
            try:
                self._spark.sql(f"INSERT INTO {name.quoted}{partition_clause(fill)} {source}")
            except ENGINE_ERRORS as error:
                failure = _inspect(error)
                # Checked only now, after a failure: Spark refuses a missing table or a view before running anything.
                if not self.exists(name):
                    raise NoSuchObjectError(f"table {name} does not exist", str(name)) from None
                raise self._insert_error(name, failure) from None
        finally:
            if view is not None:
                self._drop_view(view)
        SparkPartitionKeep(self).keep(name, fill)

    def partition_overwrite_mode(self) -> str:
        """The session's ``spark.sql.sources.partitionOverwriteMode`` (what a ``SET`` just changed), lower case."""
        try:
            value = self._spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static")
        except ENGINE_ERRORS as error:
            raise self._engine_error(_inspect(error), "cannot read the partition overwrite mode", None) from None
        return str(value or "static").strip().lower()

    @staticmethod
    def _insert_error(name: TableName, failure: _Failure) -> CatalogError:
        condition = failure.condition or ""
        if condition in _MISSING:
            missing = _param_name(failure.params.get("relationName")) or str(name)
            return NoSuchObjectError(f"cannot insert into {name}: {missing} does not exist", missing)
        if failure.analysis or condition in _BAD_DEFINITION:
            return InvalidDefinitionError(f"cannot insert into {name}: {failure.message}", str(name), failure.error)
        return EngineOperationError(
            f"inserting into {name} failed while running its query: {failure.message}", str(name), failure.error
        )

    # ------------------------------------------------------------------ rename / drop

    def rename(self, old: TableName, new: TableName) -> None:
        """``ALTER TABLE old RENAME TO new``: one metastore call; a managed table's directory moves with it.

        A view is not a table (:class:`NoSuchObjectError`); both names must be in one database. If the target's
        default location exists (even empty) although no table has that name, Spark refuses; the files are removed
        first only when ``new`` is one of the DDL log's names (reserved prefix), else :class:`LeftoverFilesError`
        says where they are.
        """
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: Spark renames tables only within a database", str(new))
        if _substitutes(old.db) or _substitutes(old.name):
            raise NoSuchObjectError(f"table {old} does not exist", str(old))
        if _substitutes(new.name):
            raise InvalidNameError(f"table names containing '${{' are not supported: {new}", str(new))
        statement = f"ALTER TABLE {old.quoted} RENAME TO {new.quoted}"
        for attempt in (1, 2):
            try:
                self._spark.sql(statement)
                return
            except ENGINE_ERRORS as error:
                failure = _inspect(error)
            if failure.condition == "LOCATION_ALREADY_EXISTS":
                if attempt == 1 and new.is_reserved and not self._occupied(new):
                    self.clean_leftovers(new)
                    continue
                raise self._leftover_error(new, f"rename {old} to") from None
            raise self._rename_error(old, new, failure) from None

    def _rename_error(self, old: TableName, new: TableName, failure: _Failure) -> CatalogError:
        condition = failure.condition or ""
        if condition in _MISSING:
            return NoSuchObjectError(f"table {old} does not exist", str(old))
        if condition == "TABLE_OR_VIEW_ALREADY_EXISTS":
            return ObjectExistsError(f"cannot rename {old} to {new}: {new} already exists", str(new))
        if condition.startswith("EXPECT_TABLE_NOT_VIEW"):
            return NoSuchObjectError(f"{old} is a view, not a table", str(old))
        if condition in ("INVALID_SCHEMA_OR_RELATION_NAME", "INVALID_ATTRIBUTE_NAME_SYNTAX"):
            return InvalidNameError(f"{new} is not a valid Spark table name (letters, digits and _ only)", str(new))
        return self._engine_error(failure, f"renaming {old} to {new} failed", new)

    def settle_rename(self, old: TableName, new: TableName) -> None:
        """Repair a rename cut between Hive's directory move and its metastore commit; a no-op otherwise.

        Torn means: ``old`` is a managed table recorded at its default location, that directory is gone, no table
        ``new`` exists and ``new``'s default location does. ``local`` strategy: the directory is moved back
        (``os.rename``). ``metastore`` strategy (no public API moves files): ``old`` is pointed at the directory
        where its data now is (``ALTER TABLE ... SET LOCATION``, and for a partitioned table ``MSCK REPAIR TABLE ...
        SYNC PARTITIONS`` to re-register its partitions there); the table is whole again, but keeps that location
        until it is dropped. Metastore calls: a describe, an existence check, two database lookups (the metastore
        strategy: two path checks and one or two ALTERs more).
        """
        if old == new or old.db != new.db:
            return
        info = self._describe(old)
        if info is None or _kind(info) != "MANAGED" or self._occupied(new):
            return
        old_default, new_default = self.default_location(old), self.default_location(new)
        if old_default is None or new_default is None:
            return
        if str(info.get("location") or "").rstrip("/") != old_default.rstrip("/"):
            return  # a table outside its default location is never moved by a rename
        old_path, new_path = local_path(old_default), local_path(new_default)
        if self._strategy(old_default) == "local" and old_path is not None and new_path is not None:
            if old_path.exists() or not new_path.is_dir():
                return
            try:
                os.rename(new_path, old_path)
            except OSError as error:
                raise EngineOperationError(
                    f"cannot move {new_default} back to {old_default}: {error}", str(old), error
                ) from None
            return
        if self._path_exists(old_default) or not self._path_exists(new_default):
            return
        self._check_literal_mode()
        try:
            self._spark.sql(f"ALTER TABLE {old.quoted} SET LOCATION {sql_string_literal(new_default)}")
            if info.get("partition_columns"):
                # Partition locations still name the old directory: forget those (their directories are gone, so
                # nothing is deleted) and register the partitions found under the table's new location.
                self._spark.sql(f"MSCK REPAIR TABLE {old.quoted} SYNC PARTITIONS")
        except ENGINE_ERRORS as error:
            raise self._engine_error(_inspect(error), f"cannot repair the torn rename of {old}", old) from None

    def drop(self, name: TableName, *, expect: str | None = None, before: Callable[[], None] | None = None) -> bool:
        """``DROP TABLE ... PURGE``, then (managed tables) the leftovers at its location, so no file of it is left.

        A view is not a table (:class:`NoSuchObjectError`). With ``expect``, only a table whose :meth:`identity` is
        ``expect`` is dropped (False otherwise); ``before`` runs right before the DROP. Metastore calls: a lookup
        and a describe, the drop; the clean-up needs none when the table's local directory is gone (else an
        existence check, and a database lookup when the table was not at its default location).
        """
        info = self._describe(name, expect_present=True)
        if info is None:
            raise NoSuchObjectError(f"table {name} does not exist", str(name))
        kind = _kind(info)
        if kind == "VIEW":
            raise NoSuchObjectError(f"{name} is a view, not a table", str(name))
        if expect is not None and _identity_of(info) != expect:
            return False
        if before is not None:
            before()
        if name.name.startswith(_GC_PREFIX) and _GC_TARGET in (info.get("table_properties") or {}):
            self._discard_gc_table(name)
            return True
        try:
            self._spark.sql(f"DROP TABLE {name.quoted} PURGE")
        except ENGINE_ERRORS as error:
            failure = _inspect(error)
            if failure.condition in _MISSING:
                raise NoSuchObjectError(f"table {name} does not exist", str(name)) from None
            raise self._engine_error(failure, f"dropping {name} failed", name) from None
        if kind == "MANAGED":
            location = str(info.get("location") or "").rstrip("/")
            # A managed table at its default location (``<database>/<name>``) saves the database lookup.
            self._clean(name, location if location.rsplit("/", 1)[-1] == name.name else None)
        return True

    # ------------------------------------------------------------------ ALTER TABLE (storage.catalogs.spark.alter)

    def table_metadata(self, name: TableName) -> TableMetadata | None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.table_metadata`."""
        return self._alter.table_metadata(name)

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.set_properties`."""
        self._alter.set_properties(name, properties)

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.unset_properties`."""
        self._alter.unset_properties(name, keys)

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.set_column_comment`."""
        self._alter.set_column_comment(name, column, comment)

    def add_columns(self, name: TableName, columns: tuple[Column, ...]) -> None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.add_columns`."""
        self._alter.add_columns(name, columns)

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.list_partitions`."""
        return self._alter.list_partitions(name, spec)

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.add_partition`."""
        self._alter.add_partition(name, spec)

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.alter.SparkTableAlter.drop_partition`."""
        self._alter.drop_partition(name, spec)

    # ------------------------------------------------------------------ views (storage.catalogs.spark.views)

    def view_definition(self, name: TableName) -> ViewDefinition | None:
        """See :meth:`storage.catalogs.spark.views.SparkViews.view_definition`."""
        return self._views.view_definition(name)

    def view_identity(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.views.SparkViews.view_identity`."""
        return self._views.view_identity(name)

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None:
        """See :meth:`storage.catalogs.spark.views.SparkViews.create_view`."""
        self._views.create_view(name, definition, replace=replace)

    def rename_view(self, old: TableName, new: TableName) -> None:
        """See :meth:`storage.catalogs.spark.views.SparkViews.rename_view`."""
        self._views.rename_view(old, new)

    def drop_view(self, name: TableName) -> None:
        """See :meth:`storage.catalogs.spark.views.SparkViews.drop_view`."""
        self._views.drop_view(name)

    # ------------------------------------------------------------------ functions (storage.catalogs.spark.functions)

    def function_definition(self, name: TableName) -> FunctionDefinition | None:
        """See :meth:`storage.catalogs.spark.functions.SparkFunctions.function_definition`."""
        return self._functions.function_definition(name)

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None:
        """See :meth:`storage.catalogs.spark.functions.SparkFunctions.create_function`."""
        self._functions.create_function(name, definition, replace=replace)

    def drop_function(self, name: TableName) -> None:
        """See :meth:`storage.catalogs.spark.functions.SparkFunctions.drop_function`."""
        self._functions.drop_function(name)

    # ------------------------------------------------------------------ databases (storage.catalogs.spark.databases)

    def database_exists(self, db: str) -> bool:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.database_exists`."""
        return self._databases.database_exists(db)

    def database_identity(self, db: str) -> str | None:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.database_identity`."""
        return self._databases.database_identity(db)

    def tag_database(self, db: str) -> str:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.tag_database`."""
        return self._databases.tag_database(db)

    def list_objects(self, db: str) -> DatabaseObjects:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.list_objects`."""
        return self._databases.list_objects(db)

    def create_database(
        self, db: str, *, comment: str | None = None, properties: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.create_database`."""
        self._databases.create_database(db, comment=comment, properties=properties)

    def drop_database(self, db: str) -> None:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.drop_database`."""
        self._databases.drop_database(db)

    def database_leftovers_exist(self, db: str) -> bool:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.database_leftovers_exist`."""
        return self._databases.database_leftovers_exist(db)

    def clean_database_leftovers(self, db: str) -> bool:
        """See :meth:`storage.catalogs.spark.databases.SparkDatabases.clean_database_leftovers`."""
        return self._databases.clean_database_leftovers(db)

    # ------------------------------------------------------------------ leftovers

    def clean_leftovers(self, name: TableName) -> bool:
        """Remove the default location of ``name`` when no table or view of that name exists; True if removed.

        Names Spark could never have created (anything but letters, digits and ``_``) are left alone, so no path
        can escape the database directory.

        ``local`` strategy: ``shutil.rmtree`` on the ``file:`` path (a symlink is unlinked, never followed).
        ``metastore`` strategy, for file systems Python cannot reach (HDFS, S3, the disk of a remote Connect
        server): a helper table ``ddllog_gc_<hash>`` gets a partition located at the directory and is dropped; Hive
        deletes a managed table's partition directories wherever they are. Limits: the existence check lists the
        path with the ``binaryFile`` reader (glob characters in the location skip it); a crash can leave the helper
        table behind, and :meth:`drop` of it, or the next ``clean_leftovers`` of that name, removes it safely.

        Metastore calls: an existence check and a database lookup (the ``metastore`` strategy: four to six more).
        """
        return self._clean(name, None)

    def _clean(self, name: TableName, default_location: str | None) -> bool:
        """:meth:`clean_leftovers`, with the default location of ``name`` when the caller knows it already."""
        if not (ENGINE_NAME.fullmatch(name.db) and ENGINE_NAME.fullmatch(name.name)):
            return False
        if default_location is not None and self._strategy(default_location) == "local":
            path = local_path(default_location)
            if path is not None and not (path.exists() or path.is_symlink()):
                return False  # nothing there (the usual case after a DROP ... PURGE): no metastore call needed
        if self._occupied(name):
            return False
        location = default_location or self.default_location(name)
        if location is None:
            return False
        if self._strategy(location) == "local":
            return self._remove_local(location, name)
        return self._remove_via_metastore(location, name)

    def _strategy(self, location: str) -> Literal["local", "metastore"]:
        if self._leftovers == "auto":
            return "local" if local_path(location) is not None else "metastore"
        return self._leftovers

    @staticmethod
    def _remove_local(location: str, name: TableName) -> bool:
        path = local_path(location)
        if path is None:
            raise CatalogError(f"{location} is not a local path; use leftovers='metastore'", str(name))
        if path.name != name.name or not path.is_absolute():
            raise CatalogError(f"refusing to remove {location}: not the default location of {name}", str(name))
        try:
            if path.is_symlink() or path.is_file():
                path.unlink()
                return True
            if not path.exists():
                return False
            shutil.rmtree(path)
        except OSError as error:
            raise EngineOperationError(
                f"cannot remove leftover files at {location}: {error}", str(name), error
            ) from None
        return True

    def _remove_via_metastore(self, location: str, name: TableName) -> bool:
        self._check_literal_mode()
        gc = TableName(name.db, _GC_PREFIX + hashlib.sha256(location.encode()).hexdigest()[:16])
        self._discard_gc_table(gc)
        if not _GLOB_CHARS.search(location) and not self._path_exists(location):
            return False
        try:
            self._spark.sql(
                f"CREATE TABLE {gc.quoted} (`x` INT, `p` INT) USING parquet PARTITIONED BY (`p`) "
                f"TBLPROPERTIES ({sql_string_literal(_GC_TARGET)}={sql_string_literal(location)})"
            )
            self._spark.sql(f"ALTER TABLE {gc.quoted} ADD PARTITION (`p`=1) LOCATION {sql_string_literal(location)}")
            self._spark.sql(f"DROP TABLE {gc.quoted} PURGE")
        except ENGINE_ERRORS as error:
            raise self._engine_error(_inspect(error), f"cannot remove leftover files at {location}", name) from None
        return True

    def _discard_gc_table(self, gc: TableName) -> bool:
        """Drop a helper table of the metastore strategy (one a crash left behind); True if there was one.

        Dropping it deletes its partition's directory. That is the point while the directory is garbage; but if a
        table may live at that location now, the partition is first pointed back into the helper's own directory,
        so only the helper's files go.
        """
        info = self._describe(gc)
        if info is None:
            return False
        target = (info.get("table_properties") or {}).get(_GC_TARGET)
        own = info.get("location")
        try:
            if own and (target is None or self._location_in_use(str(target), gc.db)):
                try:
                    self._spark.sql(
                        f"ALTER TABLE {gc.quoted} PARTITION (`p`=1) SET LOCATION "
                        f"{sql_string_literal(str(own).rstrip('/') + '/p=1')}"
                    )
                except ENGINE_ERRORS as error:
                    if _inspect(error).condition != "PARTITIONS_NOT_FOUND":
                        raise
            self._spark.sql(f"DROP TABLE {gc.quoted} PURGE")
        except ENGINE_ERRORS as error:
            raise self._engine_error(_inspect(error), f"cannot remove helper table {gc}", gc) from None
        return True

    def _location_in_use(self, location: str, db: str) -> bool:
        """Whether ``location`` may belong to a live table: unless it is the default location of a missing table."""
        table = location.rstrip("/").rpartition("/")[2]
        if not ENGINE_NAME.fullmatch(table):
            return True
        candidate = TableName(db, table)
        return self.default_location(candidate) != location or self._occupied(candidate)

    def _path_exists(self, location: str) -> bool:
        """Whether ``location`` exists, asked through the engine's file listing (any file system it reaches)."""
        try:
            _ = self._spark.read.format("binaryFile").load(location).schema  # resolving the source lists the path
        except ENGINE_ERRORS as error:
            failure = _inspect(error)
            if failure.condition == "PATH_NOT_FOUND":
                return False
            raise self._engine_error(failure, f"cannot check {location}", None) from None
        return True

    # ------------------------------------------------------------------ helpers

    def _describe(self, name: TableName, *, expect_present: bool = False) -> dict[str, Any] | None:
        """``DESCRIBE TABLE EXTENDED ... AS JSON`` of a table or view; None when nothing has that name.

        Asks ``tableExists`` first: a DESCRIBE of a missing name fails inside the JVM and its error crosses Py4J
        (about 50 ms with the error's inspection on a quiet machine, against 3 ms for ``tableExists``), and checks of
        names expected to be free are common (rename targets, work names, missing tables in recovery). One metastore
        call when the name is free, two when something holds it; ``expect_present`` (the caller expects a table)
        skips the check.
        """
        if not expect_present and not self._occupied(name):
            return None
        if _substitutes(name.db) or _substitutes(name.name):
            return None
        try:
            rows = self._spark.sql(f"DESCRIBE TABLE EXTENDED {name.quoted} AS JSON").collect()
        except ENGINE_ERRORS as error:
            failure = _inspect(error)
            if failure.condition in _MISSING:
                return None
            raise self._engine_error(failure, f"cannot describe {name}", name) from None
        info = json.loads(rows[0][0])
        if not isinstance(info, dict):
            raise CatalogError(f"unexpected DESCRIBE output for {name}", str(name))
        return info

    def _database_location(self, db: str) -> str | None:
        """The decoded location of ``db`` (Spark reports it URI-encoded); None if ``db`` is missing. One call."""
        if _substitutes(db):
            return None
        if ENGINE_NAME.fullmatch(db):
            # ``catalog.getDatabase`` takes about a quarter of the time of DESCRIBE DATABASE; it parses its argument
            # as a (catalog-qualified) name, so only plain names go this way.
            try:
                location = self._spark.catalog.getDatabase(db).locationUri
            except ENGINE_ERRORS as error:
                failure = _inspect(error)
                if failure.condition in _MISSING:
                    return None
                raise self._engine_error(failure, f"cannot look up database {db}", None) from None
            if location:
                return unquote(str(location))
        try:
            rows = self._spark.sql(f"DESCRIBE DATABASE EXTENDED {quote_ident(db)}").collect()
        except ENGINE_ERRORS as error:
            failure = _inspect(error)
            if failure.condition in _MISSING:
                return None
            raise self._engine_error(failure, f"cannot describe database {db}", None) from None
        for row in rows:
            if row[0] == "Location" and row[1]:
                return unquote(str(row[1]))
        return self._new_database_location(db)

    def _new_database_location(self, db: str) -> str:
        """Where Spark puts a database created without LOCATION: the warehouse (``default``) or
        ``<warehouse>/<db>.db``."""
        warehouse = str(self._spark.conf.get("spark.sql.warehouse.dir"))
        return warehouse if db == "default" else f"{warehouse.rstrip('/')}/{db}.db"

    def _check_literal_mode(self) -> None:
        value = self._spark.conf.get("spark.sql.parser.escapedStringLiterals", "false")
        if str(value).strip().lower() == "true":
            raise CatalogError(
                "spark.sql.parser.escapedStringLiterals=true is not supported: string literals cannot be escaped"
            )

    def _leftover_error(self, name: TableName, operation: str) -> LeftoverFilesError:
        location = self.default_location(name)
        return LeftoverFilesError(
            f"cannot {operation} {name}: its location {location} already exists but no table of that name does "
            "(left by a failed or interrupted operation); remove it, or call clean_leftovers if it is garbage",
            str(name),
            location,
        )

    @staticmethod
    def _engine_error(failure: _Failure, what: str, name: TableName | str | None) -> CatalogError:
        """An engine failure not covered by a more specific error: the statement (or lookup) failed in Spark."""
        label = None if name is None else str(name)
        return EngineOperationError(f"{what}: {failure.message}", label, failure.error)
