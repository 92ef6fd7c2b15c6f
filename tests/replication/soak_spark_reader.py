"""The reader of the Spark replication soak: ``python -m tests.replication.soak_spark_reader --uri thrift://...
--warehouse DIR --scratch DIR --out FILE --stop-file FILE``.

A plain Spark driver on the *replica's* metastore service, outside the DDL log (a dashboard reading the disaster
recovery copy): reads the soak's tables over and over (REFRESH TABLE, then their rows grouped by tag) while the
applier applies and is killed, until the stop file exists. A bad read is a failed read of a table that is there, a
read that :func:`tests.replication.soak_spark_driver.judge` refuses (a partial or doubled version, two versions at
once, ``sk.w`` empty), or ``sk.w`` missing once it was seen. Writes ``{"reads", "bad", "by_table"}`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from tests.replication.soak_spark_driver import PARTITIONED, TABLES, WATCHED, judge
from tests.soak.workload import emit

QUERY = "SELECT w, count(*), min(k), max(k) FROM {table} GROUP BY w"
MISSING = ("TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND", "NoSuchTableException", "NoSuchDatabaseException")


def read(spark: Any, table: str) -> list[tuple[str, int, int, int]] | None:
    """The table's rows grouped by tag; None when it is not there (before or after the read)."""
    try:
        spark.sql(f"REFRESH TABLE {table}")
        return [(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in spark.sql(QUERY.format(table=table)).collect()]
    except Exception as error:
        if any(marker in str(error) for marker in MISSING) or not spark.catalog.tableExists(table):
            return None
        raise


def cause_of(error: BaseException) -> str:
    """The Java side of a Py4J error (its exception class and message, the first ``Caused by``), for the report."""
    lines = str(error).splitlines()
    wanted = [line.strip() for line in lines if "Exception" in line or line.strip().startswith("Caused by")]
    return " | ".join(wanted[:3])[:600]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.replication.soak_spark_reader")
    for option, kind in (("--uri", str), ("--warehouse", str), ("--scratch", Path), ("--out", Path),
                         ("--stop-file", Path)):
        parser.add_argument(option, required=True, type=kind)
    args = parser.parse_args(argv)

    from storage.catalogs.spark.session import service_session

    spark = service_session(args.scratch, args.uri, args.warehouse)
    spark.sql("SELECT 1").collect()
    emit("ready")
    reads, bad, seen_watched = 0, [], False
    by_table: dict[str, int] = {}
    while not args.stop_file.exists():
        for table in [WATCHED, *TABLES, PARTITIONED]:
            try:
                groups = read(spark, table)
            except Exception as error:  # noqa: BLE001 - a failed read of a table that is there is a bad read
                bad.append({"table": table, "at": time.time(), "what": str(error).splitlines()[0][:300],
                            "cause": cause_of(error)})
                continue
            if groups is None and not (table == WATCHED and seen_watched):
                continue  # not there now: not created yet, or dropped or renamed on the source too
            reads += 1
            by_table[table] = by_table.get(table, 0) + 1
            problem = "missing, once seen" if groups is None else judge(table, groups)
            seen_watched = seen_watched or table == WATCHED
            if problem is not None:
                bad.append({"table": table, "at": time.time(), "what": problem})
        time.sleep(0.3)  # a round of reads, then a pause: the applier's share of two cores
    args.out.write_text(json.dumps({"reads": reads, "bad": bad, "by_table": by_table}), encoding="utf-8")
    emit("done", reads=reads, bad=len(bad))
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
