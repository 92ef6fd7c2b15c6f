"""The cluster soak's reader: ``python -m tests.soak_cluster.reader --uri thrift://... --warehouse DIR --scratch DIR
--pool-file FILE --out FILE --stop-file FILE``.

A Spark driver of its own on the metastore service, outside the DDL log (what a dashboard does): reads a random
table of the pool (the file lists the current names; the parent rewrites it) with tests.soak.readers's query, the
per-label aggregates the checker's model predicts, until the stop file exists; every read (or its error) is one JSON
line (tests.readers.model.Read). ``--refresh-every N``: REFRESH TABLE before every N-th read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import threading
from pathlib import Path

from tests.readers.harness import JsonLines
from tests.readers.loop import Target, reader_loop
from tests.soak.workload import emit

QUERY = "SELECT w, count(*), sum(k), sum(k * k), min(k), max(k) FROM `default`.`{table}` GROUP BY w"
"""tests.soak.readers's query: its ``content`` is what the model says a version holds."""


def pool_of(path: Path) -> list[str]:
    try:
        return [str(name) for name in json.loads(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError):
        return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak_cluster.reader")
    parser.add_argument("--uri", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--scratch", required=True, type=Path)
    parser.add_argument("--pool-file", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--stop-file", required=True, type=Path)
    parser.add_argument("--refresh-every", type=int, default=1)
    parser.add_argument("--seed", default="0")
    args = parser.parse_args(argv)

    from storage.catalogs.spark.session import service_session

    # On the cluster manager the soak gives (DDL_LOG_SPARK_MASTER), else local mode.
    spark = service_session(args.scratch, args.uri, args.warehouse, os.environ.get("DDL_LOG_SPARK_MASTER") or None)
    spark.sql("SELECT 1").collect()
    out = JsonLines(args.out)
    emit("ready")
    rng = random.Random(f"reader:{args.seed}")
    stop = threading.Event()

    def target() -> Target | None:
        pool = pool_of(args.pool_file)
        if args.stop_file.exists():
            stop.set()
        if not pool:
            return None
        table = rng.choice(pool)
        return Target(table, QUERY.format(table=table))

    reads = reader_loop(spark, target, stop, lambda read: out.write(read.as_json()), who="reader",
                        refresh_every=args.refresh_every)
    out.close()
    emit("done", reads=reads)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
