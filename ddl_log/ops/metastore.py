"""A Hive metastore Thrift service that many Spark drivers share: ``ddl-log metastore start|status|stop``.

It is the Hive 2.3 metastore that pyspark ships (``HiveMetaStore`` from its jars, no Hive install), backed by
embedded Derby (a quick start: one service, files in its directory) or PostgreSQL (production: a database the
operator gives as a URL, or a local cluster this module starts with :mod:`ddl_log.ops.postgres`). A PostgreSQL
database gets the metastore's tables before the service first starts (:mod:`ddl_log.ops.metastore_schema`);
on first start the service itself adds the ``default`` database (in its warehouse) and Hive's built-in roles.

Everything lives in one directory (``--dir``)::

    dir/service.json       pid, port, URI, warehouse, backend: what `status` and `stop` read from another process
    dir/conf/hive-site.xml the service's configuration (owner-only: the database URL may hold a password)
    dir/metastore.log      the service's output (and dir/hive.log, Hive's own log)
    dir/warehouse/         managed tables of ``default`` and of new databases (every driver must use the same)
    dir/postgres/          the local PostgreSQL cluster, when no database URL was given
    dir/metastore_db/      the Derby database (Derby backend)

The service runs in its own session, so it outlives the command that started it; :func:`stop` ends its process
group (and the local cluster). A driver joins with the settings of :attr:`MetastoreService.spark_settings`.
"""

from __future__ import annotations

import contextlib
import getpass
import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from ddl_log.ops import postgres
from ddl_log.ops.errors import MetastoreServiceError
from ddl_log.ops.hive_site import (
    PostgresDatabase,
    derby_settings,
    hive_site_xml,
    postgres_settings,
    service_settings,
    write_private,
)
from ddl_log.ops.metastore_schema import ensure_schema, java_options, jdbc_jar
from ddl_log.ops.postgres import log_tail
from ddl_log.ops.processes import accepts, end_group, read_json, remove, runs_marked, write_json
from ddl_log.ops.server_ports import free_port
from storage.catalogs.spark.service import service_settings as spark_service_settings

MAIN_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
BACKENDS = ("postgres", "derby")
DIR_ENV = "DDL_LOG_METASTORE_DIR"
STATE_FILE = "service.json"
LOCAL_DATABASE = "metastore"
"""The database the metastore uses in a local cluster this module starts."""
MARKER_PROPERTY = "ddl_log.metastore.dir"
"""A JVM system property naming the service's directory: tells our process from another that got its pid."""
START_TIMEOUT = 180.0
"""Seconds the service may take to accept connections (JVM start, and on Derby the schema, on a busy machine)."""




def _path(value: Any) -> Path:
    return Path(value)


def _optional_path(value: Any) -> Path | None:
    return None if value is None else Path(value)


@attrs.frozen
class MetastoreService:
    """A service started from ``root``: where it listens, its process (and process group), its backing database."""

    root: Path = attrs.field(converter=_path)
    port: int
    pid: int
    backend: str
    database: str
    """Where the metadata lives: a PostgreSQL URL (password hidden) or the Derby directory."""
    warehouse: Path = attrs.field(converter=_path)
    postgres_root: Path | None = attrs.field(default=None, converter=_optional_path)
    """The local PostgreSQL cluster started for this service (stopped with it); None for a given URL or Derby."""
    schema_seconds: float | None = None
    """Seconds the metastore schema took to create at this start; None when it existed (or on Derby)."""
    start_seconds: float | None = None
    """Seconds from launching the service to its port accepting connections."""

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.root / "metastore.log"

    @property
    def spark_settings(self) -> dict[str, str]:
        """What a Spark driver sets to use this service's catalog and warehouse."""
        return spark_service_settings(self.uri, self.warehouse)

    def as_dict(self) -> dict[str, Any]:
        fields = attrs.asdict(self)
        fields.update(uri=self.uri, spark_settings=self.spark_settings)
        return {k: str(v) if isinstance(v, Path) else v for k, v in fields.items()}

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> MetastoreService:
        names = {field.name for field in attrs.fields(cls)}
        return cls(**{k: v for k, v in fields.items() if k in names})


def default_dir() -> Path:
    """``$DDL_LOG_METASTORE_DIR``, else ``<tmp>/ddl-log-metastore-<user>``: under /tmp so that the unprivileged user
    a local PostgreSQL runs as (when we are root) can reach it."""
    given = os.environ.get(DIR_ENV)
    return Path(given) if given else Path(tempfile.gettempdir()) / f"ddl-log-metastore-{getpass.getuser()}"


def pyspark_jars() -> Path:
    """The ``jars`` directory of the installed pyspark (the Hive 2.3 metastore, DataNucleus, Derby), found without
    importing pyspark."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise MetastoreServiceError(Path("."), "pyspark is not installed")
    jars = Path(spec.origin).resolve().parent / "jars"
    if not any(jars.glob("hive-metastore-*.jar")):
        raise MetastoreServiceError(jars, "pyspark ships no hive-metastore jar here")
    return jars


def start(root: Path | None = None, *, backend: str = "postgres", postgres_url: str | None = None,
          port: int | None = None, timeout: float = START_TIMEOUT) -> MetastoreService:
    """Start the service of ``root`` (default :func:`default_dir`) unless it runs; return once it accepts
    connections. ``postgres_url``: the database to use (libpq or JDBC URL), else a local cluster under
    ``root/postgres``. Raises :class:`MetastoreServiceError` (or the schema's / the cluster's error)."""
    if backend not in BACKENDS:
        raise MetastoreServiceError(Path(root or default_dir()), f"unknown backend {backend!r} (one of {BACKENDS})")
    if postgres_url is not None and backend != "postgres":
        raise MetastoreServiceError(Path(root or default_dir()), "a PostgreSQL URL needs the postgres backend")
    root = _prepare_dir(Path(root or default_dir()))
    running = status(root)
    if running is not None:
        if running.backend != backend:
            raise MetastoreServiceError(root, f"already running on {running.backend} (pid {running.pid}); stop it "
                                        "first")
        return running
    if shutil.which("java") is None:
        raise MetastoreServiceError(root, "no Java runtime on PATH")
    jars = pyspark_jars()
    started_postgres: Path | None = None
    try:
        if backend == "derby":
            database, label, schema_seconds = derby_settings(root), str(root / "metastore_db"), None
        else:
            if postgres_url is None:
                started_postgres = root / "postgres"
                server = postgres.start(started_postgres)
                postgres_url = postgres.create_database(server, LOCAL_DATABASE)
            target = PostgresDatabase.of(postgres_url)
            jdbc_jar()  # before the schema step: the same message whichever step needs it first
            schema_seconds = ensure_schema(target, root, jars)
            database, label = postgres_settings(target), target.shown
        service = _launch(root, jars, backend, database, label, port or free_port(), started_postgres, timeout)
    except BaseException:
        if started_postgres is not None:
            postgres.stop(started_postgres)
        raise
    service = attrs.evolve(service, schema_seconds=schema_seconds)
    _write_state(service)
    return service


def _prepare_dir(root: Path) -> Path:
    try:
        if not root.exists():
            root.mkdir(parents=True)
            root.chmod(0o755)  # a local PostgreSQL cluster's user must reach root/postgres
        root = root.resolve()
        (root / "warehouse").mkdir(exist_ok=True)
        (root / "conf").mkdir(exist_ok=True)
    except OSError as exc:
        raise MetastoreServiceError(root, f"cannot use the directory: {exc.strerror or exc}") from exc
    return root


def _launch(root: Path, jars: Path, backend: str, database: dict[str, str], label: str, port: int,
            postgres_root: Path | None, timeout: float) -> MetastoreService:
    warehouse = root / "warehouse"
    write_private(root / "conf" / "hive-site.xml", hive_site_xml(service_settings(database, warehouse)))
    classpath = f"{jars}/*:{root / 'conf'}" + (f":{jdbc_jar()}" if backend == "postgres" else "")
    command = ["java", *java_options(), f"-D{MARKER_PROPERTY}={root}", f"-Dhive.log.dir={root}",
               f"-Dderby.system.home={root}", f"-Dderby.stream.error.file={root / 'derby.log'}",
               "-cp", classpath, MAIN_CLASS, "-p", str(port),
               "--hiveconf", "hive.async.log.enabled=false"]  # else it dies on a log4j class pyspark lacks
    log_path = root / "metastore.log"
    began = time.monotonic()
    with open(log_path, "ab") as log:
        popen = subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
    service = MetastoreService(root, port, popen.pid, backend, label, warehouse, postgres_root)
    _write_state(service)  # from now on `stop` finds it, even while it starts
    deadline = time.monotonic() + timeout
    while not accepts(port):
        if popen.poll() is not None:
            _remove_state(root)
            raise MetastoreServiceError(root, f"exited with {popen.returncode} before accepting connections (log: "
                                        f"{log_path})", log_tail(log_path))
        if time.monotonic() > deadline:
            end_group(popen.pid, f"-D{MARKER_PROPERTY}={root}")
            _remove_state(root)
            raise MetastoreServiceError(root, f"port {port} not accepting after {timeout:.0f} s (log: {log_path})",
                                        log_tail(log_path))
        time.sleep(0.2)
    return attrs.evolve(service, start_seconds=round(time.monotonic() - began, 2))


def read_state(root: Path) -> MetastoreService | None:
    """The service recorded in ``root`` (running or not), or None."""
    fields = read_json(Path(root) / STATE_FILE)
    try:
        return None if fields is None else MetastoreService.from_dict(fields)
    except (TypeError, ValueError):
        return None


def _write_state(service: MetastoreService) -> None:
    write_json(service.root / STATE_FILE, service.as_dict())


def _remove_state(root: Path) -> None:
    remove(root / STATE_FILE)


def is_alive(service: MetastoreService) -> bool:
    """Whether the service's process runs: its pid exists and is the JVM started for this directory."""
    return runs_marked(service.pid, f"-D{MARKER_PROPERTY}={service.root}")


def status(root: Path | None = None) -> MetastoreService | None:
    """The service of ``root`` if it runs and accepts connections, else None."""
    service = read_state(Path(root or default_dir()).resolve())
    if service is None or not is_alive(service) or not accepts(service.port):
        return None
    return service


def stop(root: Path | None = None) -> bool:
    """Stop the service of ``root`` (SIGTERM to its process group, SIGKILL after a grace period) and the local
    PostgreSQL cluster it started. Returns whether anything was running."""
    root = Path(root or default_dir()).resolve()
    service = read_state(root)
    stopped = False
    if service is not None and is_alive(service):
        end_group(service.pid, f"-D{MARKER_PROPERTY}={service.root}")
        stopped = True
    _remove_state(root)
    local = service.postgres_root if service is not None else None
    return postgres.stop(local or root / "postgres") or stopped


@contextlib.contextmanager
def running(root: Path, **options: Any) -> Iterator[MetastoreService]:
    """A service (see :func:`start`) for the ``with`` block; stopped, with its local cluster, however it ends."""
    try:
        yield start(root, **options)
    finally:
        stop(root)
