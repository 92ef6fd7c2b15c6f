"""A replica driver in its own process (its own JVM, embedded metastore under its home): ``python -m
tests.replication.worker REPLICA SOURCE TABLE...``.

Opens the replica home (recovery of whatever a kill interrupted), applies the source's binlog until caught up while
a reader thread counts a watched table's rows, then prints one JSON object: the replica's position, every source
seq its binlog applied, each TABLE's rows (sorted) and properties, the views, and the reader's bad reads. Set
``DDL_LOG_CRASH_AT`` to have the process SIGKILLed (JVM included) at a crash point instead.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.replication.origin import mark_of

WATCHED = "rp.r"
"""Read throughout the apply: once it exists it must always have one of the source's row counts."""
WATCHED_COUNTS = {100, 50}


def read_continuously(spark: Any, stop: threading.Event, seen: dict[str, Any]) -> None:
    while not stop.is_set():
        try:
            count = spark.sql(f"SELECT count(*) FROM {WATCHED}").collect()[0][0]
        except Exception as error:  # noqa: BLE001 - every failed read after the table exists is a bad read
            missing = "TABLE_OR_VIEW_NOT_FOUND" in str(error) or "SCHEMA_NOT_FOUND" in str(error)
            if seen["reads"] or not missing:  # not there yet is fine; gone once seen is a gap
                seen["bad"].append(str(error).splitlines()[0][:200])
            time.sleep(0.05)
            continue
        seen["reads"] += 1
        if count not in WATCHED_COUNTS:
            seen["bad"].append(f"count {count}")


def table_dump(spark: Any, table: str) -> dict[str, Any] | None:
    if not spark.catalog.tableExists(table):
        return None
    rows = sorted(tuple(row) for row in spark.table(table).collect())
    props = {str(r[0]): str(r[1]) for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()
             if str(r[0]) == "team"}
    partitioned = bool(spark.sql(f"DESCRIBE TABLE EXTENDED {table}").filter("col_name = '# Partition Information'")
                       .count())
    partitions = sorted(str(r[0]) for r in spark.sql(f"SHOW PARTITIONS {table}").collect()) if partitioned else []
    return {"rows": [list(map(str, row)) for row in rows], "props": props, "partitions": partitions,
            "columns": [f"{f.name}:{f.dataType.simpleString()}" for f in spark.table(table).schema.fields],
            "files": data_files(spark, table)}


def data_files(spark: Any, table: str) -> list[str]:
    """The names of the data files at the table's location (a version copied as files keeps the source's names)."""
    from storage.catalogs.spark.profile import local_path

    info = json.loads(spark.sql(f"DESCRIBE TABLE EXTENDED {table} AS JSON").collect()[0][0])
    path = local_path(str(info["location"]))
    if path is None or not path.is_dir():
        return []
    return sorted(p.name for p in path.iterdir() if p.is_file() and not p.name.startswith(("_", ".")))


def main(replica: str, source: str, tables: list[str]) -> None:
    ddl = AtomicDDL(home=replica)
    spark = ddl.spark
    stop = threading.Event()
    seen: dict[str, Any] = {"reads": 0, "bad": []}
    reader = threading.Thread(target=read_continuously, args=(spark, stop, seen), daemon=True)
    reader.start()
    report = ddl.replica_of(source).run(until_caught_up=True, poll_seconds=0.1)
    stop.set()
    reader.join()
    marks = [mark_of(event.statement) for event in ddl.binlog_events()]
    views = sorted(str(v.name) for v in spark.catalog.listTables("rp") if v.tableType == "VIEW") \
        if spark.catalog.databaseExists("rp") else []
    print(json.dumps({"position": report.position, "applied": report.applied, "copied": report.copied,
                      "seqs": [m.seq for m in marks if m is not None], "reads": seen["reads"], "bad": seen["bad"],
                      "tables": {t: table_dump(spark, t) for t in tables}, "views": views,
                      "recovery": [o.outcome for o in ddl.last_recovery.outcomes]}))
    ddl.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
