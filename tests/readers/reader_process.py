"""A reader in a driver of its own: ``python -m tests.readers.reader_process --uri thrift://... --warehouse DIR
--home DIR --control FILE --out FILE --stop-file FILE``.

Starts a Spark driver on the metastore service, writes ``{"type": "ready"}``, then reads the table the control file
names (see :func:`tests.readers.harness.write_target`) until the stop file exists, one JSON line per read.
``--refresh-every N``: REFRESH TABLE before every N-th read (0: never; such a reader keeps its cached relation).
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

from tests.readers.harness import JsonLines, read_target
from tests.readers.loop import reader_loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.readers.reader_process")
    parser.add_argument("--uri", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--control", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--stop-file", required=True, type=Path)
    parser.add_argument("--refresh-every", type=int, default=3)
    parser.add_argument("--who", default="other-driver")
    args = parser.parse_args(argv)

    from tests.readers.drivers import service_session

    out = JsonLines(args.out)
    spark = service_session(args.uri, args.warehouse, args.home)
    spark.sql("SELECT 1").collect()  # the first job pays class loading
    out.write({"type": "ready", "at": time.time()})
    stop = threading.Event()

    def watch() -> None:
        while not args.stop_file.exists():
            time.sleep(0.1)
        stop.set()

    threading.Thread(target=watch, daemon=True).start()
    reads = reader_loop(spark, lambda: read_target(args.control), stop, lambda read: out.write(read.as_json()),
                        who=args.who, refresh_every=args.refresh_every)
    out.write({"type": "stopped", "reads": reads, "at": time.time()})
    out.close()
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
