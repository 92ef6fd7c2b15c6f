"""The Spark Connect server of a DDL log home (``ddl-log connect-server start|status|stop``): Spark Connect's gRPC
protocol (``SparkSession.builder.remote("sc://host:port")``) served by a background PySpark driver that holds the
home (:mod:`ddl_log.ops.driver_server` launches, tracks and stops it)."""

from __future__ import annotations

from ddl_log.ops.driver_server import ServerKind
from ddl_log.ops.errors import ConnectServerError

CONNECT_SERVER = ServerKind("connect-server", "sc://{host}:{port}", ConnectServerError)
