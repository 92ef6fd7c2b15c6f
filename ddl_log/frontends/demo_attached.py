"""The attached-session part of ``make demo``: a PySpark job as teams write it (``spark.sql``, ``saveAsTable``), its
session built with what ``ddl-log session-conf`` prints and attached to the home. ``python -m
ddl_log.frontends.demo_attached HOME run`` issues the replace (the demo kills it with ``DDL_LOG_CRASH_AT``);
``... HOME resume`` attaches a new job (recovery undoes the killed replace) and runs the job to its end."""

from __future__ import annotations

import sys
from typing import Any

REPLACE = "CREATE OR REPLACE TABLE sales AS SELECT id, id * 3 AS amount FROM range(300000)"
TOTAL = "SELECT count(*) AS rows, sum(amount) AS total FROM sales"
QUIET = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false", "spark.driver.host": "127.0.0.1",
         "spark.driver.bindAddress": "127.0.0.1"}
"""The demo's console settings (no progress bars, no UI, loopback), beside the home's."""


def session(home: str) -> Any:
    """A PySpark session built from the home's session-conf settings, as a notebook or spark-submit would."""
    from pyspark.sql import SparkSession

    from ddl_log import session_conf

    builder = SparkSession.builder.master("local[2]")
    for key, value in {**QUIET, **session_conf(home)}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def say(text: str) -> None:
    print(f"   {text}", flush=True)


def main(home: str, step: str) -> int:
    from ddl_log import attach

    spark = session(home)
    ddl = attach(spark)  # opens the home: recovery first
    if step == "run":
        say(f"the table before: {spark.sql(TOTAL).collect()[0].asDict()}")
        say(f"spark.sql({REPLACE!r}) ...")
        spark.sql(REPLACE)
        return 0
    undone = [outcome.outcome for outcome in ddl.last_recovery.outcomes]
    say(f"attached; recovery of the killed job's statement: {', '.join(undone) or 'nothing to do'}")
    say(f"the old table, untouched: {spark.sql(TOTAL).collect()[0].asDict()}")
    spark.sql(REPLACE)
    say(f"spark.sql(CREATE OR REPLACE ...) run again, to its end: {spark.sql(TOTAL).collect()[0].asDict()}")
    spark.table("sales").where("id % 3 = 0").write.mode("overwrite").saveAsTable("sales")
    say(f"df.write.mode('overwrite').saveAsTable('sales') (one atomic replace, reading the table it replaces): "
        f"{spark.sql(TOTAL).collect()[0].asDict()}")
    spark.sql("DROP TABLE sales")
    spark.sql("CREATE TABLE sales AS SELECT id, id AS amount FROM range(10)")
    say("DROP TABLE sales, then CREATE TABLE sales: both through the log (the dropped version stays restorable: "
        f"SHOW TABLES DROPPED lists {len(spark.sql('SHOW TABLES DROPPED').collect())})")
    say("binlog:")
    for event in ddl.binlog_events()[-4:]:
        say(f"  #{event.seq}  {event.statement}")
    ddl.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
