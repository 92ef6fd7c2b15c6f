"""``ddl-log metastore start|status|stop``: the shared Hive metastore service (:mod:`ddl_log.ops.metastore`),
and the ``--metastore-uri``/``--warehouse`` options by which ``sql`` and ``recover`` join such a service.

These commands never start Spark: the service is a JVM of its own, and PostgreSQL a server of its own.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_OK, dumps, out
from ddl_log.ops.server_ports import port_argument

if TYPE_CHECKING:
    from ddl_log.ops.metastore import MetastoreService


def add_metastore_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ddl_log.ops.metastore import BACKENDS, DIR_ENV

    metastore = commands.add_parser(
        "metastore", help="start, inspect or stop a shared Hive metastore service (PostgreSQL or Derby)",
        description="A Hive metastore Thrift service (from pyspark's jars) that many Spark drivers share.")
    actions = metastore.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("start", "start the service (creating the PostgreSQL schema first); print its settings"),
                       ("status", "print the running service's URI and settings (exit 1 when not running)"),
                       ("stop", "stop the service, and the local PostgreSQL cluster it started")):
        action = actions.add_parser(name, help=text, description=text)
        action.add_argument("--dir", metavar="DIR", default=None,
                            help=f"the service's directory (env {DIR_ENV}, default /tmp/ddl-log-metastore-USER)")
        if name != "stop":
            action.add_argument("--json", action="store_true", help="one JSON object")
        if name == "start":
            action.add_argument("--backend", choices=BACKENDS, default="postgres",
                                help="where the metadata lives (default postgres)")
            action.add_argument("--postgres-url", metavar="URL", default=None,
                                help="an existing PostgreSQL database (postgresql://... or jdbc:postgresql://...) "
                                     "instead of a local cluster under DIR/postgres")
            action.add_argument("--port", type=port_argument, default=None,
                                help="the Thrift port (default: a free one)")
        action.set_defaults(subparser=action)


def cmd_metastore(args: argparse.Namespace) -> int:
    from ddl_log.ops import metastore

    if args.action == "start":
        service = metastore.start(args.dir, backend=args.backend, postgres_url=args.postgres_url, port=args.port)
        print_service(service, as_json=args.json)
        return EXIT_OK
    if args.action == "status":
        running = metastore.status(args.dir)
        if running is None:
            root = args.dir or metastore.default_dir()
            out(dumps({"running": False, "dir": str(root)}) if args.json else f"not running (dir {root})")
            return EXIT_FAILED
        print_service(running, as_json=args.json)
        return EXIT_OK
    out("stopped" if metastore.stop(args.dir) else "not running")
    return EXIT_OK


def print_service(service: MetastoreService, *, as_json: bool) -> None:
    if as_json:
        out(dumps({"running": True, **service.as_dict()}))
        return
    out(f"metastore service: {service.uri}")
    out(f"  backend    {service.backend}  {service.database}")
    out(f"  warehouse  {service.warehouse}")
    out(f"  dir        {service.root}  (pid {service.pid}, log {service.log_path})")
    if service.schema_seconds is not None:
        out(f"  schema     created in {service.schema_seconds:.1f} s")
    out("Spark settings for a driver on this service:")
    for key, value in service.spark_settings.items():
        out(f"  --conf {key}={value}")
    out(f"ddl-log options: --metastore-uri {service.uri} --warehouse {service.warehouse}")
