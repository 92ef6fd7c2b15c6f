"""How long a replica waits for a source's files that are not where its binlog says, before it calls them gone.

The source changes its catalog and files before the event that records the change is written (the event is the
commit point): an INSERT INTO's files are moved into the table just after its event, a RENAME moves a table's
directory just before its event, a CREATE moves a dropped version aside before its own. An applier that reads an
event at once can look for files that are in flight (seen in the two-services test, and by the Spark replication
soak: a version followed through the renames the binlog had so far, while the next RENAME, not yet binlogged, had
just moved its directory). Each try looks again, reading the binlog's newest events; files that never come still
stop the replica, typed (:class:`~ddl_log.replication.errors.SourceVersionGoneError`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from ddl_log.replication.errors import SourceVersionGoneError

T = TypeVar("T")

MOVE_WAIT_SECONDS = 30.0
"""How long files that are not there yet may take to arrive (a statement's commit, or the recovery or takeover that
finishes or undoes it after a crash)."""
POLL_SECONDS = 0.2


def waiting_for_files(find: Callable[[], T], wait_seconds: float = MOVE_WAIT_SECONDS) -> T:
    """``find()`` once it no longer raises :class:`SourceVersionGoneError`, for at most ``wait_seconds``."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            return find()
        except SourceVersionGoneError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(POLL_SECONDS)
