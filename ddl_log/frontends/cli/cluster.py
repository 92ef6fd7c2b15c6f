"""``ddl-log cluster start|status|stop``: a Spark standalone cluster on this machine (:mod:`ddl_log.ops.spark_cluster`),
which drivers join with ``--spark-master`` (the ``spark_master`` setting).

These commands never start a Spark driver: the master and the workers are JVMs of their own.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_OK, dumps, out
from ddl_log.ops.server_ports import port_argument

if TYPE_CHECKING:
    from ddl_log.ops.spark_cluster import ClusterStatus


def add_cluster_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ddl_log.ops.spark_cluster import DIR_ENV

    cluster = commands.add_parser(
        "cluster", help="start, inspect or stop a Spark standalone cluster on this machine",
        description="A Spark standalone master and workers (from pyspark's jars) whose executors run the drivers' "
                    "tasks in JVMs of their own; drivers join with --spark-master.")
    actions = cluster.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("start", "start the master and the workers (only the missing ones when it runs); print "
                                 "the master URL"),
                       ("status", "print the master URL, workers, cores and applications (exit 1 when not running)"),
                       ("stop", "stop the workers (with their executors) and the master")):
        action = actions.add_parser(name, help=text, description=text)
        action.add_argument("--dir", metavar="DIR", default=None,
                            help=f"the cluster's directory (env {DIR_ENV}, default /tmp/ddl-log-cluster-USER)")
        if name != "stop":
            action.add_argument("--json", action="store_true", help="one JSON object")
        if name == "start":
            action.add_argument("--workers", type=int, default=2, help="how many workers (default 2)")
            action.add_argument("--cores", type=int, default=1, help="cores each worker offers (default 1)")
            action.add_argument("--memory", default="1g", help="executor memory each worker offers (default 1g)")
            action.add_argument("--port", type=port_argument, default=None,
                                help="the master's port (default: a free one)")
        action.set_defaults(subparser=action)


def cmd_cluster(args: argparse.Namespace) -> int:
    from ddl_log.ops import spark_cluster

    if args.action == "start":
        spark_cluster.start(args.dir, workers=args.workers, cores=args.cores, memory=args.memory, port=args.port)
    elif args.action == "stop":
        out("stopped" if spark_cluster.stop(args.dir) else "not running")
        return EXIT_OK
    running = spark_cluster.status(args.dir)
    if running is None:
        root = args.dir or spark_cluster.default_dir()
        out(dumps({"running": False, "dir": str(root)}) if args.json else f"not running (dir {root})")
        return EXIT_FAILED
    print_cluster(running, as_json=args.json)
    return EXIT_OK


def print_cluster(status: ClusterStatus, *, as_json: bool) -> None:
    cluster = status.cluster
    if as_json:
        out(dumps({"running": True, **status.as_dict()}))
        return
    out(f"spark cluster: {cluster.url}")
    out(f"  workers    {status.alive_workers} alive of {len(cluster.workers)} ({cluster.cores} core(s) and "
        f"{cluster.memory} each); cores in use {status.cores_used} of {status.cores}")
    out(f"  web UI     {cluster.ui_url}")
    out(f"  dir        {cluster.root}  (master pid {cluster.master_pid}, log {cluster.root / 'master.log'})")
    if cluster.start_seconds is not None:
        out(f"  started in {cluster.start_seconds:.1f} s")
    for app in status.applications:
        out(f"  application {app['id']} ({app['name']}): {app['cores']} core(s), {app['state']}")
    out(f"ddl-log option: --spark-master {cluster.url}  (env DDL_LOG_SPARK_MASTER)")
