"""An executor JVM SIGKILLed in the middle of a statement's data job (in a proof driver on the standalone cluster).

The data job reads ``range(0, ROWS, 1, TASKS)`` through ``hold(id)``: each task attempt holds on its first row
(:mod:`tests.cluster.tasks`), so tasks are running when a watcher thread kills the executor of one of them. Without
speculation it kills the executor of the first task that starts; with ``spark.speculation=true`` partition 0's
first attempt holds until a speculative copy of it begins (at most :data:`COPY_WAIT`), and the watcher kills the
executor of the original attempt once the copy runs (or, if no copy comes, the original's executor anyway). Spark
retries what the dead executor ran; the standalone master gives the application a new executor in its place.

Then: the statement completed with every row exactly once (count = distinct ids = ``ROWS``, the sum of the ids, every
row of the new version) and one binlog event, or it failed and the old table is there whole; no work table; once the
orphan window is over (5 s here; a completed statement has none) no directory but the tables' own, and in the
table's directory only data files.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL, StatementFailedError
from storage.catalogs.names import RESERVED_PREFIX
from tests.cluster.tasks import Marker, markers_in, register_hold, wait_for_marker
from tests.conftest import warehouse_of
from tests.spark.sweep_support import table_dirs, user_tables, warehouse_dirs

ROWS = 4000
TASKS = 8
OLD_ROWS = 1000
ORPHAN_SECONDS = 5.0
COPY_WAIT = 60.0
"""With speculation: how long partition 0's first attempt holds for a copy of it to begin (and the watcher waits
for it before it kills the original's executor): the copy needs half the tasks done and a free core."""
KILL_MARGIN = 15.0
"""Without a copy, the watcher kills the original this long before its hold would end."""
QUERY = f"SELECT hold(id) AS id, 'new' AS v FROM range(0, {ROWS}, 1, {TASKS})"
STATEMENTS = {
    "ctas": ("c", f"CREATE TABLE c USING parquet AS {QUERY}"),
    "replace": ("t", f"CREATE OR REPLACE TABLE t USING parquet AS {QUERY}"),
    "overwrite": ("t", f"INSERT OVERWRITE TABLE t {QUERY}"),
}


def speculating(spark: Any) -> bool:
    return str(spark.conf.get("spark.speculation", "false")).lower() == "true"


def kill_executor_during(spark: Any, home: Path, statement: str) -> dict[str, Any]:
    """Run ``statement`` (a key of :data:`STATEMENTS`) with an executor killed mid-job; check; say what happened."""
    table, text = STATEMENTS[statement]
    speculation = speculating(spark)
    markers = home / "markers"
    register_hold(spark, markers, default=1.0, until_copy=COPY_WAIT if speculation else 0.0)
    if statement != "ctas":
        spark.sql(f"CREATE TABLE t USING parquet AS SELECT id, 'old' AS v FROM range({OLD_ROWS})")
    killed: list[Marker] = []
    watcher = threading.Thread(target=kill_one, args=(markers, speculation, killed), daemon=True)
    ddl = AtomicDDL(spark=spark, home=home / "home", grace_seconds=0, orphan_seconds=ORPHAN_SECONDS)
    began = time.monotonic()
    watcher.start()
    path = None
    try:
        (done,) = ddl.sql(text)
        path = getattr(done.result, "path", None)
        outcome = "completed"
    except StatementFailedError as error:
        outcome = f"failed: {str(error.cause).splitlines()[0][:300]}"
    seconds = round(time.monotonic() - began, 1)
    watcher.join(timeout=60)
    assert killed, "no executor was killed"
    events = [event for event in ddl.binlog_events() if table in event.statement]
    rows = spark.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS d, sum(id) AS s, min(v) AS lo, max(v) AS hi "
                     f"FROM {table}").collect()[0] if spark.catalog.tableExists(table) else None
    if outcome == "completed":
        assert rows is not None and (rows.n, rows.d, rows.s, rows.lo, rows.hi) == (
            ROWS, ROWS, ROWS * (ROWS - 1) // 2, "new", "new"), rows
        assert len(events) == 1, events
    else:
        assert events == [], events
        if statement == "ctas":
            assert rows is None, rows
        else:
            assert rows is not None and (rows.n, rows.lo, rows.hi) == (OLD_ROWS, "old", "old"), rows
    if outcome != "completed":  # undone: its work table's sweep is due once the orphan window is over
        time.sleep(ORPHAN_SECONDS)
    ddl.run_due_deletions()
    warehouse = warehouse_of(spark)
    tables = user_tables(spark)
    assert not [name for name in tables if name.startswith(RESERVED_PREFIX)], tables
    assert warehouse_dirs(warehouse) == table_dirs(spark, tables), (warehouse_dirs(warehouse), tables)
    stray = stray_files(warehouse)
    assert stray == [], stray
    assert ddl.pending_deletions() == [] and ddl.active_chains() == []
    attempts = markers_in(markers)
    ddl.close()
    return {"outcome": outcome, "path": path, "seconds": seconds, "killed_executor": killed[0].executor_pid,
            "killed_partition": killed[0].partition, "speculation": speculation,
            "later_attempts": sum(1 for marker in attempts if marker.attempt > 0),
            "task_attempts": len(attempts)}


def kill_one(markers: Path, speculation: bool, killed: list[Marker]) -> None:
    """Kill the executor of the first task that holds (with speculation: of partition 0's original attempt, once a
    copy of it runs elsewhere, or after a while without one)."""
    first = wait_for_marker(markers, (lambda m: m.partition == 0 and m.attempt == 0) if speculation else
                            (lambda m: True))
    if speculation:
        # kill while the original still holds: its hold ends COPY_WAIT after it began (before the watcher saw its
        # marker), and a kill after that finds the task done, so nothing is retried (CI saw 0 later attempts)
        deadline = time.monotonic() + COPY_WAIT - KILL_MARGIN
        while time.monotonic() < deadline and not any(m.partition == 0 and m.attempt > 0
                                                      and m.executor_pid != first.executor_pid
                                                      for m in markers_in(markers)):
            time.sleep(0.05)
    os.kill(first.executor_pid, signal.SIGKILL)
    killed.append(first)


def stray_files(warehouse: Path) -> list[str]:
    """Anything under the warehouse that is not a table's data file (part-*, Spark's _SUCCESS, checksums), e.g. a
    task attempt's ``_temporary`` directory."""
    stray = []
    for path in warehouse.rglob("*"):
        if path.is_dir():
            if path.name.startswith(("_", ".")):
                stray.append(str(path.relative_to(warehouse)))
            continue
        if not path.name.startswith(("part-", "_SUCCESS", ".part-", "._SUCCESS")):
            stray.append(str(path.relative_to(warehouse)))
    return sorted(stray)
