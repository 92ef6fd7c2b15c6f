"""The late write of an orphaned task: ``python -m tests.cluster.late_writer MARKERS WAREHOUSE``.

A task of the data job starts it on its first row (:func:`tests.cluster.tasks.hold_function` with ``late_writes``),
in a session of its own, so that it outlives the task, its executor JVM and the driver, as a task of an executor
that lost its driver does for up to the orphan window. It notes the statement's work-table directories that exist
at that instant (``ddllog_*`` under the warehouse: the job is writing into them), then waits for ``MARKERS/release``
and writes there what a task attempt writes and commits: a parquet file under ``_temporary/0/_temporary/attempt_*``
and one at the directory's top, each holding rows ``v = 'late'``. It notes what it wrote and when in
``MARKERS/late-written`` (JSON) and exits; after ``LIMIT`` seconds without a release it exits without writing.

The standalone master ends a lost driver's executors within a second of the driver's death, and an executor ends
its tasks when it exits: on one machine Spark's own writer cannot be kept alive past the recovery, so this process
stands in for it, with the files that writer would leave.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

LIMIT = 300.0
WRITTEN = "late-written"
PID_FILE = "late-writer.pid"


def write_late_files(directory: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = pa.table({"id": pa.array([-1, -2, -3], pa.int64()), "v": pa.array(["late"] * 3)})
    attempt = directory / "_temporary" / "0" / "_temporary" / "attempt_202611250000_0001_m_000099_0"
    attempt.mkdir(parents=True, exist_ok=True)
    written = [attempt / "part-00099-late.c000.snappy.parquet", directory / "part-00099-late.c000.snappy.parquet"]
    for path in written:
        pq.write_table(rows, path)
    return [str(path) for path in written]


def main(markers: Path, warehouse: Path) -> int:
    (markers / PID_FILE).write_text(str(os.getpid()))
    targets = sorted(path for path in warehouse.glob("ddllog_*") if path.is_dir())
    deadline = time.monotonic() + LIMIT
    while not (markers / "release").exists():
        if time.monotonic() > deadline:
            return 1
        time.sleep(0.05)
    written = [path for target in targets for path in write_late_files(target)]
    partial = markers / f"{WRITTEN}.partial"
    partial.write_text(json.dumps({"at": time.time(), "targets": [str(t) for t in targets], "files": written}))
    partial.replace(markers / WRITTEN)
    return 0


def end(markers: Path) -> None:
    """Make sure the late writer of ``markers`` is gone (it exits once it wrote; a test that failed earlier, or a
    driver that never reached the release, leaves it waiting): released, then killed if still there."""
    from ddl_log.ops.processes import runs_marked

    pid_file = markers / PID_FILE
    if not pid_file.exists():
        return
    (markers / "release").touch()
    pid = int(pid_file.read_text() or 0)
    deadline = time.monotonic() + 10
    while pid and time.monotonic() < deadline and runs_marked(pid, "tests.cluster.late_writer", str(markers)):
        time.sleep(0.1)
    if pid and runs_marked(pid, "tests.cluster.late_writer", str(markers)):  # its pid may be another's by now
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), Path(sys.argv[2])))
