"""The ``store`` fixture: unit tests of the log, binlog and recovery run on the file store and on PostgreSQL."""

from tests.stores import store as store

__all__ = ["store"]
