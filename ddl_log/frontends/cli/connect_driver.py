"""The Spark Connect server's driver: ``python -m ddl_log.frontends.cli.connect_driver --home H --state-dir=DIR
--port=P --host=HOST [--settings JSON]``, launched in the background by ``ddl-log connect-server start``
(:mod:`.hosting_driver` is the driver, this module the server it hosts).

Spark Connect's own gRPC service (``SparkConnectService.start``, from pyspark's ``spark-connect`` jar) in a session
attached to the home. Each Connect client session is a ``newSession`` of that session, so its ``spark.sql`` text
and the plans its DataFrame writes make reach the extension as a classic session's do; the writer calls themselves
run in this JVM (the Connect planner calls the JVM ``DataFrameWriter`` and ``DataFrameWriterV2``), not through the
Python patches a classic PySpark session gets (docs/connect-server.md says which are routed and which refused).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ddl_log.frontends.cli.hosting_driver import Hosted, main
from ddl_log.ops.connect_server import CONNECT_SERVER
from storage.catalogs.spark.profile import Jvm


def connect_settings(host: str, port: int) -> dict[str, str]:
    """The Connect service's address, as Spark settings (it reads them from the context's configuration)."""
    return {"spark.connect.grpc.binding.address": host, "spark.connect.grpc.binding.port": str(port)}


def connect_service(jvm: Jvm) -> Any:
    """The JVM ``SparkConnectService`` object (its static forwarders)."""
    return functools.reduce(getattr, jvm.classes.connect_service.split("."), jvm.view)


def start_connect_service(jvm: Jvm) -> Callable[[], None]:
    """``SparkConnectService.start`` on the session's context; returns how it stops (its default grace)."""
    service = connect_service(jvm)
    service.start(jvm.session.sparkContext())
    return lambda: service.stop(getattr(service, "stop$default$1")(), getattr(service, "stop$default$2")())


HOSTED = Hosted(CONNECT_SERVER, connect_settings, start_connect_service)


def run(argv: Sequence[str] | None = None) -> int:
    return main(HOSTED, argv)


if __name__ == "__main__":
    raise SystemExit(run())
