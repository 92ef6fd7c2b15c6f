"""The Thrift server's driver: ``python -m ddl_log.frontends.extension.thrift_driver --home H --state-dir=DIR
--port=P --host=HOST [--settings JSON]``, launched in the background by ``ddl-log thrift-server start``
(:mod:`ddl_log.ops.thrift_server` tracks it).

It builds a Spark session with the home's session settings (what ``ddl-log session-conf`` prints) and HiveServer2's
address, attaches it to the home (the home's lock, recovery first) and starts Spark's own Thrift server inside it
(``HiveThriftServer2.startWithContext``, from pyspark's jars). The server makes one Spark session per client
connection (``newSession``: the extension is in each, and the attached engine gives each a runner of its own,
:mod:`.sessions`) and runs its statements there: what the log routes runs through the home's engine in this
process, serialised with every other statement on the same objects by the log's locks; the rest is Spark's.

SIGTERM or SIGINT stops the server, closes the home and stops Spark, in that order. A server that stops serving on
its own (its JVM gone) ends the driver with exit code 1, so that ``status`` says it died.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import sys
import threading
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ddl_log.frontends.extension.attachment import attach
from ddl_log.frontends.extension.conf import jar_path, session_conf
from ddl_log.ops.processes import accepts, write_json
from ddl_log.ops.thrift_server import ERROR_PREFIX, MARKER_OPTION, READY_FILE
from ddl_log.settings import Settings
from storage.catalogs.spark.profile import Jvm, jvm_of
from storage.records.home import is_database_url

CHECK_SECONDS = 5.0
"""How often the driver checks that its server still accepts connections."""
MISSED_CHECKS = 3
"""Checks missed in a row after which the server counts as gone."""


def server_settings(host: str, port: int) -> dict[str, str]:
    """HiveServer2's address, as Spark settings (its Hive configuration is built from the session's Hadoop one)."""
    return {"spark.hadoop.hive.server2.thrift.bind.host": host, "spark.hadoop.hive.server2.thrift.port": str(port),
            "spark.hadoop.hive.server2.transport.mode": "binary"}


def server_session(home: str, settings: Settings, carried: dict[str, Any], state_dir: Path, host: str,
                   port: int) -> Any:
    """The driver's Spark session: the home's session settings (extension, home, catalog) and the server's address,
    on the embedded session's quiet defaults (Spark's log under the home, or under ``state_dir`` for a database
    home, no web UI)."""
    from storage.catalogs.spark.session import embedded_session, service_session

    conf = session_conf(home, settings, carried)
    conf.pop("spark.driver.extraJavaOptions", None)  # the embedded session's own say where Derby and the log write
    extra = {**conf, **server_settings(host, port)}
    if settings.metastore_uri is None:
        return embedded_session(Path(home), settings.spark_master, extra=extra)
    scratch = state_dir if is_database_url(home) else Path(home)
    return service_session(scratch, settings.metastore_uri, settings.warehouse, settings.spark_master, extra=extra)


def start_server(spark: Any) -> Any:
    """Spark's Thrift server, started in ``spark``'s driver on its context: the JVM ``HiveThriftServer2`` (the
    extension's classes loaded first: :func:`load_extension_classes`)."""
    jvm = jvm_of(spark)
    if jvm is None:
        raise RuntimeError("a Spark Connect session cannot host the Thrift server")
    load_extension_classes(jvm.view)
    return start_hive_thrift_server(jvm)


def start_hive_thrift_server(jvm: Jvm) -> Any:
    """``HiveThriftServer2.startWithContext`` on the session's context (a session with the extension or without)."""
    server_class = functools.reduce(getattr, jvm.classes.hive_thrift_server.split("."), jvm.view)
    return server_class.startWithContext(jvm.session.sqlContext())


def load_extension_classes(view: Any) -> None:
    """Load every class of the extension's jar now. Closing a client's session, Hive closes the class loaders of
    that session's configuration, among them the one ``spark.jars`` put the extension's jar in: a class of it not
    loaded by then could never be loaded afterwards (measured: ``NoClassDefFoundError: spark_ddl_log/Failures`` for
    the first refused statement after a client disconnected). Loaded classes stay usable."""
    loader = view.java.lang.Thread.currentThread().getContextClassLoader()
    with zipfile.ZipFile(jar_path()) as jar:
        names = [entry[: -len(".class")].replace("/", ".") for entry in jar.namelist() if entry.endswith(".class")]
    for name in names:
        view.java.lang.Class.forName(name, False, loader)


def serve(args: argparse.Namespace) -> int:
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    began = time.monotonic()
    carried = json.loads(args.settings)
    settings = Settings.from_env(**carried)
    spark = server_session(args.home, settings, carried, args.state_dir, args.host, args.port)
    ddl = attach(spark, args.home)
    try:
        server = start_server(spark)
        try:
            write_json(args.state_dir / READY_FILE, {
                "pid": os.getpid(), "spark_version": str(spark.version),
                "start_seconds": round(time.monotonic() - began, 2),
                "recovery": [outcome.outcome for outcome in ddl.last_recovery.outcomes]})
            say(f"serving jdbc:hive2://{args.host}:{args.port}/default for {ddl.home.location}")
            code = wait(stopping, args.host, args.port)
        finally:
            server.stop()
    finally:
        ddl.close()
        spark.stop()
    say("stopped")
    return code


def wait(stopping: threading.Event, host: str, port: int) -> int:
    """Until told to stop (0), or until the server has stopped accepting connections (1)."""
    missed = 0
    while not stopping.wait(CHECK_SECONDS):
        missed = 0 if accepts(port, host) else missed + 1
        if missed >= MISSED_CHECKS:
            say_failed(f"the server stopped accepting connections on {host}:{port}")
            return 1
    return 0


def say(line: str) -> None:
    print(f"thrift-server: {line}", file=sys.stderr, flush=True)


def say_failed(reason: str) -> None:
    """The driver's last line when it fails: what ``start`` shows (``thrift_server.driver_error``)."""
    print(f"{ERROR_PREFIX} {reason}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="thrift_driver", description=__doc__)
    parser.add_argument("--home", required=True)
    parser.add_argument(MARKER_OPTION, dest="state_dir", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--settings", default="{}", help="the home's settings given explicitly, as JSON")
    args = parser.parse_args(argv)
    try:
        return serve(args)
    except Exception as error:  # noqa: BLE001 - one line for `start` to show; the traceback is in the log above
        import traceback

        traceback.print_exc()
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        say_failed(f"{type(error).__name__}: {first}")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
