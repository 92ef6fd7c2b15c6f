"""A process for the real-kill test of INSERT INTO: ``python -m tests.spark.insert_kill_worker HOME [inspect]
[run POINT]`` (the pattern of :mod:`tests.spark.kill_worker`: one process recovers and inspects the last kill, then
makes the table afresh and runs the statement killed at the next point, JVM included). The embedded default writes
in place (its session has the project's jar); ``DDL_LOG_WORKER_PLAN=aside`` makes it write aside."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ddl_log import AtomicDDL
from storage import crashpoints
from tests.spark.sweep_support import table_state, user_tables, warehouse_dirs

SETUP = ["CREATE TABLE p (v INT, k STRING) USING parquet PARTITIONED BY (k)",
         "INSERT INTO p VALUES (0, 'a')"]
INSERT = "INSERT INTO p SELECT id, CAST(id % 3 AS STRING) FROM range(30)"
"""Three partitions, one file each on two cores or more: the kill between two moves leaves files in both places."""


def opened(home: Path) -> AtomicDDL:
    """The embedded default (its session has the project's jar: INSERT INTO in place); with
    ``DDL_LOG_WORKER_PLAN=aside`` the session's commit protocol is another, and INSERT INTO writes aside."""
    ddl = AtomicDDL(home=home)
    if os.environ.get("DDL_LOG_WORKER_PLAN") == "aside":
        ddl.spark.conf.set("spark.sql.sources.commitProtocolClass",
                           "org.apache.spark.internal.io.HadoopMapReduceCommitProtocol")
    return ddl


def main(home: Path, steps: list[str]) -> int:
    ddl = opened(home)
    spark = ddl.spark
    if steps[:1] == ["inspect"]:
        report = {"recovery": [o.outcome for o in ddl.last_recovery.outcomes], "active": len(ddl.active_chains()),
                  "events": [e.statement for e in ddl.binlog_events()], "table": table_state(spark, "p"),
                  "count": spark.table("p").count(), "tables": sorted(user_tables(spark)),
                  "dirs": sorted(warehouse_dirs(home / "warehouse")),
                  "partitions": sorted(str(r[0]) for r in spark.sql("SHOW PARTITIONS p").collect())}
        ddl.close()
        again = AtomicDDL(home=home, spark=spark)
        report["second_recovery_nothing_to_do"] = again.last_recovery.nothing_to_do
        print(json.dumps(report), flush=True)
        ddl = again
        steps = steps[1:]
    if steps[:1] == ["run"] and len(steps) == 2:
        spark.sql("DROP TABLE IF EXISTS p PURGE")
        for statement in SETUP:
            spark.sql(statement)
        os.environ[crashpoints.ENV_VAR] = steps[1]
        crashpoints.reload_environment()
        ddl.sql(INSERT)
        print(json.dumps({"not killed": steps[1]}), flush=True)
    ddl.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2:]))
