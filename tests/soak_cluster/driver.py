"""A cluster soak driver: ``python -m tests.soak_cluster.driver --url URL --home ID --uri thrift://... --warehouse DIR
--journal FILE --pool t0,t1,t2,t3 --seed S --stop-file FILE``.

Opens ``AtomicDDL(home=URL?home=ID, metastore_uri=..., warehouse=..., lease_seconds=...)`` (the cluster options
its signature accepts), prints ``SOAK {"type": "ready"}``, then runs random statements (:mod:`tests.soak_cluster.plan`)
on the tables of ``--pool`` until the stop file exists. Before each statement the journal gets what is about to run,
after it how it ended, each record fsynced (tests.soak.workload's Journal): the checker knows which statements may
have committed when the parent SIGKILLs this process group. A driver whose home was taken over (HomeFencedError)
stops at once, as a fenced process must.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from tests.soak.workload import Journal, emit, execute, returned_event
from tests.soak_cluster.cluster_state import ddl_options, home_url
from tests.soak_cluster.plan import plan

FENCED = "HomeFencedError"
EXIT_FENCED = 3


def present_tables(spark: Any, pool: list[str]) -> list[str]:
    rows = spark.sql("SHOW TABLES IN `default`").collect()
    return sorted({str(row["tableName"]) for row in rows if not row["isTemporary"]} & set(pool))


def run(ddl: Any, journal: Journal, rng: random.Random, home: str, pool: list[str], stop_file: Path) -> int:
    from ddl_log import DDLLogError

    number = 0
    while not stop_file.exists():
        sid = f"{home}s{number}"
        try:
            seen = present_tables(ddl.spark, pool)
        except Exception as exc:  # noqa: BLE001 - the catalog is the service's: say so, try again
            emit("note", what=f"SHOW TABLES failed: {type(exc).__name__}: {str(exc)[:300]}")
            time.sleep(0.5)
            continue
        statement = plan(rng, sid, pool, seen)
        statement["start"] = time.time()
        journal.write(statement)
        emit("begin", n=number, sid=sid, kind=statement["kind"])
        outcome, error, result, fenced = "ok", None, None, False
        try:
            result = execute(ddl, statement)
        except DDLLogError as exc:
            outcome, error = "failed", f"{type(exc).__name__}: {exc}"
            fenced = type(exc).__name__ == FENCED
        except Exception as exc:  # noqa: BLE001 - recorded; the checker reports it
            outcome, error = "error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        end = time.time()
        event = returned_event(result)
        journal.write({"op": "end", "sid": sid, "outcome": outcome, "error": error, "end": end,
                       "secs": round(end - statement["start"], 3), "event_seq": None if event is None else event.seq})
        emit("end", n=number, sid=sid, kind=statement["kind"], outcome=outcome, secs=round(end - statement["start"], 3))
        number += 1
        if fenced:
            emit("fenced", error=error)
            return EXIT_FENCED
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak_cluster.driver")
    parser.add_argument("--url", required=True, help="libpq URL of the homes' database (no home parameter)")
    parser.add_argument("--home", required=True)
    parser.add_argument("--uri", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--journal", required=True, type=Path)
    parser.add_argument("--pool", required=True, help="comma-separated table names")
    parser.add_argument("--seed", required=True)
    parser.add_argument("--stop-file", required=True, type=Path)
    parser.add_argument("--lease", type=float, default=3.0)
    parser.add_argument("--lock-wait", type=float, default=60.0)
    args = parser.parse_args(argv)

    from ddl_log import AtomicDDL

    journal = Journal(args.journal)
    options = ddl_options(lease_seconds=args.lease, lock_wait_seconds=args.lock_wait, takeover_interval=args.lease)
    began = time.time()
    ddl = AtomicDDL(home=home_url(args.url, args.home), metastore_uri=args.uri, warehouse=args.warehouse,
                    wait_seconds=30.0, **options)
    try:
        ddl.spark.sql("SELECT 1").collect()  # the first job pays class loading, before the first statement
        recovery = [outcome.as_dict() for outcome in ddl.last_recovery.outcomes]
        journal.write({"op": "open", "home": args.home, "start": began, "end": time.time(), "options": options,
                       "recovery": recovery})
        emit("ready", home=args.home, options=options, secs=round(time.time() - began, 1))
        code = run(ddl, journal, random.Random(f"{args.seed}:{args.home}"), args.home, args.pool.split(","),
                   args.stop_file)
    finally:
        ddl.close()
    emit("done", code=code)
    return code


if __name__ == "__main__":
    sys.exit(main())
