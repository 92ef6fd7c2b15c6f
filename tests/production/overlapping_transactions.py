"""One of two drivers running overlapping transactions on the metastore service:
``python -m tests.production.overlapping_transactions HOME URI WAREHOUSE DB NAME ORDER WAIT BARRIER [READ]``.

Opens its home on the service (its JVM started and warmed up), makes the database (and, given ``READ``, tables
``t1`` and ``t2``), prints ``{"ready": NAME}``, waits for the file ``BARRIER``, then runs :data:`TURNS` transactions,
each replacing the tables of ``ORDER`` (``t1,t2`` or ``t2,t1``) with one row naming the driver and the turn; a
transaction that waits more than ``WAIT`` seconds for the other driver's lock is rolled back whole. Prints what
committed; given ``READ``, waits for that file (the other driver is done) and prints both tables' rows, the
reserved tables left and the open chains of its home.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from storage.errors import DDLLogError, MetadataLockTimeoutError
from tests.production.two_drivers import say, wait_for
from tests.production.worker import reserved_tables

TURNS = 3


def main(home: str, uri: str, warehouse: str, db: str, name: str, order: str, wait: str, barrier: str,
         read: str | None) -> int:
    ddl = AtomicDDL(home=home, metastore_uri=uri, warehouse=warehouse, grace_seconds=0.0,
                    lock_wait_seconds=float(wait))
    spark = ddl.spark
    spark.sql(f"CREATE DATABASE IF NOT EXISTS `{db}`")
    if read is not None:
        for table in ("t1", "t2"):
            spark.sql(f"CREATE TABLE `{db}`.{table} USING parquet AS SELECT 'setup' AS v")
    spark.sql("SELECT 1").collect()
    say(ready=name)
    wait_for(Path(barrier))
    pause = random.Random(name)
    outcome: dict[str, Any] = {"driver": name, "committed": [], "timed_out": 0, "errors": []}
    for turn in range(TURNS):
        time.sleep(pause.uniform(0, 1.5))  # out of step, so that some turns meet no lock of the other
        value = f"{name}-{turn}"
        try:
            with ddl.transaction():
                for table in order.split(","):
                    ddl.create_or_replace_table(f"{db}.{table}", as_select=f"SELECT '{value}' AS v")
            outcome["committed"].append(value)
        except MetadataLockTimeoutError:
            outcome["timed_out"] += 1
        except DDLLogError as error:
            outcome["errors"].append(f"{type(error).__name__}: {str(error)[:1500]}")
    say(outcome=outcome)
    if read is not None:
        wait_for(Path(read))
        rows = {table: sorted(str(r["v"]) for r in spark.sql(f"SELECT v FROM `{db}`.{table}").collect())
                for table in ("t1", "t2")}
        say(final={"rows": rows, "reserved": reserved_tables(spark), "chains": len(ddl.active_chains())})
    ddl.close()
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    raise SystemExit(main(*arguments[:8], arguments[8] if len(arguments) > 8 else None))
