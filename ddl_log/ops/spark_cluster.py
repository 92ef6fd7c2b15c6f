"""A Spark standalone cluster on this machine, from pyspark's own jars: ``ddl-log cluster start|status|stop``.

A master and N workers (``org.apache.spark.deploy.master.Master`` and ``...worker.Worker``, no Spark download), on
127.0.0.1, each a JVM in a session of its own so that they outlive the command that started them. A driver joins
with ``--spark-master spark://127.0.0.1:PORT`` (the ``spark_master`` setting); each application then gets executors
in JVMs of their own that the workers start, which write the data files themselves: the shape of a platform's
cluster, where a driver only coordinates. Every executor of this machine shares its file system, so a local warehouse
directory is shared; on several machines the warehouse must be on a file system all executors reach (README).

Everything lives in one directory (``--dir``)::

    dir/cluster.json        master and workers (pids, ports, sizes): what `status` and `stop` read
    dir/master.log          the master's log; dir/worker-N.log each worker's
    dir/work/worker-N/      each worker's executors: app-*/<executor id>/{stdout,stderr}
    dir/local/              executors' scratch space (shuffle, spills)

:func:`start` is idempotent: a running master keeps running and only missing workers are started again.
"""

from __future__ import annotations

import contextlib
import getpass
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from ddl_log.ops.errors import SparkClusterError
from ddl_log.ops.postgres import log_tail
from ddl_log.ops.processes import accepts, end_group, read_json, remove, runs_marked, write_json
from ddl_log.ops.server_ports import free_port

DIR_ENV = "DDL_LOG_CLUSTER_DIR"
JAVA_OPTIONS_ENV = "DDL_LOG_CLUSTER_JAVA_OPTS"
DEFAULT_JAVA_OPTIONS = "-Xmx256m"
"""Master and workers only schedule and launch executors: a small heap is plenty (executors are sized apart)."""
STATE_FILE = "cluster.json"
MARKER_PROPERTY = "ddl_log.cluster.dir"
HOST = "127.0.0.1"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
START_TIMEOUT = 180.0
"""Seconds the master and its workers may take to come up (a JVM each, on a busy 2-core machine)."""


def _path(value: Any) -> Path:
    return Path(value)


def _pids(value: Any) -> tuple[int, ...]:
    return tuple(int(pid) for pid in value)


@attrs.frozen
class SparkCluster:
    """A cluster started from ``root``: the master (RPC and web UI ports, pid) and its workers' pids, each worker
    offering ``cores`` cores and ``memory`` of executor memory."""

    root: Path = attrs.field(converter=_path)
    port: int
    ui_port: int
    master_pid: int
    workers: tuple[int, ...] = attrs.field(converter=_pids)
    cores: int = 1
    memory: str = "1g"
    start_seconds: float | None = None

    @property
    def url(self) -> str:
        """What a driver gives as its master (``--spark-master``)."""
        return f"spark://{HOST}:{self.port}"

    @property
    def ui_url(self) -> str:
        return f"http://{HOST}:{self.ui_port}"

    def as_dict(self) -> dict[str, Any]:
        fields = attrs.asdict(self)
        fields.update(url=self.url, ui_url=self.ui_url, workers=list(self.workers))
        return {key: str(value) if isinstance(value, Path) else value for key, value in fields.items()}

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> SparkCluster:
        names = {field.name for field in attrs.fields(cls)}
        return cls(**{key: value for key, value in fields.items() if key in names})


@attrs.frozen
class ClusterStatus:
    """What the master says now (its ``/json/`` page): workers alive, cores in use, applications."""

    cluster: SparkCluster
    alive_workers: int
    cores: int
    cores_used: int
    applications: tuple[dict[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return {**self.cluster.as_dict(), "alive_workers": self.alive_workers, "cores_total": self.cores,
                "cores_used": self.cores_used, "applications": list(self.applications)}


def default_dir() -> Path:
    """``$DDL_LOG_CLUSTER_DIR``, else ``<tmp>/ddl-log-cluster-<user>``."""
    given = os.environ.get(DIR_ENV)
    return Path(given) if given else Path(tempfile.gettempdir()) / f"ddl-log-cluster-{getpass.getuser()}"


def spark_home() -> Path:
    """The installed pyspark's directory: its ``jars`` are a Spark distribution's (what workers launch executors
    from), found without importing pyspark."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise SparkClusterError(Path("."), "pyspark is not installed")
    home = Path(spec.origin).resolve().parent
    if not any((home / "jars").glob("spark-core_*.jar")):
        raise SparkClusterError(home, "pyspark ships no Spark jars here")
    return home


def daemon_environment(home: Path, root: Path) -> dict[str, str]:
    """The environment of the master and workers. ``SPARK_HOME``: where a worker finds the jars of the executors it
    launches; ``SPARK_SCALA_VERSION``: Spark's launcher library needs it outside a full distribution (pip's pyspark
    has no RELEASE file; ``spark-class`` sets it the same way); ``SPARK_LOCAL_DIRS``: executors' scratch space in
    the cluster's directory."""
    scala = next((jar.name for jar in (home / "jars").glob("scala-library-*.jar")), "scala-library-2.13.jar")
    version = ".".join(scala.removeprefix("scala-library-").split(".")[:2])
    return {**os.environ, "SPARK_HOME": str(home), "SPARK_SCALA_VERSION": version,
            "SPARK_LOCAL_DIRS": str(root / "local")}


def java_options() -> list[str]:
    """``$DDL_LOG_CLUSTER_JAVA_OPTS`` (split on blanks) or a small heap."""
    return os.environ.get(JAVA_OPTIONS_ENV, DEFAULT_JAVA_OPTIONS).split()


def start(root: Path | None = None, *, workers: int = 2, cores: int = 1, memory: str = "1g",
          port: int | None = None, timeout: float = START_TIMEOUT) -> SparkCluster:
    """Start a master and ``workers`` workers of ``cores`` cores and ``memory`` each under ``root`` (default
    :func:`default_dir`), unless the master runs: then only the workers that are gone are started again. Returns
    once the master counts every worker alive. Raises :class:`SparkClusterError`."""
    if workers < 1 or cores < 1:
        raise SparkClusterError(Path(root or default_dir()), "a cluster needs at least one worker of one core")
    root = _prepare_dir(Path(root or default_dir()))
    if shutil.which("java") is None:
        raise SparkClusterError(root, "no Java runtime on PATH")
    home = spark_home()
    environment = daemon_environment(home, root)
    began = time.monotonic()
    cluster = read_state(root)
    if cluster is None or not master_alive(cluster):
        if cluster is not None:
            stop(root)
        cluster = _launch_master(root, home, environment, port or free_port(), free_port(), timeout)
        cluster = attrs.evolve(cluster, cores=cores, memory=memory)
    running = [pid for pid in cluster.workers if _alive(pid, root)]
    if len(running) >= workers and cluster.start_seconds is not None:
        return cluster  # everything runs
    launched: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}
    while len(running) < workers:
        index = len(list((root / "work").glob("worker-*"))) + 1  # a restarted worker gets a directory of its own
        popen, log_path = _launch_worker(cluster, home, environment, index, cores, memory)
        launched[popen.pid] = (popen, log_path)
        running.append(popen.pid)
        cluster = attrs.evolve(cluster, workers=tuple(running), cores=cores, memory=memory)
        _write_state(cluster)
    _wait_for_workers(cluster, len(running), timeout, launched)
    cluster = attrs.evolve(cluster, start_seconds=round(time.monotonic() - began, 2))
    _write_state(cluster)
    return cluster


def _prepare_dir(root: Path) -> Path:
    try:
        root.mkdir(parents=True, exist_ok=True)
        root = root.resolve()
        for sub in ("work", "local"):
            (root / sub).mkdir(exist_ok=True)
    except OSError as exc:
        raise SparkClusterError(root, f"cannot use the directory: {exc.strerror or exc}") from exc
    return root


def _java(home: Path, root: Path, main_class: str, *arguments: str) -> list[str]:
    return ["java", *java_options(), f"-D{MARKER_PROPERTY}={root}", "-cp", f"{home / 'jars'}/*", main_class,
            *arguments]


def _spawn(command: list[str], root: Path, log_path: Path, environment: dict[str, str]) -> subprocess.Popen[bytes]:
    with open(log_path, "ab") as log:
        return subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env=environment, start_new_session=True)


def _launch_master(root: Path, home: Path, environment: dict[str, str], port: int, ui_port: int,
                   timeout: float) -> SparkCluster:
    log_path = root / "master.log"
    popen = _spawn(_java(home, root, MASTER_CLASS, "--host", HOST, "--port", str(port), "--webui-port",
                         str(ui_port)), root, log_path, environment)
    cluster = SparkCluster(root, port, ui_port, popen.pid, ())
    _write_state(cluster)  # from now on `stop` finds it, even while it starts
    deadline = time.monotonic() + timeout
    while not (accepts(port) and _master_page(cluster) is not None):
        if popen.poll() is not None:
            remove(root / STATE_FILE)
            raise SparkClusterError(root, f"the master exited with {popen.returncode} before it listened (log: "
                                    f"{log_path})", log_tail(log_path))
        if time.monotonic() > deadline:
            stop(root)
            raise SparkClusterError(root, f"the master is not listening after {timeout:.0f} s (log: {log_path})",
                                    log_tail(log_path))
        time.sleep(0.2)
    return cluster


def _launch_worker(cluster: SparkCluster, home: Path, environment: dict[str, str], index: int, cores: int,
                   memory: str) -> tuple[subprocess.Popen[bytes], Path]:
    """The worker's process and its log."""
    work = cluster.root / "work" / f"worker-{index}"
    work.mkdir(parents=True, exist_ok=True)
    command = _java(home, cluster.root, WORKER_CLASS, cluster.url, "--host", HOST, "--cores", str(cores),
                    "--memory", memory, "--work-dir", str(work), "--webui-port", "0")
    log_path = cluster.root / f"worker-{index}.log"
    return _spawn(command, cluster.root, log_path, environment), log_path


def _wait_for_workers(cluster: SparkCluster, count: int, timeout: float,
                      launched: dict[int, tuple[subprocess.Popen[bytes], Path]]) -> None:
    """Until the master counts ``count`` workers alive. A worker that exits first fails the start with its own
    exit status (a signal names what ended it) and its own log's tail. A worker launched here is judged by its
    process handle, not by ``/proc``: a JVM just started can be read there without its arguments for a moment,
    which once failed a healthy start as "exited" (a CI run of 2026-11-29)."""
    deadline = time.monotonic() + timeout
    while True:
        page = _master_page(cluster)
        if page is not None and int(page.get("aliveworkers", 0)) >= count:
            return
        dead = [pid for pid in cluster.workers if _exited(pid, cluster.root, launched)]
        if dead or time.monotonic() > deadline:
            popen, log_path = launched.get(dead[0] if dead else -1, (None, cluster.root / "worker-1.log"))
            code = popen.poll() if popen is not None else None
            ended = "" if code is None else (f" with {code}" if code >= 0 else f" on signal {-code}")
            reason = (f"worker (pid {dead[0]}) exited{ended}" if dead else
                      f"{count} workers not registered after {timeout:.0f} s")
            stop(cluster.root)
            raise SparkClusterError(cluster.root, f"{reason} (log: {log_path})", log_tail(log_path))
        time.sleep(0.2)


def _exited(pid: int, root: Path, launched: dict[int, tuple[subprocess.Popen[bytes], Path]]) -> bool:
    """Whether a worker has ended: its exit status when this start launched it, else its ``/proc`` entry."""
    if pid in launched:
        return launched[pid][0].poll() is not None
    return not _alive(pid, root)


def _master_page(cluster: SparkCluster) -> dict[str, Any] | None:
    """The master's ``/json/`` page (workers, cores, applications), or None while it does not answer."""
    try:
        with urllib.request.urlopen(f"{cluster.ui_url}/json/", timeout=5) as response:
            page = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    return page if isinstance(page, dict) else None


def _alive(pid: int, root: Path) -> bool:
    return runs_marked(pid, f"-D{MARKER_PROPERTY}={root}")


def master_alive(cluster: SparkCluster) -> bool:
    """Whether the master's process runs: its pid exists and is the JVM started for this directory."""
    return _alive(cluster.master_pid, cluster.root)


def read_state(root: Path) -> SparkCluster | None:
    """The cluster recorded in ``root`` (running or not), or None."""
    fields = read_json(Path(root) / STATE_FILE)
    try:
        return None if fields is None else SparkCluster.from_dict(fields)
    except (TypeError, ValueError):
        return None


def _write_state(cluster: SparkCluster) -> None:
    write_json(cluster.root / STATE_FILE, cluster.as_dict())


def status(root: Path | None = None) -> ClusterStatus | None:
    """The cluster of ``root`` if its master runs and answers, with what the master says; else None."""
    cluster = read_state(Path(root or default_dir()).resolve())
    if cluster is None or not master_alive(cluster):
        return None
    page = _master_page(cluster)
    if page is None:
        return None
    applications = tuple({"id": app.get("id"), "name": app.get("name"), "cores": app.get("cores"),
                          "state": app.get("state")} for app in page.get("activeapps", []))
    return ClusterStatus(cluster, int(page.get("aliveworkers", 0)), int(page.get("cores", 0)),
                         int(page.get("coresused", 0)), applications)


def stop(root: Path | None = None) -> bool:
    """Stop the workers (each ends its executors) and then the master: SIGTERM to each process group, SIGKILL after
    a grace period. Returns whether anything was running."""
    root = Path(root or default_dir()).resolve()
    cluster = read_state(root)
    stopped = False
    if cluster is not None:
        for pid in (*cluster.workers, cluster.master_pid):
            if _alive(pid, root):
                end_group(pid, f"-D{MARKER_PROPERTY}={root}")
                stopped = True
    remove(root / STATE_FILE)
    return stopped


@contextlib.contextmanager
def running(root: Path, **options: Any) -> Iterator[SparkCluster]:
    """A cluster (see :func:`start`) for the ``with`` block; stopped however it ends."""
    try:
        yield start(root, **options)
    finally:
        stop(root)
