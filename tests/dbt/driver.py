"""One ``dbt run`` in a process of its own, as a user runs it, for the kill tests: ``python -m tests.dbt.driver
PROJECT PROFILES HOME VERSION``. Before dbt starts it opens the DDL log home (recovery runs, as the adapter's own
first statement would run it) and prints what the model's table is then (``{"phase": "recovered", ...}``); then it
runs dbt (``--debug``: every statement dbt sends is logged before it runs) and prints the outcome
(``{"phase": "ran", ...}``). The session's settings are the embedded ones of ``HOME/spark``, so dbt's session cursor
joins the same session."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SCHEMA = "kills"
MODEL = "t"


def state(spark: Any, ddl: Any) -> dict[str, Any]:
    """The model's table (rows, versions), what else the schema holds, and what the log still has to do."""
    names = [row.tableName for row in spark.sql(f"SHOW TABLES IN {SCHEMA}").collect() if not row.isTemporary]
    table: dict[str, Any] | None = None
    if MODEL in names:
        spark.catalog.refreshTable(f"{SCHEMA}.{MODEL}")
        row = spark.sql(f"SELECT count(*) AS n, min(version) AS lo, max(version) AS hi FROM {SCHEMA}.{MODEL}").first()
        table = {"rows": row.n, "versions": sorted({row.lo, row.hi})}
    locations = set()
    for name in names:
        described = spark.sql(f"DESCRIBE FORMATTED {SCHEMA}.{name}").collect()
        locations |= {r.data_type.rstrip("/").rsplit("/", 1)[-1] for r in described if r.col_name == "Location"}
    directory = Path(str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:")) / f"{SCHEMA}.db"
    stray = sorted(p.name for p in directory.iterdir() if p.name not in locations) if directory.exists() else []
    return {"table": table, "relations": sorted(names), "stray": stray,
            "active_chains": len(ddl.active_chains()), "abandoned_chains": len(ddl.abandoned_chains()),
            "events": len(ddl.binlog_events())}


def main(project: str, profiles: str, home: str, version: str) -> int:
    from dbt.cli.main import dbtRunner

    from ddl_log import AtomicDDL
    from storage.catalogs.spark.session import embedded_session

    spark = embedded_session(Path(home) / "spark")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
    with AtomicDDL(spark=spark, home=Path(home) / "ddl", grace_seconds=0) as ddl:
        print(json.dumps({"phase": "recovered", **state(spark, ddl)}), flush=True)
    result = dbtRunner().invoke(["--debug", "run", "--project-dir", project, "--profiles-dir", profiles,
                                 "--vars", json.dumps({"version": int(version)})])
    from dbt.adapters.spark_ddl_log.homes import close_all

    close_all()
    with AtomicDDL(spark=spark, home=Path(home) / "ddl", grace_seconds=0) as ddl:
        print(json.dumps({"phase": "ran", "success": result.success, **state(spark, ddl)}), flush=True)
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
