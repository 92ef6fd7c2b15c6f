"""The writer in a driver of its own: ``python -m tests.readers.writer_process --uri ... --warehouse DIR --home DIR
--out FILE --control FILE --kinds k1,k2 --statements N``.

One Spark driver on the metastore service, an :class:`ddl_log.AtomicDDL` on it (its log in ``HOME/ddl``), and
``--readers`` reader threads in the same session. For each kind it sets the table up, points the control file (the
other driver's reader) at it, and runs the statements; JSON lines: ``begin`` (before each statement, with the
content it will make), ``event`` (after), ``read``. ``--recover-kind K --first-index I``: open the home first
(recovery runs), record ``recovered`` with the table's content as it then is, and go on from it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tests.readers.harness import CurrentTarget, JsonLines, write_target
from tests.readers.loop import ReaderThreads, Target, read_once
from tests.readers.model import Event
from tests.readers.workload import KINDS, Step, plan, run_plan, runner_for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.readers.writer_process")
    parser.add_argument("--uri", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--control", required=True, type=Path)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--statements", type=int, default=4)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--prefix", default="")
    parser.add_argument("--recover-kind", default=None)
    parser.add_argument("--first-index", type=int, default=1)
    parser.add_argument("--start-file", type=Path, default=None,
                        help="wait (session up, home recovered) until this file exists before the statements")
    args = parser.parse_args(argv)

    from ddl_log import AtomicDDL
    from tests.readers.drivers import service_session

    out = JsonLines(args.out)
    spark = service_session(args.uri, args.warehouse, args.home / "spark")
    opened = time.time()
    ddl = AtomicDDL(spark=spark, home=args.home / "ddl")
    recovered = time.time()
    out.write({"type": "opened", "start": opened, "end": recovered,
               "recovery": [o.outcome for o in ddl.last_recovery.outcomes]})
    kinds = [k for k in args.kinds.split(",") if k]
    initial = None
    if args.recover_kind is not None:
        kinds = [args.recover_kind]
        probe = plan(args.recover_kind, 0, args.rows, prefix=args.prefix)
        spark.catalog.refreshTable(probe.table)
        seen = read_once(spark, probe.target, "recovery-check")
        out.write({"type": "recovered", "table": probe.table, "start": opened, "end": recovered,
                   "content": None if seen.result is None else [list(r) for r in seen.result], "error": seen.error})
        if seen.result is None:
            return 1
        initial = seen.result
    while args.start_file is not None and not args.start_file.exists():
        time.sleep(0.1)
    runner = runner_for("atomic", ddl=ddl, spark=spark)
    current = CurrentTarget()

    def switch(target: Target | None) -> None:
        current.set(target)
        write_target(args.control, target)

    def begin(step: Step, at: float) -> None:
        out.write({"type": "begin", "kind": step.kind, "table": step.table, "index": step.index, "start": at,
                   "content": [list(r) for r in step.content]})

    def keep(event: Event) -> None:
        out.write(event.as_json())

    with ReaderThreads(spark, current, count=args.readers, who="writer-session",
                       sink=lambda read: out.write(read.as_json())):
        for kind in kinds:
            run_plan(spark, plan(kind, args.statements, args.rows, prefix=args.prefix, first_index=args.first_index,
                                 initial=initial), runner, on_target=switch, on_begin=begin, on_event=keep)
        switch(None)
    out.write({"type": "done", "at": time.time()})
    out.close()
    ddl.close()
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
