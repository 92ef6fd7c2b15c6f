"""A Hive metastore Thrift service for tests, run from the jars pyspark ships, backed by embedded Derby.

Several Spark drivers on one service share one catalog, which is what a reader in another driver needs: the test
starts the service, points each driver at it with :func:`spark_settings`, and stops it afterwards. The service runs
in its own process group, so stopping it (terminate, then kill) also takes any child with it; use
:func:`metastore_service` (a context manager) so that a failing test never leaves a JVM behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from xml.sax.saxutils import escape

import attrs

from storage.errors import DDLLogError

MAIN_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
START_TIMEOUT = 180.0
"""Seconds the service may take to accept connections (JVM start and Derby schema creation on a busy machine)."""
STOP_GRACE = 20.0
"""Seconds between SIGTERM and SIGKILL when stopping."""


class MetastoreServiceError(DDLLogError):
    """The metastore service could not start (or died); the message names its directory and ends with its log."""

    def __init__(self, root: Path, reason: str, log_tail: str = "") -> None:
        super().__init__(f"metastore service in {root}: {reason}" + (f"\n--- service log tail ---\n{log_tail}"
                                                                      if log_tail else ""))
        self.root = root
        self.reason = reason


@attrs.frozen
class MetastoreService:
    """A running service: where it listens, its process (also its process group), and its files."""

    port: int
    pid: int
    root: Path
    warehouse: Path
    conf_dir: Path
    log_path: Path

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"


def pyspark_jars() -> Path:
    """The ``jars`` directory of the installed pyspark (the Hive 2.3 metastore and Derby are among them)."""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    if not (jars / f"hive-metastore-{_hive_version(jars)}.jar").exists():
        raise MetastoreServiceError(jars, "pyspark ships no hive-metastore jar")
    return jars


def _hive_version(jars: Path) -> str:
    found = sorted(jars.glob("hive-metastore-*.jar"))
    return found[0].name.removeprefix("hive-metastore-").removesuffix(".jar") if found else "?"


def hive_site(root: Path) -> str:
    """The ``hive-site.xml`` of a service under ``root``: Derby database and warehouse there, schema made lazily."""
    settings = {
        "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={root / 'metastore_db'};create=true",
        "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
        "hive.metastore.warehouse.dir": str(root / "warehouse"),
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
    }
    properties = "".join(f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
                         for k, v in settings.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{properties}</configuration>\n'


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def log_tail(path: Path, chars: int = 4000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""


class MetastoreProcess:
    """The service's process; :meth:`stop` is idempotent and waits until the whole process group is gone."""

    def __init__(self, service: MetastoreService, popen: subprocess.Popen[bytes]) -> None:
        self.service = service
        self._popen = popen

    def alive(self) -> bool:
        return self._popen.poll() is None

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, STOP_GRACE)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.service.pid, sig)
            try:
                self._popen.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.service.pid, signal.SIGKILL)  # any child left in the group


def start_metastore(root: Path, *, port: int | None = None, timeout: float = START_TIMEOUT) -> MetastoreProcess:
    """Start a service whose Derby database, warehouse, configuration and log live under ``root``; returns once its
    port accepts connections. Raises :class:`MetastoreServiceError` (with the log's tail) if it dies or times out."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise MetastoreServiceError(root, "no Java runtime")
    root = Path(root).resolve()
    if ";" in str(root):
        raise MetastoreServiceError(root, "Derby URLs cannot name a directory whose path holds ';'")
    conf_dir, warehouse = root / "conf", root / "warehouse"
    conf_dir.mkdir(parents=True, exist_ok=True)
    warehouse.mkdir(exist_ok=True)
    (conf_dir / "hive-site.xml").write_text(hive_site(root), encoding="utf-8")
    port = port or free_port()
    java = str(Path(os.environ["JAVA_HOME"]) / "bin" / "java") if os.environ.get("JAVA_HOME") else "java"
    command = [java, "-Xmx512m", f"-Dderby.system.home={root}", f"-Dderby.stream.error.file={root / 'derby.log'}",
               "-cp", f"{pyspark_jars()}/*:{conf_dir}", MAIN_CLASS, "-p", str(port),
               "--hiveconf", "hive.async.log.enabled=false"]
    log_path = root / "metastore.log"
    with open(log_path, "ab") as log:
        popen = subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
    process = MetastoreProcess(MetastoreService(port, popen.pid, root, warehouse, conf_dir, log_path), popen)
    try:
        deadline = time.monotonic() + timeout
        while not accepts(port):
            if not process.alive():
                raise MetastoreServiceError(root, f"exited with {popen.returncode} before accepting connections",
                                            log_tail(log_path))
            if time.monotonic() > deadline:
                raise MetastoreServiceError(root, f"port {port} not accepting after {timeout:.0f} s",
                                            log_tail(log_path))
            time.sleep(0.25)
    except BaseException:
        process.stop()
        raise
    return process


@contextlib.contextmanager
def metastore_service(root: Path, *, timeout: float = START_TIMEOUT) -> Iterator[MetastoreService]:
    """A running service for the ``with`` block; stopped (process group killed) however the block ends."""
    process = start_metastore(root, timeout=timeout)
    try:
        yield process.service
    finally:
        process.stop()


def spark_settings(service: MetastoreService) -> dict[str, str]:
    """What a Spark driver needs to use the service's catalog (and the same warehouse directory)."""
    return settings_for(service.uri, service.warehouse)


def settings_for(uri: str, warehouse: Path | str) -> dict[str, str]:
    """:func:`spark_settings` from the service's address and warehouse alone (what a driver subprocess is given)."""
    return {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.hive.metastore.uris": uri,
        "spark.sql.warehouse.dir": str(warehouse),
    }
