"""``ddl-log thrift-server start|status|stop``: Spark's Thrift server (JDBC, ODBC, beeline, PyHive, dbt-spark's thrift
method) in a background driver attached to the home (:mod:`ddl_log.ops.thrift_server` launches and tracks it,
:mod:`ddl_log.frontends.extension.thrift_driver` is the driver). These commands never start Spark themselves."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ddl_log.frontends.cli.extension import carried_settings
from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_OK, dumps, home_path, out
from ddl_log.ops import thrift_server
from ddl_log.ops.thrift_server import DEFAULT_HOST, ServerStatus
from ddl_log.settings import settings_from_options

DRIVER_MODULE = "ddl_log.frontends.extension.thrift_driver"


def add_thrift_server_parser(commands: argparse._SubParsersAction,  # type: ignore[type-arg]
                             common: argparse.ArgumentParser) -> None:
    server = commands.add_parser(
        "thrift-server", parents=[common], help="start, inspect or stop a Spark Thrift server attached to the home",
        description="Spark's Thrift server (HiveServer2's protocol: JDBC, ODBC, beeline, PyHive, dbt-spark's thrift "
                    "method) in a background driver that holds the home: each client's DDL runs through the log, "
                    "atomically, one Spark session per client.")
    actions = server.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("start", "start the server (recovery first) unless it runs; print its URL"),
                       ("status", "print the server's URL, pid and port (exit 1 when it does not serve: stopped, "
                                  "starting, or died)"),
                       ("stop", "stop the server: the home is closed, Spark stopped")):
        action = actions.add_parser(name, parents=[common], help=text, description=text)
        action.add_argument("--dir", metavar="DIR", type=Path, default=None,
                            help="the server's directory (state, log; default HOME/thrift-server)")
        if name != "stop":
            action.add_argument("--json", action="store_true", help="one JSON object")
        if name == "start":
            action.add_argument("--port", type=int, default=None, help="the port (default: a free one)")
            action.add_argument("--host", default=DEFAULT_HOST,
                                help=f"the address to listen on (default {DEFAULT_HOST})")
        action.set_defaults(subparser=action)


def cmd_thrift_server(args: argparse.Namespace) -> int:
    home = home_path(args)
    root = thrift_server.default_dir(home) if args.dir is None else args.dir
    if args.action == "start":
        carried = carried_settings(settings_from_options(args))
        command = [sys.executable, "-m", DRIVER_MODULE, "--home", home, "--settings", dumps(carried)]
        found = thrift_server.start(root, home, command, port=args.port, host=args.host)
    elif args.action == "status":
        found = thrift_server.status(root)
    else:
        was = thrift_server.stop(root)
        out({"running": "stopped", "starting": "stopped while starting", "died": "had died (its state cleared)",
             "stopped": "not running"}[was])
        return EXIT_OK
    print_status(found, as_json=args.json)
    return EXIT_OK if found.running else EXIT_FAILED


def print_status(found: ServerStatus, *, as_json: bool) -> None:
    if as_json:
        out(dumps(found.as_dict()))
        return
    server = found.server
    if server is None:
        out(f"not running (dir {found.root})")
        return
    out(f"thrift server: {server.url}  ({found.state})")
    out(f"  home       {server.home}")
    out(f"  dir        {found.root}  (pid {server.pid}, log {server.log_path})")
    if found.ready.get("start_seconds") is not None:
        out(f"  started in {found.ready['start_seconds']:.1f} s")
    if found.state == "died":
        out("  the driver is gone without `stop`; the next `start` recovers the home. Its log ends:")
        for line in found.tail.splitlines()[-8:]:
            out(f"    {line}")
