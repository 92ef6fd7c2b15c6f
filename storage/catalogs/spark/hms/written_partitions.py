"""The partition records of versions written with no table at their directory (the write path of a partitioned
INSERT OVERWRITE, :mod:`storage.catalogs.spark.sql.version_writes`), held from the write job to the install.

The records are made from what the job wrote (and the partitions the statement keeps, linked in), and nothing in the
metastore holds them in between: a work table would have cost its create and its drop. A process that dies in
between loses them with the statement, whose undo removes the directory."""

from __future__ import annotations

import threading
from collections.abc import Callable

import attrs

from storage.catalogs.spark.hms.hive_record import HivePartition

HELD_WRITES = 256
"""How many written versions' records are held at most (one per statement between its write job and its install):
past it the oldest are let go, left by statements that failed in between."""


@attrs.frozen
class WrittenVersion:
    """A partitioned version a write job wrote: its ``Partition`` records (those written, those kept), and where it
    keeps partitions of the table's current version, ``kept_changed``: what a writer outside the log added to or
    removed from those partitions' files since they were listed for the new version (a plain Spark INSERT INTO of a
    kept partition), in words, None where nothing was. The records are made by the Spark SQL side (which lists
    files); the install, in the metastore's layer below it, asks right before it changes the table."""

    partitions: tuple[HivePartition, ...]
    kept_changed: Callable[[], str | None] | None = None


class WrittenPartitions:
    """Per directory a write job wrote a partitioned version into: its ``Partition`` records, until its install."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, WrittenVersion] = {}

    def hold(self, directory: str, version: WrittenVersion) -> None:
        """Hold ``version`` for the install of the version at ``directory`` (:meth:`take`); a second hold of the
        directory replaces the first. Past :data:`HELD_WRITES` the oldest are let go (an install that finds none
        fails, as a whole)."""
        with self._lock:
            self._held.pop(directory, None)
            self._held[directory] = version
            while len(self._held) > HELD_WRITES:
                del self._held[next(iter(self._held))]

    def take(self, directory: str) -> WrittenVersion | None:
        """The version held for ``directory``, no longer held; None when none is (no write job wrote there in this
        process)."""
        with self._lock:
            return self._held.pop(directory, None)
