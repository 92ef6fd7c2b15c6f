"""``ddl-log replica run|start|stop|status|bootstrap|check|resync|promote`` (:mod:`ddl_log.replication`) and
``ddl-log binlog --sql``.

``run`` applies in the foreground (``--until-caught-up`` exits 0 once the source's head is applied; ``--until SEQ``
replays a range, the ``mysqlbinlog | mysql`` of this project, exactly once); ``start`` runs the same in the
background and ``stop`` ends it between two events; ``status`` reads files only (no Spark, no lock). The operations
of :mod:`~ddl_log.frontends.cli.replica_ops`: ``bootstrap`` (a replica from an existing source), ``check``,
``resync TABLE`` and ``promote``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time

import attrs

from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_OK, dumps, home_path, out
from ddl_log.frontends.cli.replica_ops import (
    filters_of,
    replica_bootstrap,
    replica_check,
    replica_promote,
    replica_resync,
)
from ddl_log.frontends.cli.run import open_home
from ddl_log.ops.processes import runs_marked

APPLIER_LOG = "applier.log"
ACTIONS = {
    "run": "apply in the foreground",
    "start": "apply in the background",
    "stop": "stop the background applier between two events",
    "status": "applied position, source head, events and seconds behind, last error, filters, promotion",
    "bootstrap": "copy the chosen databases of an existing source at one source position, then follow it",
    "check": "compare every replicated object with the source's (definitions, row checksums); exit 1 on a difference",
    "resync": "copy one table again from the source, atomically, at a recorded source position",
    "promote": "stop following the source (at a consistent point) and become a source",
}
SOURCE_METASTORE_HELP = ("where the source's catalog is: thrift://HOST:PORT (a metastore service its drivers use) or "
                         "'embedded' (its own Derby, read while its driver is stopped); default: this home's "
                         "metastore, where the replica keeps the source's databases under other names")


def add_replica_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser],
                       common: argparse.ArgumentParser) -> None:
    replica = commands.add_parser("replica", parents=[common], help="apply a source home's binlog to this home",
                                  description="This home as a replica of a source home: each committed source event "
                                              "applied once, atomically, its position in this home's binlog.")
    actions = replica.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in ACTIONS.items():
        action = actions.add_parser(name, parents=[common], help=text, description=text)
        if name != "stop":
            action.add_argument("--source", metavar="DIR|URL", required=name in ("run", "start", "bootstrap"),
                                help="the source home: a directory, or a database home's URL (its catalog binlog); "
                                     "default: the one this replica follows")
        if name in ("run", "start", "bootstrap"):
            action.add_argument("--databases", metavar="A,B", default=None, required=name == "bootstrap",
                                help="replicate only these source databases (events on others are skipped and "
                                     "recorded as skipped)")
            action.add_argument("--rewrite-db", metavar="SRC=DST", action="append", default=[],
                                help="keep source database SRC as DST on the replica (repeat, or SRC=DST,SRC2=DST2)")
        if name in ("bootstrap", "check", "resync"):
            action.add_argument("--source-metastore", metavar="URI|embedded", default=None,
                                help=SOURCE_METASTORE_HELP)
        if name in ("bootstrap", "resync"):
            action.add_argument("--attempts", type=int, default=5,
                                help="copy rounds tried before giving up on a source that keeps changing (5)")
        if name == "resync":
            action.add_argument("table", metavar="TABLE", help="the replica's table, db.name")
        if name == "check":
            action.add_argument("--no-catch-up", action="store_true",
                                help="compare at the current position, without applying what the source has")
        if name == "promote":
            action.add_argument("--catch-up", action="store_true",
                                help="apply everything the source has first (a planned switchover)")
        if name == "run":
            action.add_argument("--until-caught-up", action="store_true",
                                help="exit 0 once every event committed on the source is applied")
            action.add_argument("--until", metavar="SEQ", type=int, default=None,
                                help="apply the source's events up to SEQ, then exit (a replay of a range)")
        if name in ("run", "start"):
            action.add_argument("--poll", metavar="SECONDS", type=float, default=1.0,
                                help="how often to look for new events when caught up (default 1)")
        if name not in ("start", "stop"):
            action.add_argument("--json", action="store_true", help="one JSON object")
        action.set_defaults(subparser=action)


def cmd_replica(args: argparse.Namespace) -> int:
    return {"run": replica_run, "start": replica_start, "stop": replica_stop, "status": replica_status,
            "bootstrap": replica_bootstrap, "check": replica_check, "resync": replica_resync,
            "promote": promote}[args.action](args)


def promote(args: argparse.Namespace) -> int:
    return replica_promote(args, stop_applier)


def replica_run(args: argparse.Namespace) -> int:
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    started = time.monotonic()
    databases, rewrite = filters_of(args)
    with open_home(args) as ddl:
        applier = ddl.replica_of(args.source, databases=databases, rewrite_db=rewrite or None)
        if args.until is not None:
            report = applier.apply_available(until=args.until)
        else:
            report = applier.run(until_caught_up=args.until_caught_up, poll_seconds=args.poll,
                                 stop=lambda: bool(stopping))
    seconds = time.monotonic() - started
    if args.json:
        out(dumps({**attrs.asdict(report), "seconds": round(seconds, 3)}))
    else:
        out(f"applied {report.applied} events ({report.copied} from their versions' files, {report.skipped} "
            f"skipped and recorded) in {seconds:.1f} s; position {report.position}")
    return EXIT_OK


def replica_start(args: argparse.Namespace) -> int:
    from ddl_log.replication.replica_state import read_state, state_path, write_state

    home = home_path(args)
    state = read_state(home)
    if state.pid is not None and _alive(state.pid, home):
        out(f"already running (pid {state.pid})")
        return EXIT_FAILED
    os.makedirs(os.path.dirname(state_path(home)), mode=0o700, exist_ok=True)
    log_path = os.path.join(os.path.dirname(state_path(home)), APPLIER_LOG)
    filters = ([] if args.databases is None else ["--databases", args.databases]) + \
        [option for pair in args.rewrite_db for option in ("--rewrite-db", pair)]
    command = [sys.executable, "-m", "ddl_log", "--home", home, "replica", "run", "--source", args.source,
               "--poll", str(args.poll), *filters]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    write_state(home, attrs.evolve(read_state(home), pid=process.pid))
    out(f"applier started (pid {process.pid}, log {log_path})")
    return EXIT_OK


def stop_applier(home: str) -> bool:
    """End the background applier of ``home`` between two events; whether one was running."""
    from ddl_log.replication.replica_state import read_state, write_state

    state = read_state(home)
    if state.pid is None or not _alive(state.pid, home):
        return False
    os.kill(state.pid, signal.SIGTERM)  # the applier stops between two events
    deadline = time.monotonic() + 120
    while _alive(state.pid, home) and time.monotonic() < deadline:
        time.sleep(0.2)
    write_state(home, attrs.evolve(read_state(home), pid=None))
    return True


def replica_stop(args: argparse.Namespace) -> int:
    out("stopped" if stop_applier(home_path(args)) else "not running")
    return EXIT_OK


def replica_status(args: argparse.Namespace) -> int:
    from chains.binlog import read_events
    from ddl_log.replication.source import open_source
    from ddl_log.replication.status import replica_status as status_of

    home = home_path(args)
    source = open_source(args.source) if args.source else None
    status = status_of(home, read_events(home), source)
    if status["pid"] is not None and not _alive(status["pid"], home):
        status["pid"] = None
    if args.json:
        out(dumps(status))
    else:
        for key, value in status.items():
            out(f"{key:<15} {'-' if value is None else value}")
    return EXIT_FAILED if status["last_error"] or status["source_rewound"] else EXIT_OK


def _alive(pid: int, home: str) -> bool:
    """Whether ``pid`` is still the applier ``replica start`` launched for ``home`` (a pid kept in the state file
    outlives its process when the applier is killed, and may be another process's by now: never signal that)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # a zombie child of this process is not running
    return runs_marked(pid, "replica", "run", "--home", home)
