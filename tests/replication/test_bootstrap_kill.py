"""A real SIGKILL (JVM included) of a bootstrap run from the command line, once the second table's files are copied
into its work table and before it is installed: running the same command again recovers that statement, keeps what
the first run copied, finishes at one source position, and ``replica check`` then finds no difference (definitions
and Spark's row checksums), ``replica status`` the replica at the source's head."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.replication.ops_worker import SOURCE

pytestmark = [pytest.mark.xdist_group("replication"),
              pytest.mark.skipif(os.environ.get("DDL_LOG_REPLICATION_LONG") != "1",
                                 reason="make replication (DDL_LOG_REPLICATION_LONG=1): two JVM starts, about 60 s; "
                                        "make test sweeps the same crash point in process")]

ROOT = Path(__file__).resolve().parents[2]


def run_worker(replica: Path, source: Path, phase: str,
               crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_CRASH_AT", None)
    if crash_at is not None:
        env["DDL_LOG_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "tests.replication.ops_worker", str(replica), str(source), phase],
                          env=env, capture_output=True, text=True, timeout=600, cwd=ROOT, start_new_session=True)


def test_a_bootstrap_sigkilled_mid_copy_is_run_again_and_ends_consistent(tmp_path):
    replica, source = tmp_path / "replica", tmp_path / "source"
    killed = run_worker(replica, source, "first", crash_at="replica.copy.files_copied:2")
    assert killed.returncode == -9, killed.stderr[-3000:]
    done = run_worker(replica, source, "second")
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["bootstrap"]["position"] == len(SOURCE) and report["bootstrap"]["kept"] >= 1
    assert report["check_exit"] == 0 and report["check"]["differences"] == [] and report["check"]["compared"] == 5
    status = report["status"]
    assert (status["applied"], status["events_behind"], status["bootstrapping"]) == (len(SOURCE), 0, False)
    assert report["dst"] == report["src"] and report["view"] == 300
