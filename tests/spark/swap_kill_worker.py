"""A separate process for the real-kill test of ALTER SCHEMA SWAP WITH: ``python -m tests.spark.swap_kill_worker HOME
[inspect] [run POINT]`` (as :mod:`tests.spark.kill_worker`).

``run POINT`` makes databases blue and green afresh outside the log (a table in both, a table only in blue, a view
in both), prints their state, arms ``DDL_LOG_CRASH_AT=POINT`` and swaps them, which SIGKILLs the process (JVM
included) at that point. ``inspect`` opens the home (recovery), prints what is there as JSON, then opens it again
(that recovery must have nothing to do)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from storage import crashpoints
from tests.spark import kill_worker
from tests.spark.sweep_support import table_state, user_tables

OLD = ["CREATE DATABASE blue", "CREATE DATABASE green",
       "CREATE TABLE blue.t USING parquet AS SELECT CAST(id AS INT) AS a FROM range(500)",
       "CREATE TABLE green.t USING parquet AS SELECT id AS n, 'green' AS w FROM range(3000)",
       "CREATE TABLE blue.u USING parquet AS SELECT id AS z FROM range(10)",
       "CREATE VIEW blue.v AS SELECT 'blue' AS side", "CREATE VIEW green.v AS SELECT 'green' AS side"]


def state(spark: Any) -> dict[str, Any]:
    """Each database's tables, the rows of each table and view."""
    found: dict[str, Any] = {}
    for db in ("blue", "green"):
        found[db] = sorted(user_tables(spark, db))
        for name in ("t", "u"):
            found[f"{db}.{name}"] = table_state(spark, f"{db}.{name}")
        found[f"{db}.v"] = [row[0] for row in spark.sql(f"SELECT side FROM {db}.v").collect()]
    return found


def inspect(home: Path, ddl: AtomicDDL) -> AtomicDDL:
    report = {"recovery": [o.outcome for o in ddl.last_recovery.outcomes], "active": len(ddl.active_chains()),
              "events": [e.as_dict() for e in ddl.binlog_events()], "state": state(ddl.spark)}
    return kill_worker.printed_then_reopened(home, ddl, report)


def run(ddl: AtomicDDL, crash_at: str) -> None:
    spark = ddl.spark
    for db in ("blue", "green"):
        spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")
    for statement in OLD:
        spark.sql(statement)
    print(json.dumps({"old": state(spark)}), flush=True)
    os.environ[crashpoints.ENV_VAR] = crash_at
    crashpoints.reload_environment()
    ddl.sql("ALTER SCHEMA blue SWAP WITH green")
    print(json.dumps({"new": state(spark)}), flush=True)


if __name__ == "__main__":
    raise SystemExit(kill_worker.main(Path(sys.argv[1]), sys.argv[2:], inspect_home=inspect, run_killed=run))
