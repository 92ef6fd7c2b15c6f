"""The errors of the ``ddl_log`` layer (the statements, the SQL front end and the CLI), all rooted in
:class:`storage.errors.DDLLogError` except internal signals (the router's, the CLI's). The errors of the layers below
live in ``storage/errors.py``, ``chains/errors.py`` and ``actions/errors.py``; ``ddl_log`` re-exports them all."""

from __future__ import annotations

from actions.errors import (  # noqa: F401 - the transaction errors are the SQL front end's and the engine's too
    NotTransactionalError,
    StatementFailedError,
    TransactionAbortedError,
    TransactionConflictError,
    TransactionError,
    TransactionStateError,
    UnpublishedReadError,
)
from storage.errors import (
    DDLLogError,
    InvalidNameError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
)


class InvalidSchemaError(InvalidNameError):
    """A column list that does not parse or uses an unsupported column option."""


class ObjectInRecoveryError(DDLLogError):
    """A statement's object has an interrupted statement of a dead (or paused) driver that takeover has not recovered
    yet: the statement did nothing, so that it never works on a half-changed object; retry once takeover is done."""

    def __init__(self, object_name: str, driver: str) -> None:
        super().__init__(f"{object_name} has an interrupted statement of driver {driver} (dead or past its lease) that "
                         "takeover has not recovered yet; nothing was done, retry shortly")
        self.object_name = object_name
        self.driver = driver


class SqlParseError(DDLLogError):
    """The SQL text does not parse. ``line`` and ``column`` (1-based) point at the start of ``text``."""

    def __init__(self, reason: str, *, line: int, column: int, text: str, condition: str | None = None) -> None:
        near = f" near {text!r}" if text else ""
        super().__init__(f"syntax error at line {line}, column {column}{near}: {reason}")
        self.reason = reason
        self.line = line
        self.column = column
        self.text = text
        self.condition = condition
        """Spark's error condition when Spark's own parser refused the text (``PARSE_SYNTAX_ERROR`` ...)."""


class UnsupportedStatementError(DDLLogError):
    """A DDL statement the DDL log cannot run atomically; it was not run (Spark alone would not make it atomic).
    ``name``: the object that made it so, when one did (found when the statement was about to run)."""

    NOT_ATOMIC = ("because run directly on Spark it would not be atomic (allow_non_atomic=True or --allow-non-atomic "
                  "runs it anyway)")

    def __init__(self, what: str, *, line: int, statement: str, reason: str = "", name: str = "") -> None:
        reason = reason or f"nothing was run, {self.NOT_ATOMIC}"
        super().__init__(f"line {line}: {what} is not supported by the DDL log; {reason}")
        self.what = what
        self.line = line
        self.statement = statement
        self.name = name


class ExtensionError(DDLLogError):
    """The Spark session extension cannot serve this session or this call (``ddl_log.attach``, ``session-conf``):
    the session was built without it (a session's parser is fixed when it is built), its jar is missing, PySpark's
    pinned-thread mode is off, the session is Spark Connect's, or another home is attached in this process. The
    message says what to do; nothing was attached."""


class Unsupported(Exception):  # noqa: N818 - internal signal, turned into UnsupportedStatementError
    """The SQL router met a form the DDL log cannot run atomically (``what`` names it)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


# The CLI's own signals (not DDLLogError: ``ddl-log`` turns them into its exit codes).


class CommandFailed(Exception):  # noqa: N818 - a clean "error: ..." exit, not a bug
    """Stop the command with ``error: <message>`` and exit code 1."""


class StatementFailed(Exception):  # noqa: N818 - carries the statement's own error
    """A statement of a script failed: ``where`` says which one, ``cause`` is its error."""

    def __init__(self, where: str, cause: BaseException) -> None:
        super().__init__(f"{where}: {cause}")
        self.where = where
        self.cause = cause


class UsageError(Exception):
    """Bad arguments found after parsing: exit code 2."""


class InvalidSettingError(DDLLogError):
    """A setting with a value it cannot take (``.name`` the setting)."""

    def __init__(self, name: str, value: object, reason: str) -> None:
        super().__init__(f"setting {name}={value!r}: {reason}")
        self.name = name


class NoSuchVersionError(NoSuchObjectError):
    """RESTORE or UNDROP named a version of a table that is not kept; ``.name`` is the table, ``.reason`` why:
    ``unknown`` (no version of that number), ``dropped`` (no table had the name at that instant), ``not_created``
    (the instant is before the table's first version), ``expired`` (the version of that instant is no longer kept),
    ``none_dropped`` (UNDROP: no dropped version of the name is kept)."""

    def __init__(self, message: str, name: str | None = None, *, reason: str = "unknown") -> None:
        super().__init__(message, name)
        self.reason = reason


class VersionFilesMissingError(NoSuchVersionError):
    """RESTORE or UNDROP of a version some of whose data files (listed when the version was kept) are gone, deleted
    outside the log: refused, nothing installed (it would be a part of the version). ``.name`` the table,
    ``.version`` its number, ``.location`` its directory, ``.missing`` the files not there (relative to it);
    ``.reason`` ``files_missing``."""

    def __init__(self, name: str, version: int, location: str, missing: tuple[str, ...]) -> None:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        super().__init__(f"cannot restore version {version} of {name}: {len(missing)} of its data files are gone from "
                         f"{location} ({shown}); it is never installed in part", name, reason="files_missing")
        self.version = version
        self.location = location
        self.missing = missing


class NothingToReleaseError(NoSuchObjectError):
    """RELEASE TABLE NAME named a table name whose default directory holds nothing this home keeps; ``.name`` is the
    table name."""


class DirectoryInUseError(ObjectExistsError):
    """RELEASE TABLE NAME found the name's default directory used by a table, partition or database (its files are
    not a kept version's only); ``.name`` is the table name."""


class NameHeldByVersionError(StatementFailedError):
    """A replace that must move the new table into the name's default directory (the rename path: a change of
    partition columns, a Hive serde table) found a kept previous version of the table there (its files wait for
    their grace period and retention); the statement was rolled back. ``.name`` is the table; ``location`` the
    directory; ``release`` the statement that frees it (RELEASE TABLE NAME), after which the replace runs."""

    def __init__(self, statement: str, name: str, *, location: str, due: str) -> None:
        explanation = LeftoverFilesError(
            f"the new definition cannot be installed in place (the rename path), and it needs the default directory "
            f"{location}, where a previous version of {name} is kept until {due}; nothing was done. RELEASE TABLE "
            f"NAME {name} (ddl-log release {name}) ends that version's retention now and frees the directory; then "
            "run the statement again", name, location)
        super().__init__(statement, name, explanation)
        self.location = location


def kept_elsewhere(location: str, note: str) -> str:
    """How a refusal says that ``location`` holds a version another DDL log home keeps, quoting that home's note."""
    return (f"{location} holds a table version that another DDL log home keeps (that version untouched; it is freed "
            f"when its time is up, or now by that home's RELEASE TABLE NAME); its note says:\n{note.strip()[:1500]}")


class NameKeptByAnotherHomeError(StatementFailedError):
    """A statement that puts a table at its name's default directory found a table version there that another DDL
    log home keeps (drivers share one catalog, each with its own log; that home's note inside says whose version,
    until when, and the command that frees it); the statement was rolled back, that version untouched. ``.name`` is
    the table; ``location`` the directory; ``note`` the note's text."""

    def __init__(self, statement: str, name: str, *, location: str, note: str) -> None:
        explanation = LeftoverFilesError(f"nothing was done: the default directory of {name}, "
                                         f"{kept_elsewhere(location, note)}", name, location)
        super().__init__(statement, name, explanation)
        self.location = location
        self.note = note
