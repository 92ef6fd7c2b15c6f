"""A separate process for real-kill tests: ``python -m tests.spark.kill_worker HOME STEP`` with STEP one of
``run`` (create the old table if needed, then run the statement; DDL_LOG_CRASH_AT may SIGKILL it, JVM included) and
``inspect`` (open the home, which recovers, and print what is there as JSON)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ddl_log import AtomicDDL
from tests.spark.sweep_support import table_state, user_tables, warehouse_dirs

OLD = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, concat('x', id % 3) AS b FROM range(500)"
NEW = "SELECT id AS n, 'new' AS w FROM range(3000)"


def main(home: Path, step: str) -> int:
    ddl = AtomicDDL(home=home)
    if step == "run":
        if not ddl.spark.catalog.tableExists("t"):
            ddl.spark.sql(OLD)
            print(json.dumps({"old": table_state(ddl.spark, "t")}), flush=True)
        ddl.create_or_replace_table("t", as_select=NEW)
        print(json.dumps({"new": table_state(ddl.spark, "t")}), flush=True)
    else:
        report = {
            "recovery": [o.outcome for o in ddl.last_recovery.outcomes],
            "active": len(ddl.active_chains()),
            "events": [e.as_dict() for e in ddl.binlog_events()],
            "table": table_state(ddl.spark, "t"),
            "tables": sorted(user_tables(ddl.spark)),
            "dirs": sorted(warehouse_dirs(home / "warehouse")),
        }
        ddl.close()
        again = AtomicDDL(home=home)
        report["second_recovery_nothing_to_do"] = again.last_recovery.nothing_to_do
        again.close()
        print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2]))
