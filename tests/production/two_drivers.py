"""One of two drivers replacing the same table at the same moment:
``python -m tests.production.two_drivers HOME URI WAREHOUSE DB NAME BARRIER [READ]``.

Opens its home on the service (its JVM started and warmed up), makes the database (and, given ``READ``, the old
table), prints ``{"ready": NAME}``, waits for the file ``BARRIER`` and runs CREATE OR REPLACE TABLE ``DB.t`` whose
rows name it; prints how that ended. Given ``READ``, it then waits for that file (the other driver is done) and
prints the final table's rows and any reserved (TMP/BACKUP) table left.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from storage.errors import DDLLogError
from tests.production.worker import reserved_tables

LOCK_WAIT = 240.0
"""Long enough for the other driver's statement on a busy 2-core machine: both should succeed, one after the other."""
ROWS = 20
WAIT_LIMIT = 300.0


def say(**line: Any) -> None:
    print(json.dumps(line), flush=True)


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + WAIT_LIMIT
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{path} never appeared")
        time.sleep(0.01)


def when_locked(ddl: AtomicDDL) -> list[float]:
    """Records when each exclusive cluster lock was granted (the statement holds its table from then on)."""
    cluster = ddl.locks.cluster
    assert cluster is not None, "a database home's driver takes cross-driver locks"
    granted: list[float] = []
    acquire = cluster.acquire

    def recorded(key: str, exclusive: bool) -> None:
        acquire(key, exclusive)
        if exclusive:
            granted.append(time.time())

    cluster.acquire = recorded  # type: ignore[method-assign]
    return granted


def main(home: str, uri: str, warehouse: str, db: str, name: str, barrier: str, read: str | None) -> int:
    ddl = AtomicDDL(home=home, metastore_uri=uri, warehouse=warehouse, grace_seconds=0.0,
                    lock_wait_seconds=LOCK_WAIT)
    spark = ddl.spark
    spark.sql(f"CREATE DATABASE IF NOT EXISTS `{db}`")
    if read is not None:
        spark.sql(f"CREATE TABLE `{db}`.t USING parquet AS SELECT id AS n, 'old' AS w FROM range(5)")
    spark.sql("SELECT 1").collect()
    locked_at = when_locked(ddl)
    say(ready=name)
    wait_for(Path(barrier))
    began = time.time()
    outcome: dict[str, Any] = {"driver": name, "began": began, "error": None, "locked_at": locked_at}
    try:
        ddl.create_or_replace_table(f"{db}.t", as_select=f"SELECT id AS n, '{name}' AS w FROM range({ROWS})")
    except DDLLogError as error:
        outcome["error"] = {"type": type(error).__name__, "message": str(error)[:2000]}
    outcome["ended"] = time.time()
    say(statement=outcome)
    if read is not None:
        wait_for(Path(read))
        rows = [(int(r["n"]), str(r["w"])) for r in spark.sql(f"SELECT n, w FROM `{db}`.t").collect()]
        say(final={"rows": sorted(rows), "reserved": reserved_tables(spark)})
    ddl.close()
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    raise SystemExit(main(*arguments[:6], arguments[6] if len(arguments) > 6 else None))
