"""spark-ddl-log: crash-safe, atomic DDL for Apache Spark tables, on a MariaDB-style DDL log.

Public API: :class:`AtomicDDL`; errors are all subclasses of :class:`DDLLogError`. Each layer keeps its errors in
one module (``storage/errors.py``, ``chains/errors.py``, ``actions/errors.py``, ``ddl_log/errors.py``); every public
one is re-exported here.
"""

from actions.errors import ActionFailedError, CommittedWithPendingWorkWarning, StatementFailedError
from chains.errors import BinlogError, LogStateError, PayloadError
from ddl_log.api import AtomicDDL
from ddl_log.errors import InvalidSchemaError, ObjectInRecoveryError, SqlParseError, UnsupportedStatementError
from ddl_log.recovery import RecoveryReport
from ddl_log.sql import SqlResult
from storage.crashpoints import SimulatedCrash
from storage.errors import (
    CatalogError,
    CorruptLogError,
    DDLLogError,
    EngineOperationError,
    HomeFencedError,
    HomeLockedError,
    HomeLockLostError,
    InvalidDefinitionError,
    InvalidHomeError,
    InvalidNameError,
    LeftoverFilesError,
    LogWriteFailedError,
    MetadataLockTimeoutError,
    NoLocalDirectoryError,
    NoSuchObjectError,
    NotAtomicError,
    ObjectExistsError,
    OperationNotAllowedError,
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
    "EngineOperationError",
    "HomeFencedError",
    "HomeLockLostError",
    "HomeLockedError",
    "InvalidDefinitionError",
    "InvalidHomeError",
    "InvalidNameError",
    "InvalidSchemaError",
    "LeftoverFilesError",
    "LogStateError",
    "LogWriteFailedError",
    "MetadataLockTimeoutError",
    "NoLocalDirectoryError",
    "NoSuchObjectError",
    "NotAtomicError",
    "ObjectExistsError",
    "ObjectInRecoveryError",
    "OperationNotAllowedError",
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
