"""A Spark driver on a metastore service running `dbt run` calls, for the readers
(:mod:`tests.dbt.test_service_readers`): ``python -m tests.dbt.service_driver WORKDIR URI WAREHOUSE RUNS``.

``WORKDIR`` holds the dbt project and its profiles (targets ``plain``, dbt-spark, and ``adapter``, spark_ddl_log
with its DDL log in a database home); the driver joins the service with a session of its own (two reader threads
read the model's table in it too, into ``WORKDIR/same-session.jsonl``), writes
``{"type": "ready"}`` to ``WORKDIR/driver.jsonl`` and waits for ``WORKDIR/go``. Then, plain dbt-spark first (the
adapter's kept first version would hold ``<schema>/<model>``, where plain dbt-spark creates the table): a first
``dbt run`` makes the model's table, the reader is pointed at it (:func:`tests.readers.harness.write_target`),
``RUNS`` more runs replace it, the reader is pointed away; each step a JSON line. Between the two, plain dbt-spark's
table is dropped as a user switching would drop it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

SCHEMA = "svc"
MODEL = "t"
ROWS = 100_000
QUERY = f"SELECT count(*) AS n, min(version) AS lo, max(version) AS hi FROM {SCHEMA}.{MODEL}"
MODES = ("plain", "adapter")


def write(out: Path, **record: Any) -> None:
    with open(out, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({**record, "at": time.time()}) + "\n")


def main(workdir: str, uri: str, warehouse: str, runs: str) -> int:
    from dbt.cli.main import dbtRunner

    from dbt.adapters.spark_ddl_log.homes import close_all
    from storage.catalogs.spark.session import service_session
    from tests.readers.harness import CurrentTarget, JsonLines, write_target
    from tests.readers.loop import ReaderThreads, Target

    root = Path(workdir)
    out, control = root / "driver.jsonl", root / "control.json"
    spark = service_session(root / "driver-spark", uri, warehouse)
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
    spark.sql("SELECT 1").collect()
    write(out, type="ready")
    while not (root / "go").exists():
        time.sleep(0.05)
    dbt = dbtRunner()
    current = CurrentTarget()
    same_session = JsonLines(root / "same-session.jsonl")
    with ReaderThreads(spark, current, count=2, who="same-session", sink=lambda r: same_session.write(r.as_json())):
        for number, mode in enumerate(MODES):
            base = 100 * number
            for version in range(base, base + int(runs) + 1):
                began = time.time()
                result = dbt.invoke(["run", "--project-dir", str(root / "project"), "--profiles-dir", str(root),
                                     "--target", mode, "--vars", json.dumps({"version": version})])
                write(out, type="run", mode=mode, version=version, success=result.success,
                      seconds=time.time() - began)
                if version == base:  # the table exists: the readers read it from now on
                    write(out, type="phase", mode=mode, edge="start")
                    target = Target(f"{SCHEMA}.{MODEL}", QUERY)
                    current.set(target)
                    write_target(control, target)
            time.sleep(0.5)  # a read of the last version
            current.set(None)
            write_target(control, None)
            time.sleep(0.5)  # the reads in flight end
            write(out, type="phase", mode=mode, edge="end")
            if mode == "plain":
                spark.sql(f"DROP TABLE {SCHEMA}.{MODEL}")
    same_session.close()
    close_all()
    write(out, type="done")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
