"""A separate process for the real-kill test of a DDL transaction: ``python -m tests.spark.txn_kill_worker HOME
[inspect] [run POINT]`` (as :mod:`tests.spark.kill_worker`, for ``START TRANSACTION`` ... ``COMMIT``).

``run POINT`` makes the old tables afresh outside the log, prints their state, arms ``DDL_LOG_CRASH_AT=POINT`` and
runs the transaction's script, which SIGKILLs the process (JVM included) at that point. ``inspect`` opens the home
(recovery) and prints what is there as JSON, then opens it again (that recovery must have nothing to do)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ddl_log import AtomicDDL
from storage import crashpoints
from tests.spark import kill_worker
from tests.spark.sweep_support import table_dirs, table_state, user_tables, warehouse_dirs

OLD = ["CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a FROM range(500)",
       "CREATE TABLE u USING parquet AS SELECT id AS z FROM range(10)"]
SCRIPT = """START TRANSACTION;
CREATE OR REPLACE TABLE t USING parquet AS SELECT id AS n, 'new' AS w FROM range(3000);
DROP TABLE u;
CREATE VIEW v AS SELECT 1 AS one;
COMMIT"""
STATEMENTS = 3


def inspect(home: Path, ddl: AtomicDDL) -> AtomicDDL:
    spark = ddl.spark
    tables = sorted(user_tables(spark))
    report = {
        "recovery": [o.outcome for o in ddl.last_recovery.outcomes],
        "active": len(ddl.active_chains()),
        "events": [e.as_dict() for e in ddl.binlog_events()],
        "t": table_state(spark, "t"),
        "u": table_state(spark, "u"),
        "tables": tables,
        "dirs": sorted(warehouse_dirs(home / "warehouse")),
        "table_dirs": sorted(table_dirs(spark, {name for name in tables if name != "v"})),
    }
    return kill_worker.printed_then_reopened(home, ddl, report)


def run(ddl: AtomicDDL, crash_at: str) -> None:
    spark = ddl.spark
    spark.sql("DROP VIEW IF EXISTS v")
    for name in ("t", "u"):
        spark.sql(f"DROP TABLE IF EXISTS {name} PURGE")
    for statement in OLD:
        spark.sql(statement)
    print(json.dumps({"old": [table_state(spark, "t"), table_state(spark, "u")]}), flush=True)
    os.environ[crashpoints.ENV_VAR] = crash_at
    crashpoints.reload_environment()
    ddl.sql(SCRIPT)
    print(json.dumps({"new": table_state(spark, "t")}), flush=True)


if __name__ == "__main__":
    raise SystemExit(kill_worker.main(Path(sys.argv[1]), sys.argv[2:], inspect_home=inspect, run_killed=run))
