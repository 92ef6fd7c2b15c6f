"""A driver for the real-kill test of an attached session: ``python -m tests.attached.kill_worker HOME [inspect]
[run POINT]``. Its session is built with the extension on the home's embedded metastore (what ``ddl-log
session-conf`` prints) and attached (recovery runs first). ``inspect`` prints what is there as JSON, then attaches
again (that recovery must have nothing to do). ``run POINT`` makes the old table afresh outside the log (a session
with the extension turned off), arms ``DDL_LOG_CRASH_AT=POINT`` and issues ``spark.sql("CREATE OR REPLACE TABLE
...")``, which SIGKILLs the driver (JVM included) at that point, inside the engine's callback; a ``txn.`` point
issues it inside ``START TRANSACTION`` ... ``COMMIT``, killed in the COMMIT (on the transaction's thread)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ddl_log.frontends.extension import ENABLED, HOME, attach
from ddl_log.frontends.extension.conf import extension_settings
from storage import crashpoints
from tests.spark.sweep_support import table_dirs, table_state, user_tables, warehouse_dirs

OLD = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, concat('x', id % 3) AS b FROM range(500)"
NEW = "CREATE OR REPLACE TABLE t USING parquet AS SELECT id AS n, 'new' AS w FROM range(3000)"


def session(home: Path) -> Any:
    from storage.catalogs.spark.session import embedded_session

    return embedded_session(home, extra={**extension_settings(), HOME: str(home)})


def inspect(home: Path, spark: Any) -> None:
    ddl = attach(spark, grace_seconds=0)
    report = {
        "recovery": [o.outcome for o in ddl.last_recovery.outcomes],
        "active": len(ddl.active_chains()),
        "events": [e.as_dict() for e in ddl.binlog_events()],
        "table": table_state(spark, "t"),
        "tables": sorted(user_tables(spark)),
        "dirs": sorted(warehouse_dirs(home / "warehouse")),
    }
    report["table_dirs"] = sorted(table_dirs(spark, set(report["tables"])))
    ddl.close()
    again = attach(spark, grace_seconds=0)
    report["second_recovery_nothing_to_do"] = again.last_recovery.nothing_to_do
    again.close()
    print(json.dumps(report), flush=True)


def run(spark: Any, crash_at: str) -> None:
    outside = spark.newSession()
    outside.conf.set(ENABLED, "false")
    outside.sql("DROP TABLE IF EXISTS t PURGE")
    outside.sql(OLD)
    print(json.dumps({"old": table_state(outside, "t")}), flush=True)
    attach(spark, grace_seconds=0)
    os.environ[crashpoints.ENV_VAR] = crash_at
    crashpoints.reload_environment()
    if crash_at.startswith("txn."):  # inside the session's transaction: killed in its COMMIT
        spark.sql("START TRANSACTION")
        spark.sql(NEW)
        spark.sql("COMMIT")
    else:
        spark.sql(NEW)
    print(json.dumps({"new": table_state(spark, "t")}), flush=True)


def main(home: Path, steps: list[str]) -> int:
    spark = session(home)
    if steps[:1] == ["inspect"]:
        inspect(home, spark)
        steps = steps[1:]
    if steps[:1] == ["run"] and len(steps) == 2:
        run(spark, steps[1])
    elif steps:
        raise SystemExit(f"usage: kill_worker HOME [inspect] [run POINT], not {steps}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2:]))
