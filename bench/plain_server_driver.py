"""Plain Spark's Thrift or Connect server for bench/test_thrift_server.py and bench/test_connect_server.py:
``python -m bench.plain_server_driver WORKDIR PORT thrift|connect [METASTORE_URI WAREHOUSE]``. An embedded session
without the extension (or, given a metastore service, a session of that service: another team's server on the same
catalog, tests/production/test_outside_writers_over_jdbc.py),
Spark's ``HiveThriftServer2`` or ``SparkConnectService`` started in it as ``ddl-log thrift-server`` / ``ddl-log
connect-server`` start theirs; it prints ``serving`` once it accepts connections and runs until it is killed."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from ddl_log.frontends.cli.connect_driver import connect_settings, start_connect_service
from ddl_log.frontends.cli.thrift_driver import server_settings, start_hive_thrift_server
from storage.catalogs.spark.profile import jvm_of
from storage.catalogs.spark.session import embedded_session, service_session

SERVERS = {"thrift": (server_settings, start_hive_thrift_server), "connect": (connect_settings, start_connect_service)}


def main(workdir: Path, port: int, server: str, service: tuple[str, str] | None = None) -> int:
    settings, start = SERVERS[server]
    extra = settings("127.0.0.1", port)
    spark = embedded_session(workdir, extra=extra) if service is None else \
        service_session(workdir, service[0], service[1], extra=extra)
    jvm = jvm_of(spark)
    assert jvm is not None
    start(jvm)
    print("serving", flush=True)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    joined = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else None
    raise SystemExit(main(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], joined))
