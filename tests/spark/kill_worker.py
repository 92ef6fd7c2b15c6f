"""A separate process for real-kill tests: ``python -m tests.spark.kill_worker HOME [inspect] [run POINT]``.

``inspect`` opens the home (which recovers what the last kill interrupted) and prints what is there as JSON, then
opens it a second time (that recovery must have nothing to do). ``run POINT`` (re)creates the old table outside the
log, prints its state, arms ``DDL_LOG_CRASH_AT=POINT`` and runs the statement, which SIGKILLs the process (JVM
included) at that point. ``inspect run POINT`` does both in one process, so that one JVM start serves the recovery of
one kill and the next kill."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from storage import crashpoints
from tests.spark.sweep_support import table_dirs, table_state, user_tables, warehouse_dirs

OLD = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, concat('x', id % 3) AS b FROM range(500)"
NEW = "SELECT id AS n, 'new' AS w FROM range(3000)"
GRACE = 0.0
"""The old files are due at once: the kills reach their deletion too."""


def inspect(home: Path, ddl: AtomicDDL) -> AtomicDDL:
    """Print what recovery left; return the home opened again (by a recovery that must have had nothing to do)."""
    report = {
        "recovery": [o.outcome for o in ddl.last_recovery.outcomes],
        "active": len(ddl.active_chains()),
        "events": [e.as_dict() for e in ddl.binlog_events()],
        "table": table_state(ddl.spark, "t"),
        "tables": sorted(user_tables(ddl.spark)),
        "dirs": sorted(warehouse_dirs(home / "warehouse")),
    }
    report["table_dirs"] = sorted(table_dirs(ddl.spark, set(report["tables"])))
    return printed_then_reopened(home, ddl, report)


def printed_then_reopened(home: Path, ddl: AtomicDDL, report: dict[str, Any]) -> AtomicDDL:
    """``report`` printed with whether a second open's recovery had nothing to do; that second open returned."""
    ddl.close()
    again = AtomicDDL(home=home, grace_seconds=GRACE)
    report["second_recovery_nothing_to_do"] = again.last_recovery.nothing_to_do
    print(json.dumps(report), flush=True)
    return again


def run(ddl: AtomicDDL, crash_at: str) -> None:
    """The old table, made fresh outside the log, then CREATE OR REPLACE ... AS SELECT killed at ``crash_at``."""
    ddl.spark.sql("DROP TABLE IF EXISTS t PURGE")
    ddl.spark.sql(OLD)
    print(json.dumps({"old": table_state(ddl.spark, "t")}), flush=True)
    os.environ[crashpoints.ENV_VAR] = crash_at
    crashpoints.reload_environment()
    ddl.create_or_replace_table("t", as_select=NEW)
    print(json.dumps({"new": table_state(ddl.spark, "t")}), flush=True)


def main(home: Path, steps: list[str], *, inspect_home: Callable[[Path, AtomicDDL], AtomicDDL] = inspect,
         run_killed: Callable[[AtomicDDL, str], None] = run) -> int:
    """``[inspect] [run POINT]`` on ``home``; another worker gives its own ``inspect_home`` and ``run_killed``
    (:mod:`tests.spark.txn_kill_worker`)."""
    ddl = AtomicDDL(home=home, grace_seconds=GRACE)
    if steps[:1] == ["inspect"]:
        ddl = inspect_home(home, ddl)
        steps = steps[1:]
    if steps[:1] == ["run"] and len(steps) == 2:
        run_killed(ddl, steps[1])
    elif steps:
        raise SystemExit(f"usage: kill_worker HOME [inspect] [run POINT], not {steps}")
    ddl.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2:]))
