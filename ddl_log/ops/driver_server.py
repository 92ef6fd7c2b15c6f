"""A server hosted in a PySpark driver of a DDL log home, as a background process: what ``ddl-log thrift-server``
and ``ddl-log connect-server`` (``start|status|stop``) share; a :class:`ServerKind` says which server it is.

The server is a PySpark driver of its own (the command the caller gives: the attached-session front end's
``thrift_driver`` or ``connect_driver``), which holds the home (its lock, recovery first), serves its protocol
(HiveServer2's for JDBC and ODBC clients; Spark Connect's gRPC) and runs each client's statements in a Spark session
of its own, attached to the home. This module launches that driver, tells when it serves, reads its state from
another process and ends it; it never starts Spark itself. Everything lives in one directory (``--dir``, by default
``<home>/<the kind's command>``, e.g. ``<home>/thrift-server``)::

    dir/server.json   pid, host, port, home: written when the driver is launched (what `status` and `stop` read)
    dir/ready.json    written by the driver once the server accepts connections (how long it took, its recovery)
    dir/server.log    the driver's output (the JVM's console included)

A driver that dies (killed, crashed) leaves ``server.json`` behind: :func:`status` then says ``died``, with the
log's tail, until :func:`stop` clears it or :func:`start` starts a new one (whose attach recovers the home).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from ddl_log.ops.errors import DriverServerError, UnusableHostError
from ddl_log.ops.postgres import log_tail
from ddl_log.ops.processes import accepts, end_leader, read_json, remove, runs_marked, write_json
from ddl_log.ops.server_ports import bindable, free_port

STATE_FILE = "server.json"
READY_FILE = "ready.json"
LOG_FILE = "server.log"
MARKER_OPTION = "--state-dir"
"""The driver's option naming its directory: ``--state-dir=<dir>`` among its arguments tells our driver from another
process that got its pid."""
DEFAULT_HOST = "127.0.0.1"
START_TIMEOUT = 300.0
"""Seconds the driver may take to serve (a PySpark driver, its JVM, the home's recovery, on a busy machine)."""
STOP_GRACE = 60.0
"""Seconds the driver gets to stop the server, close the home and stop Spark before what is left is killed."""


def _path(value: Any) -> Path:
    return Path(value)


@attrs.frozen
class ServerKind:
    """Which server a driver hosts: ``command`` is the CLI command (also the default directory's name and the prefix
    of the driver's lines), ``url_format`` its clients' URL (``{host}``, ``{port}``), ``error`` the error it raises."""

    command: str
    url_format: str
    error: type[DriverServerError]

    @property
    def error_prefix(self) -> str:
        """How the driver's last line starts when it fails: the reason ``start`` shows."""
        return f"{self.command}: error:"

    def url(self, host: str, port: int) -> str:
        """The URL of ``host:port`` (an IPv6 address in brackets, as URLs write it)."""
        return self.url_format.format(host=f"[{host}]" if ":" in host else host, port=port)

    def fail(self, where: Path | str, reason: str, log_tail: str = "") -> DriverServerError:
        return self.error(where, reason, log_tail)


@attrs.frozen
class DriverServer:
    """A driver launched from ``root``: the home it holds, where it listens, its process (and process group)."""

    root: Path = attrs.field(converter=_path)
    home: str
    host: str
    port: int
    pid: int
    kind: ServerKind = attrs.field(eq=False, repr=False)

    @property
    def url(self) -> str:
        """The URL clients connect to (``beeline -u URL``, ``SparkSession.builder.remote(URL)``)."""
        return self.kind.url(self.host, self.port)

    @property
    def marker(self) -> str:
        return f"{MARKER_OPTION}={self.root}"

    @property
    def log_path(self) -> Path:
        return self.root / LOG_FILE

    def as_dict(self) -> dict[str, Any]:
        fields = attrs.asdict(self, filter=lambda field, _: field.name != "kind")
        fields.update(url=self.url, log=str(self.log_path))
        return {key: str(value) if isinstance(value, Path) else value for key, value in fields.items()}

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any], kind: ServerKind) -> DriverServer:
        names = {field.name for field in attrs.fields(cls)} - {"kind"}
        return cls(**{key: value for key, value in fields.items() if key in names}, kind=kind)


@attrs.frozen
class ServerStatus:
    """What :func:`status` finds: ``running`` (serving), ``starting``, ``died`` (launched, gone without ``stop``) or
    ``stopped`` (nothing launched); the server (None when stopped), what the driver wrote once it served, and for a
    dead one the tail of its log."""

    state: str
    root: Path = attrs.field(converter=_path)
    server: DriverServer | None = None
    ready: Mapping[str, Any] = attrs.field(factory=dict)
    tail: str = ""

    @property
    def running(self) -> bool:
        return self.state == "running"

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"running": self.running, "state": self.state, "dir": str(self.root)}
        if self.server is not None:
            found.update(self.server.as_dict())
        found.update({key: value for key, value in self.ready.items() if key not in found})
        if self.tail:
            found["log_tail"] = self.tail
        return found


def default_dir(kind: ServerKind, home: str) -> Path:
    """``<home>/<kind.command>`` for a directory home; a database home has no directory (give one)."""
    from storage.records.home import is_database_url

    if is_database_url(home):
        raise kind.fail(home, "a database home has no directory for the server: give one (--dir)")
    return Path(home) / kind.command


def start(kind: ServerKind, root: Path, home: str, command: Sequence[str], *, port: int | None = None,
          host: str = DEFAULT_HOST, timeout: float = START_TIMEOUT,
          env: Mapping[str, str] | None = None) -> ServerStatus:
    """Launch ``command`` (the driver, given ``--state-dir``, ``--port`` and ``--host`` too) for ``home`` unless a
    driver of ``root`` runs; return once it serves. A driver that exits or does not serve within ``timeout`` leaves
    nothing behind (ended, its state removed): the kind's error with its log's tail."""
    root = _prepare_dir(kind, root)
    current = status(kind, root)
    if current.state in ("running", "starting") and current.server is not None:
        if port is not None and port != current.server.port:
            raise kind.fail(root, f"already {current.state} on port {current.server.port} (pid "
                            f"{current.server.pid}): stop it first")
        if current.running:
            return current
        return _wait_ready(current.server, None, timeout)
    try:
        taken = port is not None and not bindable(port, host)  # a port picked here is free already
        port = port or free_port(host)
    except UnusableHostError as error:
        raise kind.fail(root, f"{error} (--host)") from None
    if taken:
        raise kind.fail(root, f"port {port} on {host} is taken: give another (--port)")
    for name in (STATE_FILE, READY_FILE):
        remove(root / name)
    server = DriverServer(root, home, host, port, 0, kind)
    arguments = [*command, server.marker, f"--port={port}", f"--host={host}"]
    with open(server.log_path, "ab") as log:
        popen = subprocess.Popen(arguments, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True, env=None if env is None else dict(env))
    server = attrs.evolve(server, pid=popen.pid)
    write_json(root / STATE_FILE, server.as_dict())  # from now on `stop` finds it, even while it starts
    return _wait_ready(server, popen, timeout)


def _prepare_dir(kind: ServerKind, root: Path) -> Path:
    try:
        root.mkdir(parents=True, exist_ok=True)
        return root.resolve()
    except OSError as exc:
        raise kind.fail(root, f"cannot use the directory: {exc.strerror or exc}") from exc


def _wait_ready(server: DriverServer, popen: subprocess.Popen[bytes] | None, timeout: float) -> ServerStatus:
    kind = server.kind
    deadline = time.monotonic() + timeout
    while True:
        found = status(kind, server.root)
        if found.running:
            return found
        # our own child is told by its exit status: until it has exec'd, its command line is still ours
        exited = popen.poll() is not None if popen is not None else found.state != "starting"
        if exited:
            remove(server.root / STATE_FILE)
            tail = log_tail(server.log_path)
            raise kind.fail(server.root, f"{driver_error(kind, tail) or 'the driver exited before serving'} (log: "
                            f"{server.log_path})", tail)
        if time.monotonic() > deadline:
            end_leader(server.pid, server.marker)
            remove(server.root / STATE_FILE)
            raise kind.fail(server.root, f"not serving on port {server.port} after {timeout:.0f} s (log: "
                            f"{server.log_path})", log_tail(server.log_path))
        time.sleep(0.25)


def driver_error(kind: ServerKind, log: str) -> str:
    """The driver's own one-line error (its last ``<command>: error: ...`` line), or ""."""
    prefix = kind.error_prefix
    lines = [line for line in log.splitlines() if line.startswith(prefix)]
    return lines[-1][len(prefix):].strip() if lines else ""


def read_state(kind: ServerKind, root: Path) -> DriverServer | None:
    """The driver recorded in ``root`` (running or not), or None."""
    fields = read_json(Path(root) / STATE_FILE)
    try:
        return None if fields is None else DriverServer.from_dict(fields, kind)
    except (TypeError, ValueError):
        return None


def status(kind: ServerKind, root: Path) -> ServerStatus:
    """What runs in ``root`` now (see :class:`ServerStatus`)."""
    root = Path(root).resolve()
    server = read_state(kind, root)
    if server is None:
        return ServerStatus("stopped", root)
    if not runs_marked(server.pid, server.marker):
        return ServerStatus("died", root, server, tail=log_tail(server.log_path, 1500))
    ready = read_json(root / READY_FILE) or {}
    if ready.get("pid") == server.pid and accepts(server.port, server.host):
        return ServerStatus("running", root, server, ready)
    return ServerStatus("starting", root, server)


def stop(kind: ServerKind, root: Path, grace: float = STOP_GRACE) -> str:
    """Stop the driver of ``root`` (SIGTERM: it stops the server, closes the home and stops Spark; what is left after
    ``grace`` seconds is killed) and clear its state. Returns what there was: ``running`` (or ``starting``),
    ``died`` or ``stopped``."""
    found = status(kind, root)
    if found.server is not None and found.state in ("running", "starting"):
        end_leader(found.server.pid, found.server.marker, grace)
    for name in (STATE_FILE, READY_FILE):
        remove(found.root / name)
    return found.state
