"""A driver process for bench/test_attached.py: ``python -m bench.attached_driver MODE WORKDIR``, MODE ``extension``
(a session built with the extension and attached to a home under WORKDIR) or ``plain`` (no extension in the JVM).
It prints how long its session took to start, then answers one JSON command a line on stdin: ``{"sql": S, "times":
n}`` runs ``spark.sql(S).collect()`` n times and prints the seconds it took; ``{"quit": true}`` ends it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

TABLE = "CREATE TABLE bench_t USING parquet AS SELECT id, id * 2 AS v, concat('r', id) AS s FROM range(100000)"


def main(mode: str, workdir: Path) -> int:
    began = time.perf_counter()
    from storage.catalogs.spark.session import embedded_session

    extra: dict[str, str] = {}
    if mode == "extension":
        from ddl_log.frontends.extension.conf import HOME, extension_settings

        extra = {**extension_settings(), HOME: str(workdir / "home")}
    spark = embedded_session(workdir / "spark", extra=extra)
    started = time.perf_counter() - began
    if mode == "extension":
        from ddl_log import attach

        attach(spark)
    spark.sql(TABLE)
    print(json.dumps({"started": started, "ready": time.perf_counter() - began}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("quit"):
            break
        begin = time.perf_counter()
        for _ in range(int(command["times"])):
            spark.sql(command["sql"]).collect()
        print(json.dumps({"seconds": time.perf_counter() - begin}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
