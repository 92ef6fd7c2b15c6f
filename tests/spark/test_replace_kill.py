"""Real SIGKILLs: a subprocess runs CREATE OR REPLACE ... AS SELECT on the embedded default and is killed (with its
JVM) by DDL_LOG_CRASH_AT; a new process recovers. Before the binlog write the old table is back, after it the new
one, with no TMP/BACKUP table and no orphan directory either way (the swap path; its old files are due at once).

The five kills share one home: the process that recovers and inspects one kill then makes the old table afresh and
runs the statement killed at the next point (6 processes, so 6 JVM starts, for 5 kills instead of 10)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("sigkill_replace")]
ROOT = Path(__file__).resolve().parents[2]

CRASHES = [
    ("replace.exchange.between", False),           # TMP holds the old definition, ORIG not swapped yet
    ("commit.before_binlog", False),               # swapped, XID stored, binlog event not written
    ("commit.after_binlog", True),                 # committed, chain C not closed, the holder still there
    ("forward.delete_data.before_delete", True),   # holder gone, the old files due (grace 0) and not deleted
    ("delete_data.set_aside", True),               # the old directory renamed aside for its deletion, not removed
]


def module_worker(module: str, timeout: float = 600) -> Callable[..., subprocess.CompletedProcess[str]]:
    """A runner of the worker module ``module`` for :func:`kill_each`: ``run(home, *steps, env=env)`` runs it in a
    process (and session) of its own; ``env``: its environment (tests/cluster gives one with a Spark master), else
    this process's, never with a crash point armed."""

    def run(home: Path, *steps: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        environment = {**(env or os.environ), "PYTHONPATH": str(ROOT)}
        environment.pop("DDL_LOG_CRASH_AT", None)
        return subprocess.run([sys.executable, "-m", module, str(home), *steps], env=environment,
                              capture_output=True, text=True, timeout=timeout, start_new_session=True, cwd=ROOT)

    return run


worker = module_worker("tests.spark.kill_worker")


def json_lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


@attrs.frozen
class Kill:
    """One killed run and what the next process found after recovering it."""

    killed: subprocess.CompletedProcess[str]
    old: Any
    report: dict[str, Any] | None
    new_events: list[dict[str, Any]]
    inspector_stderr: str


@pytest.fixture(scope="module")
def kills(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Kill]:
    return kill_each(tmp_path_factory.mktemp("sigkill") / "home")


def kill_each(home: Path, env: dict[str, str] | None = None, *, crashes: list[tuple[str, bool]] = CRASHES,
              run: Callable[..., subprocess.CompletedProcess[str]] = worker) -> dict[str, Kill]:
    """Kill the statement at each of ``crashes`` in turn, each recovered and inspected by the next process
    (``run(home, *steps, env=env)``: a worker process; tests/attached gives an attached driver's)."""
    found: dict[str, Kill] = {}
    killed = run(home, "run", crashes[0][0], env=env)
    events_before = 0
    for index, (crash_at, _) in enumerate(crashes):
        following = ["run", crashes[index + 1][0]] if index + 1 < len(crashes) else []
        inspector = run(home, "inspect", *following, env=env)
        lines = json_lines(inspector.stdout)
        report = next((line for line in lines if "active" in line), None)
        events = report["events"] if report else []
        old = [line["old"] for line in json_lines(killed.stdout) if "old" in line]
        found[crash_at] = Kill(killed, old[-1] if old else None, report, events[events_before:], inspector.stderr)
        events_before = len(events)
        killed = inspector
    return found


@pytest.mark.parametrize(("crash_at", "committed"), CRASHES)
def test_sigkill_then_recovery_in_a_new_process(kills, crash_at, committed):
    check_kill(kills[crash_at], committed)


def check_kill(kill: Kill, committed: bool) -> None:
    """Killed by the signal; recovered to the old table (before the commit) or the new one, nothing left over."""
    assert kill.killed.returncode == -signal.SIGKILL, kill.killed.stderr[-2000:]
    report = kill.report
    assert report is not None, kill.inspector_stderr[-2000:]
    assert report["active"] == 0 and report["second_recovery_nothing_to_do"]
    assert report["tables"] == ["t"] and report["dirs"] == report["table_dirs"]
    statements = [e["statement"] for e in kill.new_events]
    if committed:
        assert len(statements) == 1 and "CREATE OR REPLACE TABLE" in statements[0]
        assert report["table"][1] == 3000
    else:
        assert statements == []
        assert report["table"] == kill.old
