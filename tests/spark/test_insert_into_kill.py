"""Real SIGKILLs of INSERT INTO on the embedded default (the process and its JVM, by DDL_LOG_CRASH_AT), in ``make
replication`` (``DDL_LOG_REPLICATION_LONG=1``): killed between two file moves after its commit point, the next
process finishes the moves and the table has every new row once; killed with its files written aside before the
commit, the next process removes them and the table has exactly its old rows; on a session with the project's jar
(written in place), killed with its rows in the table before the commit, the next process deletes them by name.
No work table or directory is left,
and a second recovery has nothing to do. (The default run SIGKILLs an INSERT INTO between two moves on a metastore
service: the replica's in tests/replication/test_two_services.py; every instant is swept in-process in
test_insert_into.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("sigkill_insert")]
ROOT = Path(__file__).resolve().parents[2]


def worker(home: Path, *steps: str, plan: str = "in_place") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DDL_LOG_WORKER_PLAN": plan}
    env.pop("DDL_LOG_CRASH_AT", None)
    return subprocess.run([sys.executable, "-m", "tests.spark.insert_kill_worker", str(home), *steps], env=env,
                          capture_output=True, text=True, timeout=600, start_new_session=True, cwd=ROOT)


def report_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return lines[0]


LONG = os.environ.get("DDL_LOG_REPLICATION_LONG") == "1"


@pytest.mark.skipif(not LONG, reason="make replication (DDL_LOG_REPLICATION_LONG=1)")
def test_insert_into_killed_between_its_moves_has_every_row_once_and_before_its_commit_none(tmp_path):
    home = tmp_path / "home"
    first = worker(home, "run", "insert.move.between:1", plan="aside")
    assert first.returncode == -9, first.stderr[-3000:]
    second = worker(home, "inspect", "run", "insert.log_moves.after:1", plan="aside")
    assert second.returncode == -9, second.stderr[-3000:]
    after = report_of(second)
    assert after["count"] == 31 and after["recovery"] == ["finished"], after  # the moves finished by recovery
    assert after["events"][-1].startswith("INSERT INTO p") and len(after["events"]) == 1
    assert after["partitions"] == ["k=0", "k=1", "k=2", "k=a"]
    assert after["tables"] == ["p"] and after["dirs"] == ["p"] and after["active"] == 0
    assert after["second_recovery_nothing_to_do"]
    third = worker(home, "inspect", plan="aside")
    assert third.returncode == 0, third.stderr[-3000:]
    before = report_of(third)
    assert before["count"] == 1 and before["recovery"] == ["undone"], before  # the files written aside removed
    assert len(before["events"]) == 1  # the killed statement was never binlogged
    assert before["tables"] == ["p"] and before["dirs"] == ["p"] and before["second_recovery_nothing_to_do"]


@pytest.mark.skipif(not LONG, reason="make replication (DDL_LOG_REPLICATION_LONG=1)")
def test_insert_into_in_place_killed_with_its_rows_in_the_table_before_its_commit_has_none(tmp_path):
    """Written in place (the embedded default has the project's jar): killed after Spark's job put the rows in the
    table, before the commit point, the next process deletes the job's files by name and drops the partitions it
    added."""
    home = tmp_path / "home"
    first = worker(home, "run", "insert_in_place.commit.before:1")
    assert first.returncode == -9, first.stderr[-3000:]
    second = worker(home, "inspect")
    assert second.returncode == 0, second.stderr[-3000:]
    before = report_of(second)
    assert before["count"] == 1 and before["recovery"] == ["undone"], before
    assert before["partitions"] == ["k=a"] and not before["events"], before
    assert before["tables"] == ["p"] and before["dirs"] == ["p"] and before["second_recovery_nothing_to_do"]
