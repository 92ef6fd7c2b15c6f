"""Persistent views, the Spark catalog's :class:`~storage.catalogs.ports.Views` port (``view_definition``,
``create_view``, ``rename_view``, ``drop_view`` ...).

What Spark 4.0.1 stores for ``CREATE VIEW v [(cols)] [COMMENT c] AS <query>``, and how definitions round-trip:

* The query text ("View Text") is the statement text from the query's first token to its last, *after* ``${...}``
  variable substitution: surrounding whitespace, comments and semicolons are dropped.
* Explicit column names: Spark stores the view's schema with the given names and, separately, the query's output
  names (``view_query_output_columns``): a view has explicit columns exactly when the two differ; a column list
  equal to the query's own names is stored as none would be. ``WITH SCHEMA EVOLUTION`` with a column list is stored
  as ``TYPE EVOLUTION``. Column comments are not part of a ViewDefinition and are not kept when a view is re-created.
* Nothing of the log's is stored with a view (nothing shows in its DESC, SHOW TBLPROPERTIES or SHOW CREATE TABLE):
  ``view_definition`` reports what Spark stored, and a statement logs the view it makes as ``stored_view`` says it
  will be reported, so that recovery knows it. Older versions of the project kept the definition they were given in
  the view property :data:`VIEW_RECORD`; it is still read while it describes the view.
* The comment is stored exactly (``COMMENT ''`` is kept as ``''``).
* Temporary views (local or global) are not persistent views: they are never reported, renamed or dropped here.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from typing import Any

import attrs

from storage.catalogs import lookup_scope
from storage.catalogs.interface import ViewDefinition
from storage.catalogs.names import RESERVED_PREFIX, SESSION_CATALOG, TableName, quote_ident
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    HIVE_RECORD,
    MISSING,
    VIEW_RECORD_READ,
    Engine,
    Failure,
    engine_error,
    fingerprint,
    object_kind,
    param_name,
    sql_string_literal,
    substitutes,
)
from storage.catalogs.spark.jvm import option, with_active_session
from storage.catalogs.spark.profiles.facts import Cause
from storage.catalogs.spark.sql.function_records import decode_text
from storage.catalogs.spark.sql.table_alter import is_internal_property
from storage.catalogs.spark.sql.view_record import read_view, read_view_of_record
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)

VIEW_RECORD = "spark_ddl_log.view"
"""View property in which older versions kept the definition ``create_view`` was given (query, the View Text Spark
stored for it, explicit columns; :func:`~storage.catalogs.spark.sql.function_records.encode_text`): read, never
written, and refused as a user's property."""

_PROBE_PREFIX = RESERVED_PREFIX + "view_"
_GLOBAL_TEMP_CONF = "spark.sql.globalTempDatabase"


def _spark_definition(info: dict[str, Any]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(View Text, schema column names, query output column names) from a ``DESCRIBE ... AS JSON`` of a view."""
    text = str(info.get("view_text") or "")
    names = tuple(str(column.get("name")) for column in info.get("columns") or ())
    output = info.get("view_query_output_columns")
    return text, names, names if output is None else tuple(str(column) for column in output)


def _is_persistent_view(info: dict[str, Any]) -> bool:
    return object_kind(info) == "VIEW" and str(info.get("catalog_name", SESSION_CATALOG)) == SESSION_CATALOG


class SparkViews:
    """The :class:`~storage.catalogs.ports.Views` port of the Spark catalog."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._global_temp: str | None = None

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    def _temporary_db(self, db: str) -> bool:
        """Whether ``db`` is the database of global temporary views (whose views are never persistent)."""
        if self._global_temp is None:
            try:
                self._global_temp = str(self._spark.conf.get(_GLOBAL_TEMP_CONF, "global_temp")).lower()
            except ENGINE_ERRORS:
                return db.lower() == "global_temp"
        return db.lower() == self._global_temp

    def view_definition(self, name: TableName) -> ViewDefinition | None:
        """The definition of the persistent view ``name`` as Spark stored it; None when there is none (a table is not
        a view).

        The query is Spark's View Text, the columns the schema's names when they differ from the query's output names
        (a column list equal to them is stored as none: Spark keeps nothing that tells them apart), the schema mode
        None for Spark's default. A view made by an older version of the project may hold the definition it was given
        in :data:`VIEW_RECORD`: that one is reported while it still describes the view. The engine's lookup first (one
        metastore call, kept for the statement: its identity check reuses it), a DESCRIBE only for a view.
        """
        found = self._engine.lookup(name)
        if found is None or found.kind != "VIEW":
            return None
        info = self._stored_parts(name)
        if info is None or not _is_persistent_view(info):
            return None
        text, names, output = _spark_definition(info)
        comment = info.get("comment")
        comment = None if comment is None else str(comment)
        properties = tuple(sorted((str(key), str(value)) for key, value in (info.get("table_properties") or {}).items()
                                  if key != VIEW_RECORD and not is_internal_property(str(key))))
        mode = _reported_mode(info.get("view_schema_mode"))
        record = self._record(info)
        if record is not None:
            query, recorded_text, columns = record
            if recorded_text == text and (columns == names if columns else names == output):
                return ViewDefinition(query, comment, columns, properties, mode)
        return ViewDefinition(text, comment, names if names != output else (), properties, mode)

    def _stored_parts(self, name: TableName) -> dict[str, Any] | None:
        """The view's parts under DESCRIBE's JSON keys: from the session catalog's record where the session has a
        JVM (:func:`~storage.catalogs.spark.sql.view_record.view_info`), else from the DESCRIBE itself."""
        if self._engine.jvm is None:
            return self._engine.describe(name, expect_present=True)
        try:
            return self._read(name)[0]
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*MISSING):
                return None
            raise engine_error(failure, f"cannot read view {name}", name) from None

    def _read(self, name: TableName) -> tuple[dict[str, Any] | None, str | None]:
        """:func:`~storage.catalogs.spark.sql.view_record.read_view`, kept for the statement
        (:mod:`~storage.catalogs.lookup_scope`; every change of the name forgets it, ``Engine.forget``): a DROP VIEW
        reads its view's definition and identity once, and its forward action's checks of them read no more."""
        known = lookup_scope.cached(self._engine, (VIEW_RECORD_READ, name))
        if known is not lookup_scope.MISSING_ENTRY:
            return known  # type: ignore[no-any-return]
        jvm = self._engine.jvm
        assert jvm is not None  # the callers describe on a session without one
        record = lookup_scope.cached(self._engine, (HIVE_RECORD, name))  # the statement's lookup read it raw
        read = None
        # as the catalog restores what it reads (not in Spark's debug mode, which returns the record as stored)
        if record is not None and record is not lookup_scope.MISSING_ENTRY and self._engine.profile.catalog_restores:
            with contextlib.suppress(*ENGINE_ERRORS):  # a Hive client Spark's conversion cannot reach: read it
                read = read_view_of_record(jvm, record)
        if read is None:
            read = read_view(jvm, name)
        lookup_scope.remember(self._engine, (VIEW_RECORD_READ, name), read)
        return read

    def stored_view(self, name: TableName, definition: ViewDefinition, *, reanalysed: bool = True) -> ViewDefinition:
        """``definition`` as :meth:`view_definition` reports the view ``create_view(name, definition)`` makes: the
        View Text Spark stores for the query; no column list where it equals the query's output names (found by a
        temporary view of the query, only when a list is given); ``TYPE EVOLUTION`` for ``EVOLUTION`` with a column
        list and None for the default mode, as Spark stores them. What a statement logs as the view it makes, so that
        recovery recognises it without any mark on the view. Raises what :meth:`create_view` raises for a bad
        definition. ``reanalysed`` False: a view's reported definition with only its schema mode changed (``ALTER
        VIEW ... WITH SCHEMA``, which stores the mode as given and re-analyses nothing)."""
        mode = definition.schema_mode
        if mode is not None:
            schema_mode_text(mode, name)
        if not reanalysed:
            return attrs.evolve(definition, schema_mode=_reported_mode(mode))
        query, comment, columns = self._validated(name, definition)
        if columns:
            text, output = self._probed(name, query)
            mode = "TYPE EVOLUTION" if mode == "EVOLUTION" else mode
            columns = () if columns == output else columns
        else:
            text = self._stored_text(name, query)
        properties = tuple(sorted(self._user_properties(name, definition.properties)))
        return ViewDefinition(text, comment, columns, properties, _reported_mode(mode))

    def view_identity(self, name: TableName) -> str | None:
        """A fingerprint of the view's creation time (one second resolution) and shape: a view created anew under
        the name has another one (unless created within the same second with the same columns); a rename keeps it,
        ``CREATE OR REPLACE`` renews it (the metastore renews the create time). One metastore call: the session
        catalog's record (:func:`~storage.catalogs.spark.sql.view_record.read_view`), else a DESCRIBE."""
        if self._engine.jvm is not None:
            with contextlib.suppress(*ENGINE_ERRORS):  # a failed read (a missing database): the DESCRIBE says
                info, identity = self._read(name)
                if info is None or not _is_persistent_view(info):
                    return None
                if identity is not None:
                    return identity  # else columns not known to render as DESCRIBE renders them
        info = self._engine.describe(name)
        if info is None or not _is_persistent_view(info):
            return None
        return fingerprint(info)

    def current_view_identity(self, name: TableName) -> str | None:
        """One metastore call (:meth:`view_identity` after the statement's kept reads of the name are forgotten)."""
        self._engine.forget(name, partitions=False)
        return self.view_identity(name)

    @staticmethod
    def _record(info: dict[str, Any]) -> tuple[str, str, tuple[str, ...]] | None:
        raw = (info.get("table_properties") or {}).get(VIEW_RECORD)
        if raw is None:
            return None
        try:
            data = decode_text(str(raw))
            query, text, columns = data["query"], data["text"], data["columns"]
        except (ValueError, KeyError, TypeError):
            return None
        if not (isinstance(query, str) and isinstance(text, str) and isinstance(columns, list)):
            return None
        if not all(isinstance(column, str) for column in columns):
            return None
        return query, text, tuple(columns)

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None:
        """``CREATE [OR REPLACE] VIEW name [(cols)] [COMMENT ...] AS <query>``.

        The query is the user's query by design (spliced as it is, after ``AS``, where only a query parses; Spark
        substitutes ``${...}`` in it as in any statement). A table of that name raises :class:`ObjectExistsError`
        even with ``replace``, so does an existing view without it; a relation the query names that does not exist
        :class:`NoSuchObjectError` naming it; any other bad query :class:`InvalidDefinitionError`. Metastore calls:
        the CREATE. Nothing of the log's is stored with the view: :meth:`view_definition` reports it as Spark
        stored it (:meth:`stored_view`).
        """
        if substitutes(name.db) or substitutes(name.name):
            raise InvalidNameError(f"view names containing '${{' are not supported: {name}", str(name))
        query, comment, columns = self._validated(name, definition)
        self._engine.check_literal_mode()
        clauses = []
        if columns:
            clauses.append("(" + ", ".join(quote_ident(column) for column in columns) + ")")
        if comment is not None:
            clauses.append(f"COMMENT {sql_string_literal(comment)}")
        if definition.schema_mode is not None:
            clauses.append(f"WITH SCHEMA {schema_mode_text(definition.schema_mode, name)}")
        pairs = self._user_properties(name, definition.properties)
        if pairs:
            clauses.append("TBLPROPERTIES (" + ", ".join(f"{sql_string_literal(k)}={sql_string_literal(v)}"
                                                         for k, v in pairs) + ")")
        head = "CREATE OR REPLACE VIEW" if replace else "CREATE VIEW"
        statement = f"{head} {name.quoted} {' '.join(clauses)} AS {query}"
        self._engine.forget(name)
        try:
            self._spark.sql(statement)
        except ENGINE_ERRORS as error:
            raise self._create_error(name, self._engine.failure(error)) from None

    @staticmethod
    def _validated(name: TableName, definition: ViewDefinition) -> tuple[str, str | None, tuple[str, ...]]:
        if not isinstance(definition, ViewDefinition):
            raise InvalidDefinitionError(f"the definition of view {name} must be a ViewDefinition", str(name))
        query, comment, columns = definition.query, definition.comment, tuple(definition.columns)
        if not isinstance(query, str) or not query.strip(" \t\r\n;"):
            raise InvalidDefinitionError(f"empty query for view {name}", str(name))
        if comment is not None and not isinstance(comment, str):
            raise InvalidDefinitionError(f"the comment of view {name} must be a string", str(name))
        for column in columns:
            if not isinstance(column, str) or not column:
                raise InvalidDefinitionError(f"empty column name for view {name}", str(name))
            if substitutes(column):
                raise InvalidNameError(f"column names containing '${{' are not supported: {column!r}", column)
        return query, comment, columns

    def _stored_text(self, name: TableName, query: str) -> str:
        """The View Text Spark stores for ``query``: on a classic session what Spark's own parser keeps of it
        (``CreateView.originalText``: the query's source text, as the CREATE VIEW will store it; parsing alone, no
        metastore), else a temporary view of it read back."""
        self._engine.check_literal_mode()
        jvm = self._engine.jvm
        if jvm is not None:
            try:
                parser = jvm.session.sessionState().sqlParser()
                plan = with_active_session(  # the session's settings decide how it parses, as in its spark.sql
                    jvm, lambda: parser.parsePlan(f"CREATE VIEW {quote_ident(_PROBE_PREFIX)} AS {query}"))
                created = plan.getClass().getSimpleName() == jvm.classes.create_view_plan
                text = option(plan.originalText()) if created else None
            except ENGINE_ERRORS as error:
                raise self._create_error(name, self._engine.failure(error), _PROBE_PREFIX) from None
            if text is not None:
                return str(text)
        return self._probed(name, query)[0]

    def _probed(self, name: TableName, query: str) -> tuple[str, tuple[str, ...]]:
        """The View Text Spark stores for ``query`` and the query's output column names, from a temporary view of it
        (analysed: the relations it reads are looked up; session-local, nothing stored)."""
        self._engine.check_literal_mode()
        probe = f"{_PROBE_PREFIX}{uuid.uuid4().hex}"
        try:
            try:
                self._spark.sql(f"CREATE TEMPORARY VIEW {quote_ident(probe)} AS {query}")
                rows = self._spark.sql(f"DESCRIBE TABLE EXTENDED {quote_ident(probe)} AS JSON").collect()
            except ENGINE_ERRORS as error:
                raise self._create_error(name, self._engine.failure(error), probe) from None
        finally:
            self._engine.drop_temp_view(probe)
        info = json.loads(rows[0][0])
        return str(info.get("view_text") or ""), _spark_definition(info)[1]

    @staticmethod
    def _create_error(name: TableName, failure: Failure, probe: str | None = None) -> CatalogError:
        message = failure.message if probe is None else failure.message.replace(probe, name.name)
        if failure.means(Cause.RELATION_EXISTS):
            return ObjectExistsError.relation(f"{name} already exists", str(name))
        if failure.means(Cause.TABLE_NOT_VIEW):
            return ObjectExistsError.table_not_view(f"{name} is a table, not a view", name)
        if failure.means(Cause.DATABASE_MISSING):
            db = param_name(failure.params.get("schemaName"), 1) or name.db
            return NoSuchObjectError.database(f"database {db} does not exist", db)
        if failure.means(Cause.BAD_NAME):
            return InvalidNameError(f"{name} is not a valid Spark view name (letters, digits and _ only)", str(name))
        if failure.means(Cause.RELATION_MISSING):
            missing = param_name(failure.params.get("relationName")) or "a relation"
            return NoSuchObjectError.relation(f"cannot create view {name}: {missing} does not exist", missing)
        if failure.analysis:
            return InvalidDefinitionError(f"cannot create view {name}: {message}", str(name), failure.error)
        return EngineOperationError(f"creating view {name} failed: {message}", str(name), failure.error)

    def rename_view(self, old: TableName, new: TableName) -> None:
        """``ALTER VIEW old RENAME TO new`` (within one database): :class:`NoSuchObjectError` when ``old`` is missing,
        :class:`WrongObjectKindError` when it is a table, :class:`ObjectExistsError` when ``new`` is taken by a table
        or view. One metastore call."""
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: views cannot move between databases", str(new))
        if substitutes(old.db) or substitutes(old.name) or self._temporary_db(old.db):
            raise NoSuchObjectError.relation(f"view {old} does not exist", str(old))
        if substitutes(new.name):
            raise InvalidNameError(f"view names containing '${{' are not supported: {new}", str(new))
        self._engine.forget(old, new)
        try:
            self._spark.sql(f"ALTER VIEW {old.quoted} RENAME TO {new.quoted}")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            not_a_view = _not_a_view(old, failure, "use ALTER TABLE ... RENAME TO")
            if not_a_view is not None:
                raise not_a_view from None
            if failure.means(Cause.RELATION_EXISTS):
                raise ObjectExistsError.relation(
                    f"cannot rename {old} to {new}: {new} already exists", str(new)) from None
            if failure.means(Cause.BAD_NAME, Cause.BAD_NAME_SYNTAX):
                raise InvalidNameError(f"{new} is not a valid Spark view name", str(new)) from None
            raise engine_error(failure, f"renaming view {old} to {new} failed", new) from None

    @staticmethod
    def _user_properties(name: TableName, properties: Any) -> list[tuple[str, str]]:
        pairs = list(dict(properties).items())
        for key, value in pairs:
            if not isinstance(key, str) or not key or not isinstance(value, str):
                raise InvalidDefinitionError(f"view properties of {name} must be non-empty strings", str(name))
            if key == VIEW_RECORD or is_internal_property(key):
                raise InvalidDefinitionError(f"view property {key!r} is maintained by the metastore or the DDL log "
                                             f"and cannot be set on {name}", key)
        return pairs

    def set_view_properties(self, name: TableName, properties: dict[str, str]) -> None:
        """``ALTER VIEW name SET TBLPROPERTIES``: one metastore call; the view is not re-analysed."""
        pairs = self._user_properties(name, properties)
        if not pairs:
            return
        listed = ", ".join(f"{sql_string_literal(k)}={sql_string_literal(v)}" for k, v in pairs)
        self._alter_view(name, f"SET TBLPROPERTIES ({listed})")

    def unset_view_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """``ALTER VIEW name UNSET TBLPROPERTIES IF EXISTS``: one metastore call; keys not set are ignored."""
        wanted = [key for key in dict.fromkeys(keys) if key != VIEW_RECORD and not is_internal_property(key)]
        if wanted:
            self._alter_view(name, f"UNSET TBLPROPERTIES IF EXISTS ({', '.join(map(sql_string_literal, wanted))})")

    def set_view_schema_mode(self, name: TableName, mode: str) -> None:
        """``ALTER VIEW name WITH SCHEMA <mode>``: one metastore call, Spark's own; the view is not re-analysed, so
        its stored columns keep their types (a CREATE OR REPLACE would take the sources' current ones)."""
        self._alter_view(name, f"WITH SCHEMA {schema_mode_text(mode, name)}")

    def _alter_view(self, name: TableName, clause: str) -> None:
        if substitutes(name.db) or substitutes(name.name) or self._temporary_db(name.db):
            raise NoSuchObjectError.relation(f"view {name} does not exist", str(name))
        self._engine.check_literal_mode()
        self._engine.forget(name)
        try:
            self._spark.sql(f"ALTER VIEW {name.quoted} {clause}")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            raise _not_a_view(name, failure, "use ALTER TABLE") or engine_error(
                failure, f"altering view {name} failed", name) from None

    def drop_view(self, name: TableName) -> None:
        """``DROP VIEW``: :class:`NoSuchObjectError` when ``name`` is missing, :class:`WrongObjectKindError` when it
        is a table. One metastore call."""
        if substitutes(name.db) or substitutes(name.name) or self._temporary_db(name.db):
            raise NoSuchObjectError.relation(f"view {name} does not exist", str(name))
        self._engine.forget(name)
        try:
            self._spark.sql(f"DROP VIEW {name.quoted}")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            raise _not_a_view(name, failure, "use DROP TABLE") or engine_error(
                failure, f"dropping view {name} failed", name) from None


def _not_a_view(name: TableName, failure: Failure, hint: str) -> CatalogError | None:
    """Spark's refusal of a view statement because ``name`` is missing or is a table, as the error it stands for
    (None: another failure)."""
    if failure.means(Cause.RELATION_MISSING, Cause.DATABASE_MISSING):
        return NoSuchObjectError.relation(f"view {name} does not exist", str(name))
    if failure.means(Cause.WRONG_KIND, Cause.TABLE_NOT_VIEW):
        return WrongObjectKindError.table_not_view(name, hint, condition=failure.condition or "")
    return None


SCHEMA_MODES = ("BINDING", "COMPENSATION", "EVOLUTION", "TYPE EVOLUTION")
"""Spark's view schema binding modes (``WITH SCHEMA ...``), as its DESCRIBE reports them."""
DEFAULT_SCHEMA_MODE = "COMPENSATION"
"""The mode Spark 4 gives a view made without the clause (its default settings): read back as None, the
definition's "the session's default", so that a view's definition round-trips as it was given."""


def _reported_mode(mode: object) -> str | None:
    """A stored schema mode as a definition states it: None for Spark's default."""
    return None if mode is None or str(mode).upper() == DEFAULT_SCHEMA_MODE else str(mode).upper()


def schema_mode_text(mode: str, name: TableName) -> str:
    """The clause's mode, checked: never spliced into SQL unless it is one of Spark's."""
    if mode not in SCHEMA_MODES:
        raise InvalidDefinitionError(f"the schema mode of view {name} must be one of {', '.join(SCHEMA_MODES)}, "
                                     f"not {mode!r}", str(name))
    return mode
