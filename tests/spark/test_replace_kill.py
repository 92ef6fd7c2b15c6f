"""Real SIGKILLs: a subprocess runs CREATE OR REPLACE ... AS SELECT on the embedded default and is killed (with its
JVM) by DDL_LOG_CRASH_AT; a new process recovers. Before the binlog write the old table is back, after it the new
one, with no TMP/BACKUP table and no orphan directory either way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]


def worker(home: Path, step: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_CRASH_AT", None)
    if crash_at:
        env["DDL_LOG_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "tests.spark.kill_worker", str(home), step], env=env,
                          capture_output=True, text=True, timeout=300, start_new_session=True, cwd=ROOT)


def last_json(output: str) -> dict:
    return json.loads([line for line in output.splitlines() if line.startswith("{")][-1])


@pytest.mark.parametrize(("crash_at", "committed"), [
    ("replace.install.before", False),       # old table moved to BACKUP, new one not yet in place
    ("commit.before_binlog", False),         # XID stored, binlog event not written
    ("commit.after_binlog", True),           # committed, chain C not closed, BACKUP not dropped
    ("forward.drop_table.after_drop", True),  # BACKUP dropped, drop chain not marked
])
def test_sigkill_then_recovery_in_a_new_process(tmp_path, crash_at, committed):
    home = tmp_path / "home"
    killed = worker(home, "run", crash_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    old = last_json(killed.stdout)["old"]
    report = last_json(worker(home, "inspect").stdout)
    assert report["active"] == 0 and report["second_recovery_nothing_to_do"]
    assert report["tables"] == ["t"] and report["dirs"] == ["t"]
    statements = [e["statement"] for e in report["events"]]
    if committed:
        assert len(statements) == 1 and "CREATE OR REPLACE TABLE" in statements[0]
        assert report["table"][1] == 3000
    else:
        assert statements == []
        assert report["table"] == old
