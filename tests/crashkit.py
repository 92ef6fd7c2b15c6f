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


def sweep_to_before_or_after(points: list[tuple[str, int]], world_at: Callable[[int], Any], statement: Statement,
                             before: Any, after: Any, state_of: Callable[[Any], Any],
                             check_events: Callable[[str, list[Any]], None]) -> list[tuple[str, str]]:
    """Crash ``statement`` at each of ``points`` in a fresh world (``world_at(index)``: ``open()`` gives its
    AtomicDDL), recover, and require what every atomic statement keeps: no active or abandoned chain, the catalog
    (``state_of(world)``) exactly ``before`` or ``after``, a second recovery with nothing to do and nothing changed,
    and the commit point splitting the sweep (every crash before it undone, every one after it finished).
    ``check_events(outcome, binlog events)`` checks the binlog of each outcome. Returns (point, outcome) in order."""
    outcomes: list[tuple[str, str]] = []
    for index, (point, nth) in enumerate(points):
        world = world_at(index)
        assert crash_at(world.open, statement, point, nth), (point, nth)
        ddl = world.open()
        assert ddl.active_chains() == [] and ddl.abandoned_chains() == [], (point, nth)
        events = ddl.binlog_events()
        ddl.close()
        state = state_of(world)
        assert state in (before, after), (point, nth)
        outcome = "after" if state == after else "before"
        check_events(outcome, events)
        ddl = world.open()  # a second recovery changes nothing
        assert ddl.last_recovery.nothing_to_do, (point, nth)
        ddl.close()
        assert state_of(world) == state, (point, nth)
        outcomes.append((point, outcome))
    kinds = [outcome for _, outcome in outcomes]
    assert kinds == sorted(kinds, key=lambda o: o == "after"), "the commit point must split the sweep"
    return outcomes
