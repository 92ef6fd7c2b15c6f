"""spark-ddl-log: crash-safe, atomic DDL for Apache Spark tables, on a MariaDB-style DDL log.

Public API: :class:`AtomicDDL`; errors are all subclasses of :class:`DDLLogError`.
"""

from chains.errors import BinlogError, LogStateError
from ddl_log.api import AtomicDDL
from ddl_log.recovery import RecoveryReport
from ddl_log.sql_frontend import SqlParseError, SqlResult, UnsupportedStatementError
from replace_table.errors import StatementFailedError
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
    "AtomicDDL",
    "BinlogError",
    "CatalogError",
    "CorruptLogError",
    "DDLLogError",
    "HomeLockedError",
    "InvalidNameError",
    "LogStateError",
    "LogWriteFailedError",
    "NoSuchObjectError",
    "ObjectExistsError",
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
