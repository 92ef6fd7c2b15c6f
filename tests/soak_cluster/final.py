"""The cluster soak's final step, a driver of its own: ``python -m tests.soak_cluster.final --url URL --uri
thrift://... --warehouse DIR --dead d1,d4 --out FILE``.

Opens its own home (``checker``), recovers every dead driver's home (``take_over_dead`` when AtomicDDL has it, as
a surviving driver or ``ddl-log recover --all`` would; today by opening each dead home, whose open recovers it),
then records what Spark and the disk show: every database's tables (TMP/BACKUP ones included), the rows of the
``default`` tables as per-label aggregates (tests.soak.checker.observe_tables) and the warehouse's directories.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from storage.catalogs.names import RESERVED_PREFIX
from tests.soak.checker import observe_tables
from tests.soak_cluster.cluster_state import ddl_options, home_url

CHECKER_HOME = "checker"


def outcomes(report: Any) -> list[dict[str, Any]]:
    """A recovery report as JSON, one dict per chain outcome."""
    return [] if report is None else [outcome.as_dict() for outcome in report.outcomes]


def takeovers(report: Any) -> list[dict[str, Any]]:
    """A takeover report as JSON: one dict per other home (its outcome, and its chains' when it was recovered)."""
    return [{"home": item.home, "outcome": item.outcome, "detail": item.detail, "chains": outcomes(item.recovery)}
            for item in report.homes]


def recover(ddl: Any) -> dict[str, Any]:
    """Take over every dead home now (the checker is a live driver like the others)."""
    began = time.time()
    found = takeovers(ddl.take_over_dead())
    chains = [{"home": item["home"], **chain} for item in found for chain in item["chains"]]
    return {"how": "take_over_dead", "homes": found, "outcomes": chains, "secs": time.time() - began}


def observe(spark: Any, warehouse: Path) -> dict[str, Any]:
    databases = sorted(str(row[0]) for row in spark.sql("SHOW DATABASES").collect())
    tables = {db: sorted(str(row["tableName"]) for row in spark.sql(f"SHOW TABLES IN `{db}`").collect()
                         if not row["isTemporary"]) for db in databases}
    reserved = [f"{db}.{name}" for db, names in tables.items() for name in names
                if name.lower().startswith(RESERVED_PREFIX)]
    default = [name for name in tables.get("default", []) if not name.lower().startswith(RESERVED_PREFIX)]
    entries = sorted(warehouse.iterdir()) if warehouse.is_dir() else []
    return {"databases": databases, "reserved": reserved, "tables": observe_tables(spark, default),
            "dirs": [e.name for e in entries if e.is_dir()],
            "files": [e.name for e in entries if not e.is_dir() and not e.name.startswith(".")]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak_cluster.final")
    parser.add_argument("--url", required=True)
    parser.add_argument("--uri", required=True)
    parser.add_argument("--warehouse", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--lease", type=float, default=3.0)
    args = parser.parse_args(argv)

    from ddl_log import AtomicDDL

    options = ddl_options(lease_seconds=args.lease, lock_wait_seconds=60.0, takeover_interval=args.lease)
    ddl = AtomicDDL(home=home_url(args.url, CHECKER_HOME), metastore_uri=args.uri, warehouse=str(args.warehouse),
                    wait_seconds=30.0, **options)
    try:
        result = {"recovery": recover(ddl),
                  "checker_open": outcomes(ddl.last_recovery), "observed": observe(ddl.spark, args.warehouse)}
    finally:
        ddl.close()
    args.out.write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
