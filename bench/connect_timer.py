"""A Connect client timing statements for bench/test_connect_server.py, in a process of its own (a classic and a
Connect session cannot share one): ``python -m bench.connect_timer OURS_URL PLAIN_URL ROWS``. One session on each
server; for each line ``ours`` or ``plain`` read on stdin it runs that server's replace of ``t`` (ours: CREATE OR
REPLACE; plain: DROP TABLE IF EXISTS + CREATE TABLE AS SELECT, what plain Spark runs for it) and prints its
seconds."""

from __future__ import annotations

import sys
import time

from bench.conftest import select


def main(ours_url: str, plain_url: str, rows: int) -> int:
    from pyspark.sql import SparkSession

    ours = SparkSession.builder.remote(ours_url).create()
    plain = SparkSession.builder.remote(plain_url).create()
    create = f"CREATE TABLE t USING parquet AS {select(rows)}"
    ours.sql(create)
    plain.sql(create)
    statements = {"ours": [f"CREATE OR REPLACE TABLE t USING parquet AS {select(rows)}"],
                  "plain": ["DROP TABLE IF EXISTS t", create]}
    print("ready", flush=True)
    sessions = {"ours": ours, "plain": plain}
    for line in sys.stdin:
        which = line.strip()
        begin = time.perf_counter()
        for text in statements[which]:
            sessions[which].sql(text)
        print(f"{time.perf_counter() - begin:.6f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
