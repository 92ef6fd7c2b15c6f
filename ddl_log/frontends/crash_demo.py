"""``make demo``: a CREATE OR REPLACE TABLE ... AS SELECT killed (SIGKILL, JVM included) in the middle of its swap,
recovered, then run to completion; every step through the real ``ddl-log`` command. Then the same through a PySpark
job's own ``spark.sql`` on a session attached to the home (:mod:`ddl_log.frontends.demo_attached`)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HOME = Path(os.environ.get("DDL_LOG_HOME", "./ddl_home")).resolve()
CRASH_POINT = "replace.exchange.between"
JVM_NOISE = ("WARNING: Using incubator modules", "Using Spark's default log4j profile", "Setting default log level",
             "To adjust logging level", "  warnings.warn(")
SPARK_WARNING = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d WARN ")
"""A Spark warning a PySpark job prints before its log level is set (the attached-session jobs)."""
NEW_TABLE = "CREATE OR REPLACE TABLE sales AS SELECT id, id * 2 AS amount FROM range(200000)"


def ddl_log(*args: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("DDL_LOG_CRASH_AT", None)
    if crash_at:
        env["DDL_LOG_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "ddl_log", "--home", str(HOME), *args], env=env, text=True,
                          capture_output=True, start_new_session=True, check=False)


def show(title: str, result: subprocess.CompletedProcess[str]) -> None:
    print(f"\n== {title}")
    lines = [line for line in (result.stdout + result.stderr).splitlines()
             if line.strip() and not line.startswith(JVM_NOISE) and not SPARK_WARNING.match(line)]
    if lines:
        print("\n".join("   " + line for line in lines))


def main() -> int:
    started = time.monotonic()
    if HOME.exists():
        shutil.rmtree(HOME)
    print(f"spark-ddl-log demo, home {HOME} (local Spark, Hive metastore on embedded Derby)")
    show("1. a table with 1000 rows",
         ddl_log("sql", "CREATE TABLE sales AS SELECT id, id AS amount FROM range(1000)",
                 "SELECT count(*) AS rows, sum(amount) AS total FROM sales"))
    killed = ddl_log("sql", NEW_TABLE, crash_at=CRASH_POINT)
    print(f"\n== 2. {NEW_TABLE}\n   killed at crash point {CRASH_POINT!r} (the new table is built; its work table "
          f"already holds the old definition, the swap's second metastore call has not run): exit status "
          f"{killed.returncode} ({'SIGKILL' if killed.returncode == -signal.SIGKILL else '?'})")
    show("3. ddl-log recover", ddl_log("recover"))
    show("4. the old table is back, untouched", ddl_log("sql", "SELECT count(*) AS rows, sum(amount) AS total "
                                                        "FROM sales", "SHOW TABLES"))
    show("5. the same statement, not killed", ddl_log("sql", NEW_TABLE,
                                                     "SELECT count(*) AS rows, sum(amount) AS total FROM sales"))
    show("6. ddl-log status: the old files stay for readers until the grace period is over", ddl_log("status"))
    show("7. ddl-log binlog", ddl_log("binlog"))
    show("8. ddl-log session-conf: the Spark settings that attach a PySpark session to this home",
         ddl_log("session-conf"))
    job = attached_job("run", crash_at=CRASH_POINT)
    show(f"9. a PySpark job with those settings, ddl_log.attach(spark), its own spark.sql(...): killed at "
         f"{CRASH_POINT!r}, exit status {job.returncode} "
         f"({'SIGKILL' if job.returncode == -signal.SIGKILL else '?'})", job)
    resumed = attached_job("resume")
    show("10. the next job attaches (recovery first) and runs as written, every statement through the log", resumed)
    print(f"\ndone in {time.monotonic() - started:.0f} s")
    return 0 if killed.returncode == job.returncode == -signal.SIGKILL and resumed.returncode == 0 else 1


def attached_job(step: str, *, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("DDL_LOG_CRASH_AT", None)
    if crash_at:
        env["DDL_LOG_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "ddl_log.frontends.demo_attached", str(HOME), step], env=env,
                          text=True, capture_output=True, start_new_session=True, check=False)


if __name__ == "__main__":
    raise SystemExit(main())
