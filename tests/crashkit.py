"""Crash-test harness: enumerate every crash point a statement passes, crash there, recover, let tests assert.

In-process crashes raise SimulatedCrash (a BaseException); the harness then abandons the AtomicDDL object (closes
its file handles without writing, like the kernel after a kill) and opens the home again, which runs recovery.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ddl_log import AtomicDDL
from storage import crashpoints
from storage.crashpoints import SimulatedCrash

Opener = Callable[[], AtomicDDL]
Statement = Callable[[AtomicDDL], Any]


def trace(open_ddl: Opener, statement: Statement) -> list[tuple[str, int]]:
    """Run the statement once without crashing; return every (point, nth) instant it passed."""
    ddl = open_ddl()
    try:
        with crashpoints.recording() as passed:
            statement(ddl)
    finally:
        ddl.close()
    return crashpoints.occurrences(passed)


def crash_at(open_ddl: Opener, statement: Statement, point: str, nth: int) -> bool:
    """Run the statement with ``point`` armed for its ``nth`` hit; True if it crashed there."""
    ddl = open_ddl()
    crashed = False
    try:
        crashpoints.arm(point, nth)
        statement(ddl)
    except SimulatedCrash:
        crashed = True
    finally:
        crashpoints.disarm_all()
        ddl.abandon()
    return crashed


def recover_with_crash(open_ddl: Opener, point: str, nth: int) -> bool:
    """Open the home (recovery) with a crash armed inside recovery; True if recovery crashed there."""
    crashed = False
    crashpoints.arm(point, nth)
    try:
        ddl = open_ddl()
    except SimulatedCrash:
        crashed = True
    else:
        ddl.close()
    finally:
        crashpoints.disarm_all()
    return crashed


def trace_recovery(open_ddl: Opener) -> list[tuple[str, int]]:
    with crashpoints.recording() as passed:
        ddl = open_ddl()
    ddl.close()
    return crashpoints.occurrences(passed)
