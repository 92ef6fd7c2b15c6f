"""The partition records of versions written with no table at their directory (the write path of a partitioned
INSERT OVERWRITE, :mod:`storage.catalogs.spark.sql.version_writes`), held from the write job to the install.

The records are made from what the job wrote (and the partitions the statement keeps, linked in), and nothing in the
metastore holds them in between: a work table would have cost its create and its drop. A process that dies in
between loses them with the statement, whose undo removes the directory."""

from __future__ import annotations

import threading

from storage.catalogs.spark.hms.hive_record import HivePartition

HELD_WRITES = 256
"""How many written versions' records are held at most (one per statement between its write job and its install):
past it the oldest are let go, left by statements that failed in between."""


class WrittenPartitions:
    """Per directory a write job wrote a partitioned version into: its ``Partition`` records, until its install."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, tuple[HivePartition, ...]] = {}

    def hold(self, directory: str, partitions: list[HivePartition]) -> None:
        """Hold ``partitions`` for the install of the version at ``directory`` (:meth:`take`); a second hold of the
        directory replaces the first. Past :data:`HELD_WRITES` the oldest are let go (an install that finds none
        fails, as a whole)."""
        with self._lock:
            self._held.pop(directory, None)
            self._held[directory] = tuple(partitions)
            while len(self._held) > HELD_WRITES:
                del self._held[next(iter(self._held))]

    def take(self, directory: str) -> list[HivePartition] | None:
        """The records held for the version at ``directory``, no longer held; None when none are (no write job wrote
        there in this process)."""
        with self._lock:
            held = self._held.pop(directory, None)
        return None if held is None else list(held)
