"""spark-ddl-log: crash-safe, atomic DDL for Apache Spark tables, on a MariaDB-style DDL log.

Public API: :class:`AtomicDDL`; errors are all subclasses of :class:`DDLLogError`.
"""

from actions.errors import ActionFailedError, CommittedWithPendingWorkWarning, StatementFailedError
from chains.errors import BinlogError, LogStateError, PayloadError
from ddl_log.api import AtomicDDL
from ddl_log.recovery import RecoveryReport
from ddl_log.sql import SqlParseError, SqlResult, UnsupportedStatementError
from storage.crashpoints import SimulatedCrash
from storage.errors import (
    CatalogError,
    CorruptLogError,
    DDLLogError,
    HomeLockedError,
    InvalidNameError,
    LogWriteFailedError,
    NoSuchObjectError,
    ObjectExistsError,
    StorageError,
    UnsafePathError,
    UnsupportedFormatError,
)

__all__ = [
    "ActionFailedError",
    "AtomicDDL",
    "BinlogError",
    "CatalogError",
    "CommittedWithPendingWorkWarning",
    "CorruptLogError",
    "DDLLogError",
    "HomeLockedError",
    "InvalidNameError",
    "LogStateError",
    "LogWriteFailedError",
    "NoSuchObjectError",
    "ObjectExistsError",
    "PayloadError",
    "RecoveryReport",
    "SimulatedCrash",
    "SqlParseError",
    "SqlResult",
    "StatementFailedError",
    "StorageError",
    "UnsafePathError",
    "UnsupportedFormatError",
    "UnsupportedStatementError",
]
