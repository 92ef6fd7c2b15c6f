"""The exception hierarchy of spark-ddl-log, rooted in :class:`DDLLogError`.

It lives in the lowest layer so every layer can raise typed errors; ``ddl_log`` re-exports it.
"""

from __future__ import annotations

import re


class DDLLogError(Exception):
    """Base of every error this project raises on purpose. ``condition``: the error condition plain Spark raises for
    the same failure (one the error names, else that of the Spark error or project error it carries as ``cause``;
    None: the failure is the project's alone), ``sqlstate`` the SQLSTATE Spark gives it: code that tests
    ``getCondition()`` or the SQLSTATE of Spark's errors tests these."""

    _condition: str | None = None

    @property
    def own_condition(self) -> str | None:
        """The condition this error names itself (given, or its class's), not one derived from its cause."""
        if self._condition is not None:
            return self._condition
        own = getattr(type(self), "CONDITION", None)
        return own if isinstance(own, str) else None

    @property
    def condition(self) -> str | None:
        return spark_condition(self)[0]

    @condition.setter
    def condition(self, value: str | None) -> None:
        self._condition = value

    @property
    def sqlstate(self) -> str | None:
        from storage.error_conditions import sqlstate_of

        return sqlstate_of(self.condition)


def spark_condition(error: object, depth: int = 0) -> tuple[str | None, dict[str, str]]:
    """The Spark error condition behind ``error``, with the message parameters of the Spark error that names it.

    The one walker of an error's chain: a project error's own condition (:attr:`DDLLogError.own_condition`, no
    parameters); a Spark error's (pyspark's ``getCondition``, or the JVM exception's a raw Py4J error carries) with
    its ``getMessageParameters``; the ``[CONDITION]`` a JVM message starts with (pyspark's UnknownException gives
    none itself); else the same of its cause (``.cause``, then ``__cause__``), five deep at most."""
    if error is None or depth > 5:
        return None, {}
    if isinstance(error, DDLLogError):
        if error.own_condition:
            return error.own_condition, {}
    else:
        named = getattr(error, "condition", None)
        if isinstance(named, str) and named:
            return named, {}
        found = _asked_condition(getattr(error, "java_exception", error))
        if found[0]:
            return found
        shown = SHOWN_CONDITION.search(str(error))
        if shown:
            return shown.group(1), {}
    cause = getattr(error, "cause", None)
    if cause is None:
        cause = getattr(error, "__cause__", None)
    return spark_condition(cause, depth + 1)


def _asked_condition(spark_error: object) -> tuple[str | None, dict[str, str]]:
    """``getCondition()`` and ``getMessageParameters()`` of a pyspark or JVM error; (None, {}) when it has none or
    its JVM is gone."""
    get = getattr(spark_error, "getCondition", None)
    if not callable(get):
        return None, {}
    try:
        found = get()
        parameters = getattr(spark_error, "getMessageParameters", None)
        pairs = dict(parameters() or {}) if callable(parameters) else {}
    except Exception:  # noqa: BLE001 - a Py4J handle whose JVM is gone: no condition known
        return None, {}
    if not (isinstance(found, str) and found):
        return None, {}
    return found, {str(key): str(value) for key, value in pairs.items()}


SHOWN_CONDITION = re.compile(r"(?:^|: )\[(_?[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\] ")
"""The condition a Spark error message begins with (``[TABLE_OR_VIEW_NOT_FOUND] The table ...``), or the message of
the JVM exception a Py4J error quotes (``...: org.apache.spark.SparkClassNotFoundException: [DATA_SOURCE_NOT_FOUND]
...``)."""


class StorageError(DDLLogError):
    """A durable file could not be read or written."""


class CorruptLogError(StorageError):
    """A record file holds damaged data that is not a torn tail (never skipped silently)."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        super().__init__(f"{path}: corrupt record at offset {offset}: {reason}")
        self.path = path
        self.offset = offset
        self.reason = reason


class LogWriteFailedError(StorageError):
    """A write, fsync or truncate of a record file failed; the file then refuses every write until it is reopened.

    After a failed fsync the kernel may have dropped the unwritten pages, so writing on could build on records that
    are not on disk (PostgreSQL's fsync lesson of 2018). ``fate_unknown`` is True when the failed records could not
    be durably cut off again: they may or may not be there after a restart, so the caller must not act as if they
    failed; the next open (recovery) decides from what the file holds.
    """

    def __init__(self, path: str, reason: str, *, fate_unknown: bool = False) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.fate_unknown = fate_unknown


class UnsupportedFormatError(StorageError):
    """A record file was written by an unknown (newer) format version or is not ours at all."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path


class UnsafePathError(StorageError):
    """A log file or its home is a symlink, or owned by another user."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path


class HomeLockedError(StorageError):
    """Another process holds the DDL log home."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: the DDL log home is in use by another process")
        self.path = path


class CatalogError(DDLLogError):
    """A catalog operation failed; carries the object name involved and, when given, Spark's condition for it."""

    def __init__(self, message: str, name: str | None = None, *, condition: str | None = None) -> None:
        super().__init__(message)
        self.name = name
        self._condition = condition


class NoSuchObjectError(CatalogError):
    """The named table, view, function, database, column or partition does not exist; made by the constructor of
    its kind, which gives Spark's condition."""

    @classmethod
    def relation(cls, message: str, name: object) -> NoSuchObjectError:
        return cls(message, str(name), condition="TABLE_OR_VIEW_NOT_FOUND")

    @classmethod
    def database(cls, message: str, db: str | None) -> NoSuchObjectError:
        return cls(message, db, condition="SCHEMA_NOT_FOUND")

    @classmethod
    def function(cls, message: str, name: object, *, condition: str | None = None) -> NoSuchObjectError:
        """``condition``: where the Spark line names it otherwise (its profile's
        :attr:`~storage.catalogs.spark.profiles.facts.VersionFacts.missing_function_condition`)."""
        return cls(message, str(name), condition=condition or "UNRESOLVED_ROUTINE")

    @classmethod
    def column(cls, message: str, column: str) -> NoSuchObjectError:
        return cls(message, column, condition="UNRESOLVED_COLUMN.WITH_SUGGESTION")

    @classmethod
    def partition(cls, message: str, name: object) -> NoSuchObjectError:
        return cls(message, str(name), condition="PARTITIONS_NOT_FOUND")


class ObjectExistsError(CatalogError):
    """The named object already exists; made by the constructor of its kind, which gives Spark's condition."""

    @classmethod
    def relation(cls, message: str, name: object) -> ObjectExistsError:
        return cls(message, str(name), condition="TABLE_OR_VIEW_ALREADY_EXISTS")

    @classmethod
    def database(cls, message: str, db: str) -> ObjectExistsError:
        return cls(message, db, condition="SCHEMA_ALREADY_EXISTS")

    @classmethod
    def function(cls, message: str, name: object) -> ObjectExistsError:
        return cls(message, str(name), condition="ROUTINE_ALREADY_EXISTS")

    @classmethod
    def table_not_view(cls, message: str, name: object) -> ObjectExistsError:
        """CREATE VIEW of a name a table holds."""
        return cls(message, str(name), condition="EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE")

    @classmethod
    def column(cls, message: str, column: str) -> ObjectExistsError:
        return cls(message, column, condition="COLUMN_ALREADY_EXISTS")

    @classmethod
    def partition(cls, message: str, name: object) -> ObjectExistsError:
        return cls(message, str(name), condition="PARTITIONS_ALREADY_EXIST")


class WrongObjectKindError(CatalogError):
    """The name holds an object of another kind than the statement works on: a view where a table is expected
    (``TRUNCATE TABLE v``, ``INSERT OVERWRITE v``, ``ALTER TABLE v``, ``DROP TABLE v``) or a table where a view is
    (``ALTER VIEW t``, ``CREATE OR REPLACE VIEW t``, ``DROP VIEW t``). Spark refuses these with the condition in
    ``condition`` (``EXPECT_TABLE_NOT_VIEW``, ``EXPECT_VIEW_NOT_TABLE``, ``WRONG_COMMAND_FOR_OBJECT_TYPE``); nothing
    was done."""

    def __init__(self, name: str, *, found: str, expected: str, condition: str, hint: str = "") -> None:
        super().__init__(f"{name} is a {found}, not a {expected}{'; ' + hint if hint else ''}", name,
                         condition=condition)
        self.found = found
        self.expected = expected

    @classmethod
    def view_not_table(cls, name: object, hint: str = "", *,
                       condition: str = "EXPECT_TABLE_NOT_VIEW") -> WrongObjectKindError:
        return cls(str(name), found="view", expected="table", condition=condition, hint=hint)

    @classmethod
    def table_not_view(cls, name: object, hint: str = "", *,
                       condition: str = "EXPECT_VIEW_NOT_TABLE") -> WrongObjectKindError:
        return cls(str(name), found="table", expected="view", condition=condition, hint=hint)


class InvalidNameError(CatalogError):
    """The name is not a valid identifier, or uses the reserved prefix."""

    @classmethod
    def not_a_name(cls, message: str, name: str) -> InvalidNameError:
        """A table, view or database name Spark's catalog does not store (letters, digits and ``_`` only)."""
        return cls(message, name, condition="INVALID_SCHEMA_OR_RELATION_NAME")


class InvalidDefinitionError(CatalogError):
    """A table definition the engine rejects: a bad column type, provider, partitioning, property or SELECT text.

    ``cause`` holds the engine's original exception when there is one (kept for debugging, never shown by default).
    """

    def __init__(self, message: str, name: str | None = None, cause: BaseException | None = None, *,
                 condition: str | None = None) -> None:
        super().__init__(message, name, condition=condition)
        self.cause = cause

    @classmethod
    def reserved_property(cls, message: str, name: str) -> InvalidDefinitionError:
        """SET / UNSET TBLPROPERTIES of a key Spark's parser reserves (``provider``, ``location`` ...)."""
        return cls(message, name, condition="UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY")

    @classmethod
    def preserved_property(cls, message: str, name: str) -> InvalidDefinitionError:
        """SET / UNSET TBLPROPERTIES of the key ``EXTERNAL``, which Spark's Hive catalog keeps for itself."""
        return cls(message, name, condition="_LEGACY_ERROR_TEMP_3087")

    @classmethod
    def spark_sql_property(cls, message: str, name: str) -> InvalidDefinitionError:
        """SET TBLPROPERTIES of a ``spark.sql.`` key, which Spark's Hive catalog refuses to persist."""
        return cls(message, name, condition="_LEGACY_ERROR_TEMP_3086")


class OperationNotAllowedError(CatalogError):
    """Spark itself refuses this operation on this object (``TRUNCATE TABLE`` of an external table, ...): refused as
    Spark refuses it, nothing done."""


class NotAtomicError(CatalogError):
    """The statement cannot be made atomic for this object, so it was not run (nothing done): an INSERT OVERWRITE of
    an external table would rewrite the files at the table's own location, which no swap can make atomic. The SQL
    front end hands such a statement to Spark instead when ``allow_non_atomic`` is set."""


class InvalidTablePropertyError(InvalidDefinitionError):
    """A table property of the DDL log's own (``spark_ddl_log.retention_seconds``) set to a value it cannot use:
    refused before anything is logged, as Spark refuses a configuration value it cannot use (``condition``
    ``INVALID_CONF_VALUE``, SQLSTATE 22022); ``property`` and ``value`` name what was given."""

    CONDITION = "INVALID_CONF_VALUE"

    def __init__(self, name: str, prop: str, value: str, reason: str) -> None:
        super().__init__(f"[INVALID_CONF_VALUE] The value {value!r} in the config \"{prop}\" of table {name} is "
                         f"invalid: {reason}", name)
        self.property = prop
        self.value = value


class EngineOperationError(CatalogError):
    """The engine accepted a statement but it failed while running (e.g. the SELECT of a CTAS raised, an I/O error).

    ``cause`` holds the engine's original exception.
    """

    def __init__(self, message: str, name: str | None = None, cause: BaseException | None = None) -> None:
        super().__init__(message, name)
        self.cause = cause


class ValueConversionError(EngineOperationError):
    """A stored value does not convert to the type a statement asks for (``ALTER TABLE ... ALTER COLUMN ... TYPE``):
    Spark's ``CAST_INVALID_INPUT`` (``condition``), raised whatever ``spark.sql.ansi.enabled`` says; nothing
    changed."""

    CONDITION = "CAST_INVALID_INPUT"


class LeftoverFilesError(CatalogError):
    """The default location of a table name holds files although no table of that name exists.

    Spark refuses to create or rename a managed table onto such a location; ``location`` is the directory (a URI).
    """

    def __init__(self, message: str, name: str | None = None, location: str | None = None) -> None:
        super().__init__(message, name)
        self.location = location


class ConcurrentChangeError(CatalogError):
    """The table (or view) the statement read at its start was dropped or replaced by a writer outside the log's locks
    (plain Spark, another cluster, on the same metastore) while the statement built its new version: nothing of the
    statement was installed, the other writer's relation is left as it is. Run the statement again."""

    def __init__(self, name: str, read: str | None, found: str | None) -> None:
        now = "is gone" if found is None else "was written meanwhile" if read is not None and found.startswith(
            f"{read} with other files") else "is another relation now"
        super().__init__(f"{name} changed outside the DDL log while the statement ran: it {now} (read as {read}, "
                         f"found {found}); nothing was installed, run the statement again", name)
        self.read = read
        self.found = found


class InvalidHomeError(StorageError):
    """A home location that cannot be used: a database URL without a home id, two different home ids, a bad id."""

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(f"{location}: {reason}")
        self.location = location


class UnsyncableHomeError(InvalidHomeError):
    """A home placed where its log and binlog cannot be fsynced (an object store, a URL of another file system than
    ``file:``): the caller must move it to a local disk, or to PostgreSQL."""

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(location, f"cannot hold a DDL log home: {reason}. A home's log and binlog are fsynced at "
                                   "every statement: keep the home in a directory on a local disk, or in PostgreSQL "
                                   "(postgresql://HOST/DB?home=ID, the home of a cluster's drivers); tables may live "
                                   "on HDFS or an object store, a home may not")
        self.reason = reason


class NoLocalDirectoryError(StorageError):
    """Something needs the home's directory (the embedded Spark session and metastore) but the home is a database."""

    def __init__(self, location: str, needed_for: str) -> None:
        super().__init__(f"{location}: the home is a database and has no directory for {needed_for}; pass spark= "
                         "(a session that uses the shared metastore) or catalog=")
        self.location = location


class HomeLockLostError(StorageError):
    """The connection holding a database home's lock is gone: another driver may hold the home now."""

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(f"{location}: the home's lock was lost ({reason}); open the home again")
        self.location = location


class HomeFencedError(StorageError):
    """This process's claim on its database home ended (its lease ran out, or another driver took the home over and
    bumped its epoch): it must stop and touch nothing, since the taker is recovering its statements."""

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(f"{location}: fenced off ({reason}); this driver must stop, open the home again to go on")
        self.location = location
        self.reason = reason


class MetadataLockTimeoutError(StorageError):
    """A statement waited its limit for a metadata lock another driver (or thread) holds; it has written nothing.

    ``object_name`` is ``db.name``, ``function db.name`` or ``database db``; ``holder`` the holding sessions'
    application names (``ddl-log:<home id>``)."""

    def __init__(self, object_name: str, holder: str, waited_seconds: float) -> None:
        super().__init__(f"timed out after {waited_seconds:.1f} s waiting for the metadata lock on {object_name} "
                         f"held by {holder}")
        self.object_name = object_name
        self.holder = holder
        self.waited_seconds = waited_seconds


class UnrenderedSchemaError(ValueError):  # internal signal, not a DDLLogError: never leaves storage/catalogs/spark
    """A schema :func:`describe_columns` does not render; internal: the caller falls back to DESCRIBE."""
