"""The Thrift server's driver: ``python -m ddl_log.frontends.cli.thrift_driver --home H --state-dir=DIR
--port=P --host=HOST [--settings JSON]``, launched in the background by ``ddl-log thrift-server start``
(:mod:`.hosting_driver` is the driver, this module the server it hosts).

Spark's own Thrift server (``HiveThriftServer2.startWithContext``, from pyspark's jars) in a session attached to the
home: one Spark session per JDBC connection, each attached.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ddl_log.frontends.cli.hosting_driver import Hosted, main
from ddl_log.ops.thrift_server import THRIFT_SERVER
from storage.catalogs.spark.profile import Jvm


def server_settings(host: str, port: int) -> dict[str, str]:
    """HiveServer2's address, as Spark settings (its Hive configuration is built from the session's Hadoop one)."""
    return {"spark.hadoop.hive.server2.thrift.bind.host": host, "spark.hadoop.hive.server2.thrift.port": str(port),
            "spark.hadoop.hive.server2.transport.mode": "binary"}


def start_hive_thrift_server(jvm: Jvm) -> Any:
    """``HiveThriftServer2.startWithContext`` on the session's context (a session with the extension or without)."""
    server_class = functools.reduce(getattr, jvm.classes.hive_thrift_server.split("."), jvm.view)
    return server_class.startWithContext(jvm.session.sqlContext())


def _started(jvm: Jvm) -> Callable[[], None]:
    server = start_hive_thrift_server(jvm)
    jvm.view.spark_ddl_log.ThriftListings.install(server)  # getTables/getColumns without the log's work tables
    return lambda: server.stop()


HOSTED = Hosted(THRIFT_SERVER, server_settings, _started)


def run(argv: Sequence[str] | None = None) -> int:
    return main(HOSTED, argv)


if __name__ == "__main__":
    raise SystemExit(run())
