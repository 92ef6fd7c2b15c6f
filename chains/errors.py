"""Errors of the log's data model."""

from __future__ import annotations

from storage.errors import DDLLogError


class LogStateError(DDLLogError):
    """An operation that the log's state does not allow (unknown chain, writing to a closed chain, ...)."""


class BinlogError(DDLLogError):
    """The binlog could not be written or read."""


class PayloadError(LogStateError):
    """An action's payload is missing a field or has the wrong type: the log holds an entry this build cannot
    replay as written (never read with a default in its place)."""
