"""``make readers``: ``python -m tests.readers.run --statements 50``: the reader measurement of issue 14's "Done when".

1. In this process (an embedded Spark session): 2 reader threads in the writer's session while ``--statements``
   statements of each kind run through AtomicDDL (and, with ``--plain``, the same with Spark's own statements);
2. with a metastore service (started from pyspark's jars): a writer driver (AtomicDDL, 2 reader threads in its
   session) and 1 reader in another driver (``--other-driver``, on by default).

Prints one table per place: reads, failed, wrong (and stale) per statement kind, and the statements' mean time.
Exit status 1 if any read was bad in the atomic runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tests.readers.model import Event, render, tally
from tests.readers.workload import KINDS, PLAIN_KINDS


def durations(events: list[Event]) -> str:
    seconds: dict[str, list[float]] = defaultdict(list)
    for event in events:
        if event.kind != "setup":
            seconds[event.kind].append(event.end - event.start)
    return "  mean seconds per statement: " + ", ".join(
        f"{kind} {statistics.mean(values):.2f} ({len(values)})" for kind, values in sorted(seconds.items()))


def same_session(workdir: Path, kinds: list[str], statements: int, rows: int, plain: bool) -> int:
    from ddl_log import AtomicDDL
    from storage.catalogs.spark.session import embedded_session
    from tests.readers.harness import measure_in_session

    spark = embedded_session(workdir / "spark-home")
    bad = 0
    with AtomicDDL(spark=spark, home=workdir / "ddl-home") as ddl:
        modes = [("atomic", kinds)] + ([("plain", [k for k in kinds if k in PLAIN_KINDS])] if plain else [])
        for mode, mode_kinds in modes:
            measured = measure_in_session(spark, ddl=ddl, kinds=mode_kinds, statements=statements, rows=rows,
                                          mode=mode, prefix="" if mode == "atomic" else "plain_")
            counts, errors, _ = tally(measured.events, measured.reads, stale_ok=False)
            print(render(f"\n{mode}: 2 readers in the writer's session, {statements} statements per kind, "
                         f"{rows} rows", counts, errors, stale_ok=False))
            print(durations(measured.events))
            if measured.errors:
                print(f"  statements that raised: {len(measured.errors)}: {measured.errors[0].error}")
            if mode == "atomic":
                bad += counts["all"]["bad"] if "all" in counts else 0
    spark.stop()
    return bad


def other_driver(workdir: Path, kinds: list[str], statements: int, rows: int, refresh_every: int) -> int:
    from tests.readers.services import run_two_drivers

    result = run_two_drivers(workdir, kinds=kinds, statements=statements, rows=rows, refresh_every=refresh_every)
    print(result.report())
    return result.bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.readers.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--statements", type=int, default=50)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--plain", action="store_true", help="also measure Spark's own statements")
    parser.add_argument("--no-other-driver", action="store_true")
    parser.add_argument("--no-same-session", action="store_true")
    parser.add_argument("--refresh-every", type=int, default=3,
                        help="the other driver's reader refreshes the table before every n-th read (1: each read "
                             "resolves the table anew, the most exposure to a metastore read during a swap)")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="readers-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    bad = 0
    if not args.no_same_session:
        bad += same_session(workdir / "same", kinds, args.statements, args.rows, args.plain)
    if not args.no_other_driver:
        bad += other_driver(workdir / "other", kinds, args.statements, args.rows, args.refresh_every)
    print(f"\nbad reads in atomic runs: {bad}   ({time.monotonic() - started:.0f} s)")
    if args.dir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())


