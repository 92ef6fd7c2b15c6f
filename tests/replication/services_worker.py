"""Drivers of the two-services test (test_two_services.py), each a process of its own (its own JVM):

``python -m tests.replication.services_worker source HOME URI WAREHOUSE PREFIX``: the source driver, its home a
database home on PostgreSQL, runs :data:`SCRIPT` on the source's metastore service through the SQL front end,
noting after each statement the state of the tables the replica's reader watches; prints one JSON object (the
history of those states, every table's definition and rows).

``python -m tests.replication.services_worker replica HOME SOURCE URI WAREHOUSE DONE HISTORY PREFIX``: the
replica applier, a directory home on the replica's own service, applies the source's catalog binlog (until caught
up and the source is done: ``DONE``, a file the test makes) while a reader thread reads the watched tables (once
``HISTORY`` is there); prints the applied seqs, the reads (and bad ones: an error, a table gone once seen, rows
that were never a state of the source's table) and the same dump. ``DDL_LOG_CRASH_AT`` SIGKILLs it (JVM included)
mid-apply instead.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.replication.origin import mark_of

WATCHED = ("{rp}.r", "{rp}.p")
"""Read throughout the apply: every read must be a state the source's table had (none while it does not exist).
The script's databases are ``{rp}`` and ``{rq}``: a prefix per test keeps the tests of one pair of services apart."""
SCRIPT = [
    "CREATE DATABASE {rp}",
    "CREATE DATABASE {rq}",
    "CREATE TABLE {rp}.r USING parquet AS SELECT id, rand() AS x FROM range(100)",
    "CREATE TABLE {rp}.p (v BIGINT, x DOUBLE, k STRING) USING parquet PARTITIONED BY (k)",
    "INSERT INTO {rp}.p SELECT id, rand(), CAST(id % 3 AS STRING) FROM range(30)",
    "INSERT INTO {rp}.p PARTITION (k = 'one') SELECT 1000, rand()",
    "CREATE TABLE {rp}.l LIKE {rp}.p",
    "INSERT INTO {rp}.r SELECT 1000, rand()",
    "CREATE OR REPLACE TABLE {rp}.r USING parquet AS SELECT id, rand() AS x FROM range(50)",
    "INSERT OVERWRITE {rp}.p PARTITION (k = '1') SELECT id + 100, rand() FROM range(3)",
    "ALTER TABLE {rp}.r SET TBLPROPERTIES ('team' = 'blue')",
    "COMMENT ON TABLE {rp}.r IS 'replicated'",
    "ALTER TABLE {rp}.p ADD COLUMNS (note STRING)",
    "ALTER TABLE {rp}.p ADD PARTITION (k = 'empty')",
    "ALTER TABLE {rp}.l ALTER COLUMN x TYPE STRING",
    "TRUNCATE TABLE {rp}.p",
    "CREATE VIEW {rp}.v AS SELECT count(*) AS c FROM {rp}.r",
    "ALTER VIEW {rp}.v AS SELECT count(*) AS c, max(id) AS m FROM {rp}.r",
    "CREATE FUNCTION {rp}.f AS 'com.example.F'",
    "ALTER TABLE {rp}.l RENAME TO {rp}.l2",
    "DROP TABLE {rp}.l2",
    "UNDROP TABLE {rp}.l2",
    "RESTORE TABLE {rp}.r TO VERSION AS OF {first_r}",
    "CREATE TABLE {rq}.a USING parquet AS SELECT 1 AS a",
    "CREATE VIEW {rq}.w AS SELECT 2 AS w",
    "DROP DATABASE {rq} CASCADE",
    "DROP FUNCTION {rp}.f",
]
HIDDEN = ("spark_ddl_log.", "transient_", "spark.sql.", "numFiles", "totalSize", "numRows", "rawDataSize",
          "COLUMN_STATS_ACCURATE")


def state_of(spark: Any, table: str) -> str | None:
    """A table's rows as one short digest (None: not there)."""
    if not spark.catalog.tableExists(table):
        return None
    rows = sorted(json.dumps([None if v is None else str(v) for v in row]) for row in spark.table(table).collect())
    return f"{len(rows)}:{hashlib.sha256(''.join(rows).encode()).hexdigest()[:12]}"


def dump(spark: Any, prefix: str) -> dict[str, Any]:
    """Every database of the test's (``prefix``): tables (definition and rows), views (text), functions."""
    found: dict[str, Any] = {}
    for db in sorted(r[0] for r in spark.sql("SHOW DATABASES").collect()):
        if not db.startswith(prefix):
            continue
        for row in spark.sql(f"SHOW TABLES IN {db}").collect():
            name = f"{db}.{row['tableName']}"
            info = {str(r[0]): str(r[1]) for r in spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()}
            if info.get("Type") == "VIEW":
                found[name] = {"view": info.get("View Text")}
                continue
            properties = {str(r[0]): str(r[1]) for r in spark.sql(f"SHOW TBLPROPERTIES {name}").collect()
                          if not str(r[0]).startswith(HIDDEN)}
            partitioned = "# Partition Information" in info
            found[name] = {"schema": spark.table(name).schema.simpleString(), "provider": info.get("Provider"),
                           "comment": info.get("Comment"), "properties": properties,
                           "partitions": sorted(str(r[0]) for r in spark.sql(f"SHOW PARTITIONS {name}").collect())
                           if partitioned else None,
                           "rows": sorted(json.dumps([None if v is None else str(v) for v in r])
                                          for r in spark.table(name).collect())}
        found[f"{db} functions"] = sorted(str(r[0]) for r in spark.sql(f"SHOW USER FUNCTIONS IN {db}").collect())
    return found


def named(text: str, prefix: str, **more: Any) -> str:
    return text.format(rp=f"{prefix}p", rq=f"{prefix}q", **more)


def watched(prefix: str) -> list[str]:
    return [named(table, prefix) for table in WATCHED]


def source(home: str, uri: str, warehouse: str, prefix: str) -> None:
    ddl = AtomicDDL(home=home, metastore_uri=uri, warehouse=warehouse)
    spark = ddl.spark
    history: dict[str, list[str | None]] = {table: [None] for table in watched(prefix)}
    first_r = None
    for text in SCRIPT:
        statement = named(text, prefix, first_r=first_r)
        ddl.sql(statement)
        if text.startswith("CREATE OR REPLACE TABLE {rp}.r"):  # the CTAS's version (and its INSERT) is kept
            first_r = min(row.version for row in ddl.describe_history(named("{rp}.r", prefix)).rows)
        for table in watched(prefix):
            if table in statement:
                history[table].append(state_of(spark, table))
    print(json.dumps({"history": history, "dump": dump(spark, prefix), "events": len(ddl.binlog_events())}),
          flush=True)
    ddl.close()


def read_continuously(spark: Any, history: dict[str, list[str | None]], stop: threading.Event,
                      seen: dict[str, Any]) -> None:
    present: set[str] = set()
    while not stop.is_set():
        for table in history:
            try:
                state = state_of(spark, table)
            except Exception as error:  # noqa: BLE001 - every failed read is a bad read
                seen["bad"].append(f"{table}: {str(error).splitlines()[0][:200]}")
                continue
            seen["reads"] += 1
            if state is None and table in present:
                seen["bad"].append(f"{table}: gone once seen")
            elif state is not None and state not in history[table]:
                seen["bad"].append(f"{table}: {state}, never a state of the source's table")
            if state is not None:
                present.add(table)
        time.sleep(0.05)


def replica(home: str, source_home: str, uri: str, warehouse: str, done: str, history_file: str,
            prefix: str) -> None:
    ddl = AtomicDDL(home=home, metastore_uri=uri, warehouse=warehouse)
    spark = ddl.spark
    stop = threading.Event()
    seen: dict[str, Any] = {"reads": 0, "bad": []}
    history = json.loads(Path(history_file).read_text()) if Path(history_file).exists() else None
    reader = None
    if history is not None:
        reader = threading.Thread(target=read_continuously, args=(spark, history, stop, seen), daemon=True)
        reader.start()
    applier = ddl.replica_of(source_home)
    while True:
        applier.apply_available()
        if Path(done).exists() and applier.position >= applier.source.head().seq:
            break
        time.sleep(0.2)
    stop.set()
    if reader is not None:
        reader.join()
    marks = [mark_of(event.statement) for event in ddl.binlog_events()]
    print(json.dumps({"seqs": [m.seq for m in marks if m is not None], "reads": seen["reads"], "bad": seen["bad"],
                      "recovery": [o.outcome for o in ddl.last_recovery.outcomes], "dump": dump(spark, prefix)}),
          flush=True)
    ddl.close()


if __name__ == "__main__":
    if sys.argv[1] == "source":
        source(*sys.argv[2:6])
    else:
        replica(*sys.argv[2:9])
