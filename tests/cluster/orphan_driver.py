"""The driver killed during its data job, with a task that writes after the recovery ran (issue 30).

:func:`start_statement` (the proof driver's ``orphan`` scenario, on the standalone cluster): makes ``t``
(:data:`OLD_ROWS` rows ``'old'``), then runs ``CREATE OR REPLACE TABLE t ... AS SELECT hold(id) ...`` whose tasks
hold until released, the first of them starting the late writer (:mod:`tests.cluster.late_writer`); the test
SIGKILLs the driver with its JVM while the tasks hold.

``python -m tests.cluster.orphan_driver SPARK_HOME WORKDIR``: a new process on the dead driver's metastore
(``SPARK_HOME``) and DDL log home (``WORKDIR/home``), in local mode, opens the home (recovery undoes the statement
and logs the sweep of its work table, due when the orphan window recorded by the dead driver is over) and prints
what it found as one JSON line; then it waits for ``WORKDIR/go`` (the test lets the late writer write meanwhile),
waits until the sweep is due, runs the due work, checks the end state and prints it as a second JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from storage.catalogs.names import RESERVED_PREFIX
from storage.catalogs.spark.session import embedded_session
from tests.attached.support import extension_settings
from tests.cluster.executor_kill import stray_files
from tests.cluster.tasks import register_hold
from tests.conftest import warehouse_of
from tests.spark.sweep_support import table_dirs, user_tables, warehouse_dirs

OLD_ROWS = 1000
ROWS = 4000
TASKS = 4
ORPHAN_SECONDS = 10.0
"""The orphan window the killed driver records (``orphan_seconds``): long enough for recovery to run and the late
write to land before the sweep is due."""
STATEMENT = (f"CREATE OR REPLACE TABLE t USING parquet AS SELECT hold(id) AS id, 'new' AS v "
             f"FROM range(0, {ROWS}, 1, {TASKS})")
GO = "go"


def start_statement(spark: Any, workdir: Path) -> None:
    """Run the statement that is to be killed (in a driver on the cluster); say so on stdout first."""
    spark.sql(f"CREATE TABLE t USING parquet AS SELECT id, 'old' AS v FROM range({OLD_ROWS})")
    register_hold(spark, workdir / "markers", until_release=240.0, late_writes=warehouse_of(spark))
    ddl = AtomicDDL(spark=spark, home=workdir / "home", grace_seconds=0, orphan_seconds=ORPHAN_SECONDS)
    print(json.dumps({"orphan": str(workdir)}), flush=True)
    ddl.sql(STATEMENT)
    raise AssertionError("the statement finished: it was to be killed while its tasks held")


def recover(spark_home: Path, workdir: Path) -> None:
    os.environ.pop("DDL_LOG_SPARK_MASTER", None)
    spark = embedded_session(spark_home, extra=extension_settings())  # as the dead driver's (proof_driver.py)
    warehouse = warehouse_of(spark)
    ddl = AtomicDDL(spark=spark, home=workdir / "home", grace_seconds=0)
    sweeps = [pending for pending in ddl.pending_deletions() if pending.sweep]
    print(json.dumps({"undone": len(ddl.last_recovery.of("undone")), "recovered_at": time.time(),
                      "sweeps": [{"location": p.location, "due": p.due} for p in sweeps],
                      "dirs": sorted(warehouse_dirs(warehouse)), "tables": sorted(user_tables(spark))}), flush=True)
    while not (workdir / GO).exists():
        time.sleep(0.1)
    due = max((p.due for p in sweeps), default=time.time())
    time.sleep(max(0.0, due - time.time()) + 0.5)
    ddl.run_due_deletions()
    tables = user_tables(spark)
    late_rows = {name: spark.sql(f"SELECT count(*) AS n FROM `{name}` WHERE v = 'late'").collect()[0].n
                 for name in tables}
    row = spark.sql("SELECT count(*) AS n, count(DISTINCT id) AS d, min(v) AS lo, max(v) AS hi FROM t").collect()[0]
    found: dict[str, Any] = {
        "tables": sorted(tables), "work_tables": sorted(n for n in tables if n.startswith(RESERVED_PREFIX)),
        "dirs": sorted(warehouse_dirs(warehouse)), "table_dirs": sorted(table_dirs(spark, tables)),
        "stray": stray_files(warehouse), "late_rows": late_rows, "t": [row.n, row.d, row.lo, row.hi],
        "pending": len(ddl.pending_deletions()), "active": len(ddl.active_chains()),
        "binlog": [event.statement for event in ddl.binlog_events()]}
    ddl.close()
    second = AtomicDDL(spark=spark, home=workdir / "home", grace_seconds=0)
    found["second_recovery_nothing_to_do"] = second.last_recovery.nothing_to_do
    second.close()
    print(json.dumps(found), flush=True)
    spark.stop()


if __name__ == "__main__":
    os.environ.pop("DDL_LOG_CRASH_AT", None)
    recover(Path(sys.argv[1]), Path(sys.argv[2]))
