"""``ddl-log thrift-server start|status|stop`` and ``ddl-log connect-server start|status|stop``: a server in a
background driver attached to the home (:mod:`ddl_log.ops.driver_server` launches and tracks it,
:mod:`ddl_log.frontends.cli.hosting_driver` is the driver). These commands never start Spark themselves."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path

import attrs

from ddl_log.frontends.cli.extension import carried_settings
from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_OK, dumps, home_path, out
from ddl_log.ops import driver_server
from ddl_log.ops.connect_server import CONNECT_SERVER
from ddl_log.ops.driver_server import DEFAULT_HOST, ServerKind, ServerStatus
from ddl_log.ops.server_ports import port_argument
from ddl_log.ops.thrift_server import THRIFT_SERVER
from ddl_log.settings import settings_from_options


@attrs.frozen
class ServerCommand:
    """One server's command: its kind, the module its driver runs, how ``--help`` and ``status`` name it."""

    kind: ServerKind
    driver_module: str
    title: str
    help: str
    description: str


THRIFT = ServerCommand(
    THRIFT_SERVER, "ddl_log.frontends.cli.thrift_driver", "thrift server",
    "start, inspect or stop a Spark Thrift server attached to the home",
    "Spark's Thrift server (HiveServer2's protocol: JDBC, ODBC, beeline, PyHive, dbt-spark's thrift method) in a "
    "background driver that holds the home: each client's DDL runs through the log, atomically, one Spark session "
    "per client.")
CONNECT = ServerCommand(
    CONNECT_SERVER, "ddl_log.frontends.cli.connect_driver", "connect server",
    "start, inspect or stop a Spark Connect server attached to the home",
    "Spark Connect's server (SparkSession.builder.remote('sc://host:port')) in a background driver that holds the "
    "home: each client's DDL (spark.sql, and the DataFrame writes Spark plans) runs through the log, atomically, one "
    "Spark session per client.")
SERVER_COMMANDS = (THRIFT, CONNECT)


def add_server_parsers(commands: argparse._SubParsersAction,  # type: ignore[type-arg]
                       common: argparse.ArgumentParser) -> None:
    for command in SERVER_COMMANDS:
        add_server_parser(commands, common, command)


def add_server_parser(commands: argparse._SubParsersAction,  # type: ignore[type-arg]
                      common: argparse.ArgumentParser, command: ServerCommand) -> None:
    server = commands.add_parser(command.kind.command, parents=[common], help=command.help,
                                 description=command.description)
    actions = server.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("start", "start the server (recovery first) unless it runs; print its URL"),
                       ("status", "print the server's URL, pid and port (exit 1 when it does not serve: stopped, "
                                  "starting, or died)"),
                       ("stop", "stop the server: the home is closed, Spark stopped")):
        action = actions.add_parser(name, parents=[common], help=text, description=text)
        action.add_argument("--dir", metavar="DIR", type=Path, default=None,
                            help=f"the server's directory (state, log; default HOME/{command.kind.command})")
        if name != "stop":
            action.add_argument("--json", action="store_true", help="one JSON object")
        if name == "start":
            action.add_argument("--port", type=port_argument, default=None,
                                help="the port (default: a free one)")
            action.add_argument("--host", default=DEFAULT_HOST,
                                help=f"the address to listen on (default {DEFAULT_HOST})")
        action.set_defaults(subparser=action)


def server_handlers() -> dict[str, Callable[[argparse.Namespace], int]]:
    """The handler of each server command, by its name."""
    return {command.kind.command: functools.partial(cmd_server, command) for command in SERVER_COMMANDS}


def cmd_server(command: ServerCommand, args: argparse.Namespace) -> int:
    kind = command.kind
    home = home_path(args)
    root = driver_server.default_dir(kind, home) if args.dir is None else args.dir
    if args.action == "start":
        carried = carried_settings(settings_from_options(args))
        driver = [sys.executable, "-m", command.driver_module, "--home", home, "--settings", dumps(carried)]
        found = driver_server.start(kind, root, home, driver, port=args.port, host=args.host)
    elif args.action == "status":
        found = driver_server.status(kind, root)
    else:
        was = driver_server.stop(kind, root)
        out({"running": "stopped", "starting": "stopped while starting", "died": "had died (its state cleared)",
             "stopped": "not running"}[was])
        return EXIT_OK
    print_status(command, found, as_json=args.json)
    return EXIT_OK if found.running else EXIT_FAILED


def print_status(command: ServerCommand, found: ServerStatus, *, as_json: bool) -> None:
    if as_json:
        out(dumps(found.as_dict()))
        return
    server = found.server
    if server is None:
        out(f"not running (dir {found.root})")
        return
    out(f"{command.title}: {server.url}  ({found.state})")
    out(f"  home       {server.home}")
    out(f"  dir        {found.root}  (pid {server.pid}, log {server.log_path})")
    if found.ready.get("start_seconds") is not None:
        out(f"  started in {found.ready['start_seconds']:.1f} s")
    if found.state == "died":
        out("  the driver is gone without `stop`; the next `start` recovers the home. Its log ends:")
        for line in found.tail.splitlines()[-8:]:
            out(f"    {line}")
