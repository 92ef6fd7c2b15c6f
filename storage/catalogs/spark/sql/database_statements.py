"""Databases, the Spark catalog's :class:`~storage.catalogs.ports.Databases` port (``database_exists``,
``list_objects``, ``drop_database`` ...).

Spark 4.0.1 / Hive: database property values longer than 4000 characters are dropped without an error.
``DROP DATABASE ... RESTRICT`` refuses a database that holds tables, views or persistent
functions (``SCHEMA_NOT_EMPTY``) and the ``default`` database always; it deletes the database directory, leftover
files in it included. Temporary views and temporary functions belong to no database and are never listed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from storage.catalogs.interface import TAG_PROPERTY, DatabaseObjects, new_database_tag
from storage.catalogs.names import SESSION_CATALOG, TableName, quote_ident
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    ENGINE_NAME,
    Engine,
    engine_error,
    sql_string_literal,
    substitutes,
)
from storage.catalogs.spark.hms.swap import SparkSwap
from storage.catalogs.spark.jvm import external_catalog, seq_strings, session_part
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.profiles.facts import Cause
from storage.catalogs.spark.sql.function_records import RECORD_PREFIX
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
)

MAX_DATABASE_PROPERTY = 4000
"""Longest database property value the Hive metastore keeps (``DATABASE_PARAMS.PARAM_VALUE`` is VARCHAR(4000))."""


_TAG_VALUE = re.compile(r"db:[0-9a-f]{32}")
"""The shape of a database's tag (:func:`~storage.catalogs.interface.new_database_tag`)."""
_TAG = re.compile(r"\(" + re.escape(TAG_PROPERTY) + r",(" + _TAG_VALUE.pattern + r")\)")
"""The tag inside DESCRIBE DATABASE's ``((key,value), ...)`` properties text; the value's shape makes it exact."""


class SparkDatabases:
    """The :class:`~storage.catalogs.ports.Databases` port of the Spark catalog; ``hms`` (None without a metastore
    client of the catalog's own) drops a database keeping its files."""

    def __init__(self, engine: Engine, hms: SparkSwap | None) -> None:
        self._engine = engine
        self._hms = hms

    def database_location(self, db: str) -> str | None:
        """See :meth:`storage.catalogs.spark.engine.Engine.database_location`."""
        return self._engine.database_location(db)

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    def database_exists(self, db: str) -> bool:
        """Whether the database ``db`` exists. One metastore call: through the session catalog for a plain name (one
        round trip), else through the catalog API, which for a quoted name first asks the session catalog for the
        name with its quotes (always missing), then parses and analyses it and asks again (3 to 4 ms)."""
        if not isinstance(db, str) or not db or substitutes(db):
            return False
        jvm = self._engine.jvm
        try:
            if jvm is not None and ENGINE_NAME.fullmatch(db):
                return bool(session_part(jvm, "session catalog").databaseExists(db))
            return bool(self._spark.catalog.databaseExists(quote_ident(db)))
        except ENGINE_ERRORS as error:
            raise engine_error(self._engine.failure(error), f"cannot look up database {db}", db) from None

    def database_identity(self, db: str) -> str | None:
        """The ``spark_ddl_log.tag`` property of ``db``; None when missing or untagged. One metastore call."""
        if not isinstance(db, str) or not ENGINE_NAME.fullmatch(db):
            return None
        if self._engine.jvm is not None:
            found = self._engine.database_properties(db)
            tag = None if found is None else found.get(TAG_PROPERTY)
            return tag if tag is not None and _TAG_VALUE.fullmatch(tag) else None
        properties = self._engine.database_properties_text(db)
        match = None if properties is None else _TAG.search(properties)
        return match.group(1) if match else None

    def tag_database(self, db: str) -> str:
        """Set the ``spark_ddl_log.tag`` property of ``db`` unless it has one; returns the tag. One metastore call
        when tagged already; else two more through the catalog's metastore client (without one, Spark's ``ALTER
        DATABASE ... SET DBPROPERTIES`` after an existence check)."""
        tag = self.database_identity(db)
        if tag is not None:
            return tag
        tag = new_database_tag()
        if self._hms is not None and ENGINE_NAME.fullmatch(db):
            self._hms.set_database_property(db, TAG_PROPERTY, tag)
        else:
            self._tag_by_statement(db, tag)
        self._engine.noted_database_property(db, TAG_PROPERTY, tag)  # the drop's own identity check reads it
        return tag

    def _tag_by_statement(self, db: str, tag: str) -> None:
        if not self.database_exists(db):
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        try:
            self._spark.sql(f"ALTER DATABASE {quote_ident(db)} SET DBPROPERTIES "
                            f"({sql_string_literal(TAG_PROPERTY)}={sql_string_literal(tag)})")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.DATABASE_MISSING):
                raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
            raise engine_error(failure, f"cannot tag database {db}", db) from None

    def create_database(
        self, db: str, *, comment: str | None = None, properties: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """``CREATE DATABASE db [COMMENT ...] [WITH DBPROPERTIES (...)]`` in its default location. One metastore call.

        :class:`ObjectExistsError` when it exists, :class:`InvalidNameError` for a name Spark refuses (letters,
        digits and ``_`` only), :class:`InvalidDefinitionError` for properties Spark reserves (``location``,
        ``owner`` ...), the keys of this project's function records, or values longer than the metastore keeps
        (4000 characters: longer ones would be dropped silently).
        """
        if not isinstance(db, str) or not ENGINE_NAME.fullmatch(db):
            raise InvalidNameError(f"{db!r} is not a valid Spark database name (letters, digits and _ only)", str(db))
        if comment is not None and not isinstance(comment, str):
            raise InvalidDefinitionError(f"the comment of database {db} must be a string", db)
        for key, value in properties:
            if not isinstance(key, str) or not key or not isinstance(value, str):
                raise InvalidDefinitionError(f"properties of database {db} must be non-empty strings", db)
            if key.startswith(RECORD_PREFIX):
                raise InvalidDefinitionError(f"database property {key!r} is reserved for the DDL log", db)
            if len(value) > MAX_DATABASE_PROPERTY:
                raise InvalidDefinitionError(
                    f"database property {key!r} is longer than the metastore keeps ({MAX_DATABASE_PROPERTY})", db
                )
        if len({key for key, _ in properties}) != len(properties):
            raise InvalidDefinitionError(f"duplicate database property for {db}", db)
        self._engine.check_literal_mode()
        statement = f"CREATE DATABASE {quote_ident(db)}"
        if comment is not None:
            statement += f" COMMENT {sql_string_literal(comment)}"
        if properties:
            pairs = ", ".join(f"{sql_string_literal(k)}={sql_string_literal(v)}" for k, v in properties)
            statement += f" WITH DBPROPERTIES ({pairs})"
        try:
            self._spark.sql(statement)
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.DATABASE_EXISTS):
                raise ObjectExistsError.database(f"database {db} already exists", db) from None
            if failure.means(Cause.BAD_NAME):
                raise InvalidNameError(f"{db!r} is not a valid Spark database name", db) from None
            if failure.analysis:
                raise InvalidDefinitionError(f"cannot create database {db}: {failure.message}", db, error) from None
            raise engine_error(failure, f"creating database {db} failed", db) from None

    def list_objects(self, db: str) -> DatabaseObjects:
        """Tables, views and persistent functions of ``db`` (no temporary views, no temporary or builtin
        functions), each sorted. :class:`NoSuchObjectError` when ``db`` does not exist. Three metastore calls
        (``SHOW TABLES``, ``SHOW VIEWS``, ``SHOW USER FUNCTIONS``; the first ``SHOW USER FUNCTIONS`` of a session
        also loads Spark's function registry, about a second)."""
        if substitutes(db):
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        jvm = self._engine.jvm
        if jvm is not None and ENGINE_NAME.fullmatch(db):
            return self._objects_in_record(jvm, db)
        quoted = quote_ident(db)
        try:
            tables = self._spark.sql(f"SHOW TABLES IN {quoted}").collect()
            views = self._spark.sql(f"SHOW VIEWS IN {quoted}").collect()
            functions = self._spark.sql(f"SHOW USER FUNCTIONS IN {quoted}").collect()
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.DATABASE_MISSING):
                raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
            raise engine_error(failure, f"cannot list the objects of {db}", db) from None
        view_names = {str(row["viewName"]) for row in views if not row["isTemporary"]}
        table_names = {str(row["tableName"]) for row in tables if not row["isTemporary"]} - view_names
        function_names = set()
        for row in functions:
            parts = str(row[0]).split(".")  # persistent: spark_catalog.<db>.<name>; temporary: <name>
            if len(parts) == 3 and parts[0] == SESSION_CATALOG and parts[1].lower() == db.lower():
                function_names.add(parts[2])
        owner = db.lower()
        return DatabaseObjects(
            tables=tuple(TableName(owner, name) for name in sorted(table_names)),
            views=tuple(TableName(owner, name) for name in sorted(view_names)),
            functions=tuple(TableName(owner, name) for name in sorted(function_names)),
        )

    def _objects_in_record(self, jvm: Jvm, db: str) -> DatabaseObjects:
        """:meth:`list_objects` from the session's external catalog: its table, view and function names (two list
        calls for a database without tables, three with; about ten round trips, where the three SHOW statements take
        about 50 ms)."""
        catalog = external_catalog(jvm)
        try:  # each list call checks that the database exists (a missing one raises SCHEMA_NOT_FOUND)
            names = set(seq_strings(jvm, catalog.listTables(db)))
            views = set(seq_strings(jvm, catalog.listViews(db, "*"))) if names else set()  # a view is a table too
            functions = set(seq_strings(jvm, catalog.listFunctions(db, "*")))
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.DATABASE_MISSING):
                raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
            raise engine_error(failure, f"cannot list the objects of {db}", db) from None
        owner = db.lower()
        return DatabaseObjects(
            tables=tuple(TableName(owner, name) for name in sorted(names - views)),
            views=tuple(TableName(owner, name) for name in sorted(views)),
            functions=tuple(TableName(owner, name) for name in sorted(functions)),
        )

    def drop_database(self, db: str, *, keep_files: bool = False) -> None:
        """:meth:`drop_by_statement`; ``keep_files`` keeps its files (one metastore call where the catalog has a
        metastore client of its own, :meth:`SparkSwap.drop_database_keeping_files`; else Spark's DROP deletes
        them)."""
        if keep_files and self._hms is not None:
            if self._engine.database_location(db) is None:
                raise NoSuchObjectError.database(f"database {db} does not exist", db)
            self._engine.forget_database(db)
            self._hms.drop_database_keeping_files(db)
            return
        self.drop_by_statement(db)

    def drop_by_statement(self, db: str) -> None:
        """``DROP DATABASE ... RESTRICT``: :class:`NoSuchObjectError` when missing, :class:`CatalogError` when it still
        holds objects (or is ``default``). Afterwards its directory is gone: Hive deletes it; a local default-named
        directory (``<name>.db``) that survives is removed. Metastore calls: a database describe and the DROP."""
        if substitutes(db):
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        location = self._engine.database_location(db)
        if location is None:
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        self._engine.forget_database(db)
        try:
            self._spark.sql(f"DROP DATABASE {quote_ident(db)} RESTRICT")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.DATABASE_MISSING):
                raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
            if failure.means(Cause.DATABASE_NOT_EMPTY):
                raise CatalogError(f"database {db} is not empty", db) from None
            if failure.means(Cause.DROP_DATABASE_REFUSED):
                raise CatalogError(f"the database {db} cannot be dropped", db) from None
            raise engine_error(failure, f"dropping database {db} failed", db) from None
        path = self._engine.local_directory(location)
        if path is None or path.name.lower() != f"{db.lower()}.db" or not (path.exists() or path.is_symlink()):
            return
        try:
            if path.is_symlink() or not path.is_dir():
                path.unlink()
            else:
                shutil.rmtree(path)
        except OSError as error:
            raise EngineOperationError(f"cannot remove the directory {location} of {db}: {error}", db, error) from None

    # ------------------------------------------------------------------ leftovers

    def _default_path(self, db: str) -> Path | None:
        """The local directory a new database ``db`` gets (``<warehouse>/<db>.db``); None when it is not local (the
        ``metastore`` strategy) or ``db`` is not a name Spark could have created."""
        if not ENGINE_NAME.fullmatch(db) or db.lower() == "default":
            return None
        location = self._engine.new_database_location(db.lower())
        return self._engine.local_directory(location)

    def database_leftovers_exist(self, db: str) -> bool:
        """Whether ``<warehouse>/<db>.db`` exists while no database ``db`` does. True when it cannot be checked (not
        a local file system), so that nothing there is ever removed. A metastore call and a path check."""
        path = self._default_path(db)
        if path is None:
            return True
        return not self.database_exists(db) and (path.exists() or path.is_symlink())

    def clean_database_leftovers(self, db: str) -> bool:
        """Remove ``<warehouse>/<db>.db`` if it is an empty directory and no database ``db`` exists: Hive makes the
        directory before it commits a new database and deletes it after it commits a drop, so a kill inside either
        leaves it behind (found by the soak). A directory with anything in it is kept. Local file systems only."""
        path = self._default_path(db)
        if path is None or path.is_symlink() or not path.is_dir() or self.database_exists(db):
            return False
        try:
            path.rmdir()
        except OSError:
            return False  # not empty (someone's files), or already gone
        return True
