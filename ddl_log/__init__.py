"""spark-ddl-log: crash-safe, atomic DDL for Apache Spark tables, on a MariaDB-style DDL log.

Public API: :class:`AtomicDDL`; errors are all subclasses of :class:`DDLLogError`. Each layer keeps its errors in
one module (``storage/errors.py``, ``chains/errors.py``, ``actions/errors.py``, ``ddl_log/errors.py``); every public
one is re-exported here.
"""

from actions.errors import ActionFailedError, CommittedWithPendingWorkWarning, StatementFailedError
from actions.recovery import RecoveryReport
from actions.results import StatementResult
from chains.errors import BinlogError, LogStateError, PayloadError
from ddl_log.errors import (
    DirectoryInUseError,
    InvalidSchemaError,
    InvalidSettingError,
    NoSuchVersionError,
    NothingToReleaseError,
    ObjectInRecoveryError,
    SqlParseError,
    UnsupportedStatementError,
)
from ddl_log.frontends.python import AtomicDDL
from ddl_log.frontends.sql import SqlResult
from ddl_log.ops.errors import (
    MetastoreSchemaError,
    MetastoreServiceError,
    PostgresServerError,
    PostgresUrlError,
    ServiceError,
    SparkClusterError,
)
from ddl_log.replication.errors import (
    ApplyFailedError,
    FollowsAnotherSourceError,
    ReplicationError,
    SourceDamagedError,
    SourceEventsMissingError,
    SourceMissingError,
    SourceUnavailableError,
    SourceVersionGoneError,
)
from ddl_log.settings import Settings
from replace_table.machine import ReplaceResult
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
    ValueConversionError,
    WrongObjectKindError,
)

__all__ = [
    "ActionFailedError",
    "ApplyFailedError",
    "AtomicDDL",
    "BinlogError",
    "CatalogError",
    "CommittedWithPendingWorkWarning",
    "CorruptLogError",
    "DDLLogError",
    "DirectoryInUseError",
    "EngineOperationError",
    "FollowsAnotherSourceError",
    "HomeFencedError",
    "HomeLockLostError",
    "HomeLockedError",
    "InvalidDefinitionError",
    "InvalidHomeError",
    "InvalidNameError",
    "InvalidSchemaError",
    "InvalidSettingError",
    "LeftoverFilesError",
    "LogStateError",
    "LogWriteFailedError",
    "MetadataLockTimeoutError",
    "MetastoreSchemaError",
    "MetastoreServiceError",
    "NoLocalDirectoryError",
    "NoSuchObjectError",
    "NoSuchVersionError",
    "NotAtomicError",
    "NothingToReleaseError",
    "ObjectExistsError",
    "ObjectInRecoveryError",
    "OperationNotAllowedError",
    "PayloadError",
    "PostgresServerError",
    "PostgresUrlError",
    "RecoveryReport",
    "ReplaceResult",
    "ReplicationError",
    "ServiceError",
    "Settings",
    "SimulatedCrash",
    "SourceDamagedError",
    "SourceEventsMissingError",
    "SourceMissingError",
    "SourceUnavailableError",
    "SourceVersionGoneError",
    "SparkClusterError",
    "SqlParseError",
    "SqlResult",
    "StatementFailedError",
    "StatementResult",
    "StorageError",
    "UnsafePathError",
    "UnsupportedFormatError",
    "UnsupportedStatementError",
    "ValueConversionError",
    "WrongObjectKindError",
]
