"""The ``store`` fixture: unit tests of the log, binlog and recovery run on the file store and on PostgreSQL; and
``tmp_path`` on tmpfs (:mod:`tests.ramdisk`: the crash sweeps' fsyncs cost nothing there and prove the same)."""

from tests.ramdisk import tmp_path as tmp_path
from tests.stores import store as store

__all__ = ["store", "tmp_path"]
