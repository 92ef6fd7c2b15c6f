"""A server's driver: ``python -m ddl_log.frontends.extension.<thrift|connect>_driver --home H --state-dir=DIR
--port=P --host=HOST [--settings JSON]``, launched in the background by ``ddl-log thrift-server start`` or ``ddl-log
connect-server start`` (:mod:`ddl_log.ops.driver_server` tracks it). What both drivers share; a :class:`Hosted`
says which server runs in it.

It builds a Spark session with the home's session settings (what ``ddl-log session-conf`` prints) and the server's
address, attaches it to the home (the home's lock, recovery first) and starts the server inside it, on the
session's context. Both servers make one Spark session per client (``newSession`` of this one: the extension is in
each, and the attached engine gives each a runner of its own, :mod:`.sessions`) and run its statements there: what
the log routes runs through the home's engine in this process, serialised with every other statement on the same
objects by the log's locks; the rest is Spark's.

SIGTERM or SIGINT stops the server, closes the home and stops Spark, in that order. A server that stops serving on
its own (its JVM gone) ends the driver with exit code 1, so that ``status`` says it died.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ddl_log.frontends.extension.attachment import attach
from ddl_log.frontends.extension.conf import jar_path, session_conf
from ddl_log.ops.driver_server import MARKER_OPTION, READY_FILE, ServerKind
from ddl_log.ops.processes import accepts, write_json
from ddl_log.settings import Settings
from storage.catalogs.spark.profile import Jvm, jvm_of
from storage.records.home import is_database_url

CHECK_SECONDS = 5.0
"""How often the driver checks that its server still accepts connections."""
MISSED_CHECKS = 3
"""Checks missed in a row after which the server counts as gone."""


@attrs.frozen
class Hosted:
    """The server a driver hosts: its kind, its address as Spark settings (read when the session is built), and how
    it starts on the attached session's JVM (returning how it stops)."""

    kind: ServerKind
    settings: Callable[[str, int], dict[str, str]]
    start: Callable[[Jvm], Callable[[], None]]


def server_session(home: str, settings: Settings, carried: dict[str, Any], state_dir: Path,
                   extra: dict[str, str]) -> Any:
    """The driver's Spark session: the home's session settings (extension, home, catalog) and ``extra`` (the
    server's address), on the embedded session's quiet defaults (Spark's log under the home, or under ``state_dir``
    for a database home, no web UI)."""
    from storage.catalogs.spark.session import embedded_session, service_session

    conf = session_conf(home, settings, carried)
    conf.pop("spark.driver.extraJavaOptions", None)  # the embedded session's own say where Derby and the log write
    conf.update(extra)
    if settings.metastore_uri is None:
        return embedded_session(Path(home), settings.spark_master, extra=conf)
    scratch = state_dir if is_database_url(home) else Path(home)
    return service_session(scratch, settings.metastore_uri, settings.warehouse, settings.spark_master, extra=conf)


def hosting_jvm(spark: Any) -> Jvm:
    """The attached session's JVM, the extension's classes loaded first (:func:`load_extension_classes`)."""
    jvm = jvm_of(spark)
    if jvm is None:
        raise RuntimeError("a Spark Connect session cannot host a server")
    load_extension_classes(jvm.view)
    return jvm


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


def serve(hosted: Hosted, args: argparse.Namespace) -> int:
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    began = time.monotonic()
    carried = json.loads(args.settings)
    settings = Settings.from_env(**carried)
    spark = server_session(args.home, settings, carried, args.state_dir, hosted.settings(args.host, args.port))
    ddl = attach(spark, args.home)
    try:
        stop_server = hosted.start(hosting_jvm(spark))
        try:
            write_json(args.state_dir / READY_FILE, {
                "pid": os.getpid(), "spark_version": str(spark.version),
                "start_seconds": round(time.monotonic() - began, 2),
                "recovery": [outcome.outcome for outcome in ddl.last_recovery.outcomes]})
            say(hosted.kind, f"serving {hosted.kind.url(args.host, args.port)} for {ddl.home.location}")
            code = wait(hosted.kind, stopping, args.host, args.port)
        finally:
            stop_server()
    finally:
        ddl.close()
        spark.stop()
    say(hosted.kind, "stopped")
    return code


def wait(kind: ServerKind, stopping: threading.Event, host: str, port: int) -> int:
    """Until told to stop (0), or until the server has stopped accepting connections (1)."""
    missed = 0
    while not stopping.wait(CHECK_SECONDS):
        missed = 0 if accepts(port, host) else missed + 1
        if missed >= MISSED_CHECKS:
            say_failed(kind, f"the server stopped accepting connections on {host}:{port}")
            return 1
    return 0


def say(kind: ServerKind, line: str) -> None:
    print(f"{kind.command}: {line}", file=sys.stderr, flush=True)


def say_failed(kind: ServerKind, reason: str) -> None:
    """The driver's last line when it fails: what ``start`` shows (``driver_server.driver_error``)."""
    print(f"{kind.error_prefix} {reason}", file=sys.stderr, flush=True)


def main(hosted: Hosted, argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"{hosted.kind.command} driver", description=__doc__)
    parser.add_argument("--home", required=True)
    parser.add_argument(MARKER_OPTION, dest="state_dir", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--settings", default="{}", help="the home's settings given explicitly, as JSON")
    args = parser.parse_args(argv)
    try:
        return serve(hosted, args)
    except Exception as error:  # noqa: BLE001 - one line for `start` to show; the traceback is in the log above
        import traceback

        traceback.print_exc()
        say_failed(hosted.kind, failure_line(error))
        return 1


def failure_line(error: BaseException) -> str:
    """The error's first line and, for a JVM call's failure (Py4J's first line only names the method called), the
    JVM's innermost cause: what made it fail (a port taken meanwhile, a metastore gone)."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    line = f"{type(error).__name__}: {first}"
    cause = getattr(error, "java_exception", None)
    try:
        while cause is not None and cause.getCause() is not None:
            cause = cause.getCause()
        return line if cause is None else f"{line} (caused by {str(cause.toString()).splitlines()[0]})"
    except Exception:  # noqa: BLE001 - the JVM may be gone; the Python line still says which call failed
        return line
