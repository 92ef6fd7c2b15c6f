"""The Spark Thrift server of a DDL log home (``ddl-log thrift-server start|status|stop``): HiveServer2's protocol
(JDBC and ODBC clients, beeline, PyHive, dbt-spark's ``thrift`` method) served by a background PySpark driver that
holds the home (:mod:`ddl_log.ops.driver_server` launches, tracks and stops it)."""

from __future__ import annotations

from ddl_log.ops.driver_server import ServerKind
from ddl_log.ops.errors import ThriftServerError

THRIFT_SERVER = ServerKind("thrift-server", "jdbc:hive2://{host}:{port}/default", ThriftServerError)
