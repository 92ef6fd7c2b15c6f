"""What every part of the Spark catalog (:func:`~storage.catalogs.spark.catalog.spark_catalog`) needs: the shared
:class:`Engine` (the Spark session and the metastore lookups several parts make) and the public helpers for statement
text, engine errors and locations.

* Statement text: identifiers are quoted (:func:`storage.catalogs.names.quote_ident`), string literals escaped
  (:func:`sql_string_literal`; Spark substitutes ``${...}`` everywhere in a statement, so :func:`substitutes` tells
  which names cannot be spliced at all), a user's SELECT wrapped as a subquery (:func:`select_sql`).
* Engine errors: every Spark call catches :data:`ENGINE_ERRORS`, reads them with :meth:`Engine.failure` into a
  :class:`Failure` (condition, what it means by the session's condition table, parameters, one-line message) and
  translates that into a :class:`~storage.errors.CatalogError` subclass naming the object (:func:`engine_error` when
  nothing more specific applies).
* Locations: Spark reports them URI-encoded; they are handled decoded, and
  :func:`~storage.catalogs.spark.profile.local_path` tells which ones this process can touch with Python's file
  functions.
* The session itself: what it is (classic or Connect, versions, the metastore client) is its
  :class:`~storage.catalogs.spark.profile.SparkProfile`, which :attr:`Engine.profile` gives every part.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

import attrs
from pyspark.errors import AnalysisException, PySparkException

from storage.catalogs import lookup_scope
from storage.catalogs.interface import TAG_PROPERTY, tag_in
from storage.catalogs.names import (
    FINGERPRINT_PREFIX,
    RESERVED_PREFIX,
    SESSION_CATALOG,
    TableName,
    quote_ident,
    split_qualified,
)
from storage.catalogs.spark.jvm import new, scala_map, session_part, static, with_active_session
from storage.catalogs.spark.profile import Jvm, SparkProfile, jvm_of, local_path, profile_of
from storage.catalogs.spark.profiles import facts_for
from storage.catalogs.spark.profiles.facts import Cause, ConditionTable
from storage.catalogs.spark.table_lookup import JvmTable, TableLookup, read_jvm_table
from storage.errors import CatalogError, EngineOperationError, InvalidDefinitionError, UnrenderedSchemaError

LeftoverStrategy = Literal["auto", "local", "metastore"]

ENGINE_NAME = re.compile(r"[A-Za-z0-9_]+")
"""Database and table names the Spark session catalog accepts (Java ``\\w``: ASCII only)."""

MISSING = (Cause.RELATION_MISSING, Cause.DATABASE_MISSING)
"""The table (or view) or its database does not exist."""

BAD_DEFINITION = (Cause.DATA_SOURCE_MISSING, Cause.UNSUPPORTED_DATA_TYPE)
"""A bad definition, even when Spark says so outside analysis."""

REDACTED = "*********(redacted)"
"""What Spark shows instead of the value of a property whose key or value matches ``spark.redaction.regex`` (a static
setting, by default ``(?i)secret|password|token|access[.]?key``): a placeholder, never written back as a value."""

HIVE_RECORD, HIVE_PARTITIONS, VIEW_RECORD_READ = "hive record", "hive partitions", "view record read"
"""The keys under which :class:`~storage.catalogs.spark.hms.metastore_client.MetastoreClient` keeps a table's ``Table``
and ``Partition`` records for the statement, and what a view's record read gives (``SparkViews``)
(``(key, name)`` in :mod:`~storage.catalogs.lookup_scope`); :meth:`Engine.forget` drops them with the engine's own
lookup."""
INSTALLED_RECORD = "installed record"
"""The key under which the metastore client keeps the ``Table`` record a statement installed or created for a data
source table (:func:`~storage.catalogs.spark.hms.installed_records.installed_record`): what the version record of its
binlog event reads, without reading it back."""
DATABASE_LOCATION = "database location"
"""The key under which :meth:`Engine.database_location` keeps a database's location for the statement."""
DATABASE_PROPERTIES = "database properties"
"""The key under which :meth:`Engine.database_properties` keeps a database's properties for the statement."""

SOURCE_VIEW_PREFIX = RESERVED_PREFIX + "src_"
"""Names of the temporary views through which a DataFrame is written (``create`` and ``insert``)."""

_CONDITION = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")
_MAX_MESSAGE = 300


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
DATAFRAME_ERRORS: tuple[type[Exception], ...] = (*ENGINE_ERRORS, AttributeError, TypeError)
"""What using a DataFrame can raise: engine errors, and Python's when the object is no DataFrame at all."""


# ---------------------------------------------------------------------- statement text


def sql_string_literal(value: str) -> str:
    """Return ``value`` as a Spark SQL string literal that reads back exactly as ``value``.

    Spark literals take backslash escapes (``''`` is not an escape in Spark SQL). Backslash and quote are escaped;
    ``$`` is written ``\\u0024`` so ``${...}`` variable substitution, which runs over the whole statement text, never
    sees it. Needs ``spark.sql.parser.escapedStringLiterals=false`` (Spark's default; checked by
    :meth:`Engine.check_literal_mode`).
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


def substitutes(text: str) -> bool:
    """Whether Spark's ``${...}`` variable substitution could rewrite ``text`` inside a statement."""
    return "${" in text


def new_table_label(name: TableName | None) -> str:
    """How messages call a table being defined: its name, or "the new table" when only checked (``name`` None)."""
    return "the new table" if name is None else str(name)


def object_label(name: TableName | None) -> str | None:
    """The object an error names (None while only checking a definition)."""
    return None if name is None else str(name)


def select_sql(select: str, name: TableName | None) -> str:
    """The user's query as a subquery: whatever it holds, it cannot turn into anything but a query."""
    text = select.strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    if not text:
        raise InvalidDefinitionError(f"empty SELECT for {new_table_label(name)}", object_label(name))
    return f"SELECT * FROM (\n{text}\n) AS {quote_ident(RESERVED_PREFIX + 'select')}"


# ---------------------------------------------------------------------- engine errors


@attrs.frozen
class Failure:
    """What an engine exception says, reduced to what the translation needs."""

    condition: str | None
    params: dict[str, str]
    message: str
    analysis: bool
    """The statement was refused before it ran (AnalysisException / ParseException)."""
    error: BaseException
    causes: frozenset[Cause] = frozenset()
    """What the condition means (the session's condition table; empty when read without one)."""

    def means(self, *causes: Cause) -> bool:
        """Whether the condition means any of ``causes``."""
        return not self.causes.isdisjoint(causes)


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


def inspect_error(error: BaseException, conditions: ConditionTable | None = None) -> Failure:
    """Read the error condition, parameters and a one-line message from a classic, Connect or Py4J exception, and
    with ``conditions`` what the condition means (:meth:`Engine.failure` gives the session's table)."""
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
    causes = frozenset() if conditions is None else conditions.causes(condition)
    return Failure(condition, params, short_message(text), isinstance(error, AnalysisException), error, causes)


def param_name(value: str | None, parts_expected: int = 2) -> str | None:
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


def session_position(spark: Any) -> tuple[str, tuple[str, ...]] | None:
    """The current catalog and namespace parts of a classic session as its queries see them (the session is made
    its JVM thread's active one while they are read: the catalog manager reads ``spark.sql.defaultCatalog`` from the
    thread's active session); None on Spark Connect, which is asked in SQL. Six round trips."""
    jvm = jvm_of(spark)
    if jvm is None:
        return None

    def read() -> tuple[str, tuple[str, ...]]:
        manager = jvm.session.sessionState().catalogManager()
        namespace = manager.currentNamespace()
        return str(manager.currentCatalog().name()), tuple(str(namespace[i]) for i in range(len(namespace)))

    return with_active_session(jvm, read)


def local_temp_view_exists(spark: Any, name: str) -> bool | None:
    """Whether ``name`` is one of a classic session's local temporary views, asked of its session catalog as its
    queries would (the session active: the catalog reads ``spark.sql.caseSensitive`` from it), six round trips;
    None on Spark Connect, which is asked in SQL. (``SHOW VIEWS`` took 9 to 25 ms of every routed statement.)"""
    jvm = jvm_of(spark)
    if jvm is None:
        return None
    return with_active_session(
        jvm, lambda: bool(session_part(jvm, "session catalog").getRawTempView(name).isDefined()))


def engine_error(failure: Failure, what: str, name: TableName | str | None) -> CatalogError:
    """An engine failure not covered by a more specific error: the statement (or lookup) failed in Spark."""
    label = None if name is None else str(name)
    return EngineOperationError(f"{what}: {failure.message}", label, failure.error)


# ---------------------------------------------------------------------- DESCRIBE output and locations


def object_kind(info: dict[str, Any]) -> str:
    """``MANAGED``, ``EXTERNAL`` or ``VIEW`` from a ``DESCRIBE ... AS JSON``."""
    return str(info.get("type", "")).upper()


def fingerprint(info: dict[str, Any]) -> str:
    """``fp:`` + a hash of the metadata in a ``DESCRIBE ... AS JSON`` that renames do not change."""
    material = {key: info.get(key) for key in ("created_time", "provider", "type", "columns", "partition_columns")}
    digest = hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()
    return FINGERPRINT_PREFIX + digest[:32]


def identity_of(info: dict[str, Any]) -> str:
    """The identity of a table described as ``info``: its tag property, else its :func:`fingerprint`. A DESCRIBE
    shows the visible tag only (a Spark Connect session's, an older version's; the hidden one only in Spark's debug
    mode): on a Hive session the hidden one is read raw
    (:func:`~storage.catalogs.spark.table_lookup.read_jvm_table`)."""
    tag = tag_in(info.get("table_properties") or {})
    return tag if tag is not None else fingerprint(info)


class Engine:
    """The Spark session every part of the catalog works on, and the lookups several parts need.

    ``spark`` may be swapped while no call runs (the benchmark's profiler puts a timing proxy in front of it): the
    parts read it on every call. ``leftovers`` is the strategy for touching directories (see
    the Spark catalog (:func:`~storage.catalogs.spark.catalog.spark_catalog`)); :meth:`strategy` resolves ``"auto"``
    per location.
    """

    def __init__(self, spark: Any, leftovers: LeftoverStrategy = "auto") -> None:
        if leftovers not in ("auto", "local", "metastore"):
            raise ValueError(f"leftovers must be 'auto', 'local' or 'metastore', not {leftovers!r}")
        self.spark = spark
        self.leftovers: LeftoverStrategy = leftovers
        self._record_lookup: Callable[[TableName], JvmTable | None] | None = None

    def read_records_with(self, lookup: Callable[[TableName], JvmTable | None]) -> None:
        """Let :meth:`lookup` read a table through ``lookup`` (the metastore client's record, kept for the statement;
        raises :class:`~storage.errors.UnrenderedSchemaError` where it cannot tell) before Spark's Hive client."""
        self._record_lookup = lookup

    @property
    def profile(self) -> SparkProfile:
        """The session's profile (:func:`~storage.catalogs.spark.profile.profile_of`: read once per session)."""
        try:
            return profile_of(self.spark)
        except ENGINE_ERRORS as error:
            raise engine_error(inspect_error(error), "cannot read what the Spark session is", None) from None

    @property
    def jvm(self) -> Jvm | None:
        """The session's JVM handles (None on Spark Connect). No round trip."""
        return jvm_of(self.spark, self.profile.classes)

    def failure(self, error: BaseException) -> Failure:
        """``error`` read (:func:`inspect_error`) with the session's condition table (the newest known one when the
        session cannot even say its version)."""
        try:
            conditions = profile_of(self.spark).conditions
        except ENGINE_ERRORS:
            conditions = facts_for(None).conditions
        return inspect_error(error, conditions)

    def java_means(self, error: BaseException, *causes: Cause) -> bool:
        """Whether the Java exception behind ``error`` (a Hive metastore call's) means any of ``causes``; one round
        trip to name its class."""
        java = getattr(error, "java_exception", None)
        try:
            name = str(java.getClass().getName()) if java is not None else ""
        except Exception:  # noqa: BLE001 - a gone JVM cannot name the class
            name = ""
        return not self.profile.conditions.java_causes(name).isdisjoint(causes)

    def hadoop(self, location: str) -> tuple[Any, Any] | None:
        """Hadoop's ``FileSystem`` of ``location`` and its ``Path``, as the session reaches them (None on Spark
        Connect): two round trips. Raises the engine's errors."""
        jvm = self.jvm
        if jvm is None:
            return None
        path = new(jvm.view, jvm.classes.hadoop_path, location)
        return path.getFileSystem(jvm.hadoop_configuration()), path

    def strategy(self, location: str) -> Literal["local", "metastore"]:
        """How to touch ``location``: with Python's file functions (``local``) or through the metastore."""
        if self.leftovers == "auto":
            return "local" if local_path(location) is not None else "metastore"
        return self.leftovers

    def local_directory(self, location: str) -> Path | None:
        """The local path of ``location`` where :meth:`strategy` touches it with Python's file functions (a look or a
        mkdir there takes microseconds, where Hadoop's takes Py4J round trips and, without Hadoop's native library,
        a ``chmod`` process); None where it goes through the metastore."""
        return local_path(location) if self.strategy(location) == "local" else None

    def check_literal_mode(self) -> None:
        """:class:`CatalogError` when the session's string literals cannot be escaped (:func:`sql_string_literal`)."""
        value = self.spark.conf.get("spark.sql.parser.escapedStringLiterals", "false")
        if str(value).strip().lower() == "true":
            raise CatalogError(
                "spark.sql.parser.escapedStringLiterals=true is not supported: string literals cannot be escaped"
            )

    def check_current_catalog(self) -> None:
        """:class:`CatalogError` naming the current catalog unless it is the session catalog. One Py4J call on a
        classic session (the catalog manager), one SQL round trip on Spark Connect."""
        jvm = self.jvm
        try:
            if jvm is not None:
                current = str(jvm.session.sessionState().catalogManager().currentCatalog().name())
            else:
                current = str(self.spark.sql("SELECT current_catalog()").collect()[0][0])
        except ENGINE_ERRORS as error:
            raise engine_error(inspect_error(error), "cannot read the current catalog", None) from None
        if current.lower() != SESSION_CATALOG:
            raise CatalogError(f"the session's current catalog is {current!r}, not {SESSION_CATALOG!r}: the DDL log "
                               f"acts on {SESSION_CATALOG} only; run `USE {SESSION_CATALOG}.<database>` first",
                               current)

    # ------------------------------------------------------------------ tables and views

    def occupied(self, name: TableName) -> bool:
        """Whether a table or a view holds ``name`` (temporary views never count). One metastore call (none when
        :meth:`lookup` answered for ``name`` in this statement)."""
        if substitutes(name.db) or substitutes(name.name):
            return False
        known = lookup_scope.cached(self, name)
        if known is not lookup_scope.MISSING_ENTRY:
            return known is not None
        try:
            return bool(self.spark.catalog.tableExists(name.quoted))
        except ENGINE_ERRORS as error:
            raise engine_error(inspect_error(error), f"cannot look up {name}", name) from None

    def describe(self, name: TableName, *, expect_present: bool = False) -> dict[str, Any] | None:
        """``DESCRIBE TABLE EXTENDED ... AS JSON`` of a table or view; None when nothing has that name.

        Asks ``tableExists`` first: a DESCRIBE of a missing name fails inside the JVM and its error crosses Py4J
        (about 50 ms with the error's inspection on a quiet machine, against 3 ms for ``tableExists``), and checks of
        names expected to be free are common (rename targets, work names, missing tables in recovery). One metastore
        call when the name is free, two when something holds it; ``expect_present`` (the caller expects a table)
        skips the check.
        """
        if not expect_present and not self.occupied(name):
            return None
        if substitutes(name.db) or substitutes(name.name):
            return None
        try:
            rows = self.spark.sql(f"DESCRIBE TABLE EXTENDED {name.quoted} AS JSON").collect()
        except ENGINE_ERRORS as error:
            failure = self.failure(error)
            if failure.means(*MISSING):
                return None
            raise engine_error(failure, f"cannot describe {name}", name) from None
        info = json.loads(rows[0][0])
        if not isinstance(info, dict):
            raise CatalogError(f"unexpected DESCRIBE output for {name}", str(name))
        return info

    def lookup(self, name: TableName) -> TableLookup | None:
        """Kind, identity and (managed tables) location of what holds ``name``; None when nothing does.

        Classic sessions: one metastore call (:func:`~storage.catalogs.spark.table_lookup.read_jvm_table`), a DESCRIBE
        only for an untagged table whose columns it does not render; Spark Connect: :meth:`describe`. Inside
        :func:`~storage.catalogs.lookup_scope.reuse_lookups` the answer is kept for the statement (:meth:`forget`,
        :meth:`remember`); :meth:`occupied` and :meth:`describe` of a name found free reuse it too."""
        known = lookup_scope.cached(self, name)
        if known is not lookup_scope.MISSING_ENTRY:
            return known  # type: ignore[no-any-return]
        return self.remember(name, self._lookup(name))

    def remember(self, name: TableName, found: TableLookup | None) -> TableLookup | None:
        """Keep ``found`` as this statement's lookup of ``name`` (from a reading that told as much)."""
        lookup_scope.remember(self, name, found)
        return found

    def _lookup(self, name: TableName) -> TableLookup | None:
        if substitutes(name.db) or substitutes(name.name):
            return None
        jvm = self.jvm
        hive = jvm is not None and self.profile.has_metastore_client
        unread: BaseException | None = None
        if jvm is not None:
            try:
                table = self._read_table(jvm, name, raw=hive and self.profile.catalog_restores)
            except ENGINE_ERRORS as error:
                table, unread = None, error  # a missing database, say: DESCRIBE tells (and raises) as before
            else:
                if table is None:
                    return None
                if table.kind == "VIEW":
                    return TableLookup(table.kind, None, None)
                if table.tag is not None:
                    return TableLookup(table.kind, table.tag, table.location)
                if table.material is not None:
                    return TableLookup(table.kind, fingerprint(table.material), table.location)
        info = self.describe(name)
        if info is None:
            return None
        kind = object_kind(info)
        if kind == "VIEW":
            return TableLookup(kind, None, None)
        location = str(info["location"]) if kind == "MANAGED" and info.get("location") else None
        if hive and unread is not None and TAG_PROPERTY not in (info.get("table_properties") or {}):
            # DESCRIBE never shows a hidden tag: a fingerprint here could be the wrong identity of a tagged table
            raise engine_error(self.failure(unread), f"cannot read the identity of {name}", name)
        return TableLookup(kind, identity_of(info), location)

    def _read_table(self, jvm: Jvm, name: TableName, *, raw: bool) -> JvmTable | None:
        if raw and self._record_lookup is not None:
            with contextlib.suppress(UnrenderedSchemaError):
                return self._record_lookup(name)
        return read_jvm_table(jvm, name, hive=raw)

    def forget(self, *names: TableName, partitions: bool = True) -> None:
        """Forget what :meth:`lookup` (and the metastore client's ``get``) kept of ``names`` in this statement: call it
        before changing them (``partitions`` False: their partition listings stay, for a change of the definition
        whose partitions are then switched from what was listed)."""
        keys = (HIVE_RECORD, INSTALLED_RECORD, VIEW_RECORD_READ) + ((HIVE_PARTITIONS,) if partitions else ())
        lookup_scope.forget(self, *names, *((key, name) for key in keys for name in names))

    def default_location(self, name: TableName) -> str | None:
        """Where a managed table called ``name`` keeps its data: ``<database location>/<name>``, decoded.

        None when the database does not exist. One metastore call.
        """
        db_location = self.database_location(name.db)
        if db_location is None:
            return None
        return db_location.rstrip("/") + "/" + name.name

    @contextlib.contextmanager
    def source_view(self, df: Any | None, name: TableName) -> Iterator[str | None]:
        """The DataFrame ``df`` readable as a temporary view of a fresh name while the block reads it (to write it
        into ``name``; the view's name for the statement's text), dropped after; None without a DataFrame."""
        if df is None:
            yield None
            return
        view = f"{SOURCE_VIEW_PREFIX}{uuid.uuid4().hex}"
        try:
            df.createOrReplaceTempView(view)
        except DATAFRAME_ERRORS as error:
            message = inspect_error(error).message if isinstance(error, ENGINE_ERRORS) else "not a DataFrame"
            raise InvalidDefinitionError(f"cannot use the DataFrame for {name}: {message}", str(name), error) from None
        try:
            yield view
        finally:
            self.drop_temp_view(view)

    def drop_temp_view(self, view: str) -> None:
        """Drop a temporary view of this package's (best effort: it dies with its session anyway)."""
        with contextlib.suppress(*ENGINE_ERRORS):
            self.spark.catalog.dropTempView(view)

    # ------------------------------------------------------------------ databases

    def database_location(self, db: str) -> str | None:
        """The decoded location of ``db`` (Spark reports it URI-encoded); None if ``db`` is missing. One call; inside
        :func:`~storage.catalogs.lookup_scope.reuse_lookups` a location found is kept for the statement (a DROP of
        two tables asks once; :meth:`forget_database` before dropping one)."""
        key = (DATABASE_LOCATION, db.lower())
        known = lookup_scope.cached(self, key)
        if known is not lookup_scope.MISSING_ENTRY:
            return known  # type: ignore[no-any-return]
        location = self._database_location(db)
        if location is not None:
            lookup_scope.remember(self, key, location)
        return location

    def forget_database(self, db: str) -> None:
        """Forget the location and properties :meth:`database_location` and :meth:`database_properties` kept of
        ``db`` in this statement: call it before dropping it."""
        lookup_scope.forget(self, (DATABASE_LOCATION, db.lower()))
        lookup_scope.forget(self, (DATABASE_PROPERTIES, db.lower()))

    def _database_location(self, db: str) -> str | None:
        if substitutes(db):
            return None
        if ENGINE_NAME.fullmatch(db):
            # the session catalog's record (two round trips and the metastore call) where there is a JVM, else
            # ``catalog.getDatabase`` (five; a quarter of the time of DESCRIBE DATABASE); both parse the name as a
            # (catalog-qualified) one, so only plain names go this way
            try:
                location = self._jvm_database_location(db) if self.jvm is not None else (
                    self.spark.catalog.getDatabase(db).locationUri)
            except ENGINE_ERRORS as error:
                failure = self.failure(error)
                if failure.means(*MISSING):
                    return None
                raise engine_error(failure, f"cannot look up database {db}", None) from None
            if location:
                return unquote(str(location))
        try:
            rows = self.spark.sql(f"DESCRIBE DATABASE EXTENDED {quote_ident(db)}").collect()
        except ENGINE_ERRORS as error:
            failure = self.failure(error)
            if failure.means(*MISSING):
                return None
            raise engine_error(failure, f"cannot describe database {db}", None) from None
        for row in rows:
            if row[0] == "Location" and row[1]:
                return unquote(str(row[1]))
        return self.new_database_location(db)

    def _jvm_database_location(self, db: str) -> str | None:
        jvm = self.jvm
        assert jvm is not None
        record = session_part(jvm, "session catalog").getDatabaseMetadata(db)
        return str(record.locationUri().toString())  # URI-encoded, as the catalog API reports it

    def new_database_location(self, db: str) -> str:
        """Where Spark puts a database created without LOCATION: the warehouse (``default``) or
        ``<warehouse>/<db>.db``."""
        warehouse = self.profile.warehouse
        return warehouse if db == "default" else f"{warehouse.rstrip('/')}/{db}.db"

    def database_properties(self, db: str) -> dict[str, str] | None:
        """The properties of the database ``db`` (None when it is missing) from the session catalog's record where
        the session has a JVM (one metastore call and four round trips, where ``DESCRIBE DATABASE EXTENDED`` is a
        statement of about 15 ms); None also where there is no such record to read (Spark Connect, a name Spark
        quotes): the caller reads :meth:`database_properties_text`. Inside
        :func:`~storage.catalogs.lookup_scope.reuse_lookups` kept for the statement with the location
        (:meth:`database_location`); :meth:`forget_database` and :meth:`noted_database_property` keep it true."""
        jvm = self.jvm
        if jvm is None or not ENGINE_NAME.fullmatch(db):
            return None
        key = (DATABASE_PROPERTIES, db.lower())
        known = lookup_scope.cached(self, key)
        if known is not lookup_scope.MISSING_ENTRY:
            return known  # type: ignore[no-any-return]
        try:
            record = session_part(jvm, "session catalog").getDatabaseMetadata(db)
            properties = scala_map(jvm, record.properties())
            location = str(record.locationUri().toString())
        except ENGINE_ERRORS as error:
            failure = self.failure(error)
            if failure.means(Cause.DATABASE_MISSING):
                return None
            raise engine_error(failure, f"cannot read database {db}", db) from None
        # kept for the statement, with the location the record gives too (a DROP DATABASE reads both)
        lookup_scope.remember(self, key, properties)
        if location:
            lookup_scope.remember(self, (DATABASE_LOCATION, db.lower()), unquote(location))
        return properties

    def noted_database_property(self, db: str, key: str, value: str) -> None:
        """The catalog set the property ``key`` of ``db`` to ``value``: the properties this statement keeps of it
        (:meth:`database_properties`) say so too."""
        scope_key = (DATABASE_PROPERTIES, db.lower())
        known = lookup_scope.cached(self, scope_key)
        if isinstance(known, dict):
            lookup_scope.remember(self, scope_key, {**known, key: value})

    def database_properties_text(self, db: str) -> str | None:
        """The ``Properties`` text of ``DESCRIBE DATABASE EXTENDED db`` (``((k,v), ...)``); None when ``db`` is
        missing. One metastore call."""
        try:
            rows = self.spark.sql(f"DESCRIBE DATABASE EXTENDED {quote_ident(db)}").collect()
        except ENGINE_ERRORS as error:
            failure = self.failure(error)
            if failure.means(Cause.DATABASE_MISSING):
                return None
            raise engine_error(failure, f"cannot describe database {db}", db) from None
        return next((str(row[1] or "") for row in rows if row[0] == "Properties"), "")


def has_class(jvm: Jvm, name: str) -> bool:
    """Whether the class loader Py4J uses now finds ``name`` (a class of the project's jar): asked each time, since
    one Python process keeps its JVM view across SparkContexts that differ in ``spark.jars``."""
    loader = jvm.view.java.lang.Thread.currentThread().getContextClassLoader()
    try:
        static(jvm.view, "java.lang.Class", "forName")(name, False, loader)
    except ENGINE_ERRORS:
        return False
    return True
