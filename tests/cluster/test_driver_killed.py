"""The driver SIGKILLed during its data job, and a task of that job that writes after the recovery ran (issue 30).

The dead driver's statement (CREATE OR REPLACE AS SELECT on the standalone cluster, its tasks held on purpose) is
undone by recovery in a new process; the undo removes the work table and its directory and logs a sweep, due when
the orphan window the statement recorded is over. Only then does the late writer (:mod:`tests.cluster.late_writer`)
write a task's files into the work table's directory, re-creating it. When the sweep is due and runs: no work table,
no directory but the tables' own, no stray file, the old table with exactly its rows, no row of the late write in
any table, nothing pending, and a second recovery has nothing to do.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.cluster import late_writer
from tests.cluster.conftest import ROOT, base_env, executors_of
from tests.cluster.late_writer import PID_FILE, WRITTEN
from tests.cluster.orphan_driver import GO, OLD_ROWS, ORPHAN_SECONDS
from tests.cluster.tasks import release, wait_for_marker


def test_a_late_write_after_recovery_is_swept_and_never_appears_in_a_table(speculative_driver):
    """(The driver is the speculative one, its last scenario: one application less to start.)"""
    began = time.monotonic()
    driver = speculative_driver["process"]
    assert "orphan" in speculative_driver, (speculative_driver.get("driver"),
                                            speculative_driver["stderr"].read_text()[-3000:])
    header = speculative_driver["driver"]
    workdir = Path(speculative_driver["orphan"]["orphan"])
    markers = workdir / "markers"
    recovery: subprocess.Popen[str] | None = None
    try:
        wait_for_marker(markers, lambda marker: marker.partition == 0)
        wait_until(lambda: (markers / PID_FILE).exists(), "the late writer started")
        executors = executors_of(header["application"])
        assert executors, "the tasks run in executor JVMs of their own"
        os.killpg(driver.pid, signal.SIGKILL)  # the driver's Python and its JVM; the executors are the workers'
        driver.wait(timeout=60)
        killed_at = time.monotonic()
        wait_until(lambda: not executors_of(header["application"]), "the dead driver's executors ended", 60)
        print(f"\n[measured] executors of the dead driver gone {time.monotonic() - killed_at:.1f} s after the kill")

        recovery = subprocess.Popen([sys.executable, "-m", "tests.cluster.orphan_driver", header["spark_home"],
                                     str(workdir)],
                                    env=base_env(), cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=open(workdir / "recovery.stderr", "wb"),  # noqa: SIM115 - the child's
                                    text=True, start_new_session=True)
        recovered = json.loads(recovery.stdout.readline() or "{}")  # type: ignore[union-attr]
        assert recovered, (workdir / "recovery.stderr").read_text()[-3000:]
        assert recovered["undone"] == 1 and recovered["tables"] == ["t"], recovered
        assert not [name for name in recovered["dirs"] if name.startswith("ddllog_")], recovered
        (sweep,) = recovered["sweeps"]
        assert sweep["due"] >= recovered["recovered_at"] + ORPHAN_SECONDS - 5, sweep

        release(markers)  # the orphaned task writes now, after the recovery
        wait_until(lambda: (markers / WRITTEN).exists(), "the late write")
        late = json.loads((markers / WRITTEN).read_text())
        assert late["targets"] and late["at"] < sweep["due"], (late, sweep)
        assert all(Path(path).exists() for path in late["files"]), late
        assert str(Path(sweep["location"].removeprefix("file:"))) in late["targets"], (late, sweep)

        (workdir / GO).write_text("")
        out, _ = recovery.communicate(timeout=300)
        final: dict[str, Any] = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        assert final, (workdir / "recovery.stderr").read_text()[-3000:]
        assert final["tables"] == ["t"] and final["work_tables"] == [], final
        assert final["dirs"] == final["table_dirs"], final
        assert final["stray"] == [], final
        assert final["t"] == [OLD_ROWS, OLD_ROWS, "old", "old"], final
        assert set(final["late_rows"].values()) == {0}, final
        assert not any(Path(path).exists() for path in late["files"]), late
        assert final["pending"] == 0 and final["active"] == 0, final
        assert final["binlog"] == [] and final["second_recovery_nothing_to_do"], final
        print(f"[measured] driver kill, recovery, late write and sweep: {time.monotonic() - began:.1f} s")
    finally:
        release(markers)
        for process in (driver, recovery):  # the driver: gone already, unless a step failed
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
        late_writer.end(markers)


def wait_until(condition: Any, what: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)

