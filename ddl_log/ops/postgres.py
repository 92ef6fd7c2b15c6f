"""A local PostgreSQL cluster run from Debian's ``postgresql`` package, for ``make metastore``, tests and benchmarks.

A production platform brings its own PostgreSQL and gives its URL; this module starts one on loopback in a
directory of ours, so that a fresh machine (and CI) can run the production setup end to end. PostgreSQL refuses to
run as root, so when we are root the cluster's files belong to, and its processes run as, an unprivileged system
user (``postgres`` from the Debian package, else ``nobody``). The server runs in its own session, so it survives
the command that started it (``ddl-log metastore start``) and is stopped from the pid file PostgreSQL itself keeps.
Authentication is ``trust`` on 127.0.0.1 and a private socket directory only: a local cluster, not a shared one.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

from ddl_log.ops.errors import PostgresServerError
from ddl_log.ops.processes import runs_marked
from ddl_log.ops.server_ports import free_port

SUPERUSER = "postgres"
"""The cluster's superuser role (initdb -U), whatever OS user runs it."""
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
RUN_AS_CANDIDATES = ("postgres", "nobody")




@attrs.frozen
class PostgresServer:
    """A running local cluster: where it listens and where its files are."""

    root: Path
    port: int
    pid: int

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    @property
    def log_path(self) -> Path:
        return self.root / "postgres.log"

    def url(self, database: str = "postgres") -> str:
        """libpq URL (psycopg) of ``database`` on this cluster."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def jdbc_url(self, database: str) -> str:
        """JDBC URL (the metastore service's DataNucleus) of ``database`` on this cluster."""
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}?user={SUPERUSER}"


def bin_dir() -> Path:
    """Directory of ``initdb``/``postgres``: Debian keeps them off PATH under /usr/lib/postgresql/<major>/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    if not versions:
        raise PostgresServerError(Path("/usr/lib/postgresql"), "no PostgreSQL server installed (Debian: apt-get "
                                  "install postgresql)")
    return versions[-1].parent


def run_as() -> pwd.struct_passwd | None:
    """The OS user the cluster runs as: None (ourselves) unless we are root, which PostgreSQL refuses."""
    if os.geteuid() != 0:
        return None
    for name in RUN_AS_CANDIDATES:
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise PostgresServerError(Path("/"), "running as root and no unprivileged user to run PostgreSQL as")


def _owned_dir(path: Path, user: pwd.struct_passwd | None) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if user is not None:
        os.chown(path, user.pw_uid, user.pw_gid)


def _as_user(user: pwd.struct_passwd | None) -> dict[str, object]:
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [],
            "env": {**os.environ, "HOME": user.pw_dir, "USER": user.pw_name}}


def log_tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""


def check_reachable(root: Path, user: pwd.struct_passwd | None) -> None:
    """Refuse, with the directory to fix, a ``root`` the unprivileged user cannot reach (a 0700 parent such as
    /root or pytest's base directory): initdb would fail deep inside with "Permission denied"."""
    if user is None:
        return
    for parent in reversed(root.parents):
        info = parent.stat()
        if info.st_uid == user.pw_uid or info.st_mode & 0o001:
            continue
        if info.st_gid == user.pw_gid and info.st_mode & 0o010:
            continue
        raise PostgresServerError(root, f"user {user.pw_name!r} (PostgreSQL refuses to run as root) cannot enter "
                                  f"{parent}; put the cluster under a directory it can reach, such as /tmp or /var/lib")


def initialise(root: Path) -> None:
    """Create the cluster's files under ``root/data`` (once; an existing cluster is kept)."""
    root = Path(root).resolve()
    user = run_as()
    root.mkdir(parents=True, exist_ok=True)
    check_reachable(root, user)
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    data = root / "data"
    if (data / "PG_VERSION").exists():
        return
    _owned_dir(data, user)
    result = subprocess.run([str(bin_dir() / "initdb"), "-D", str(data), "-A", "trust", "-U", SUPERUSER,
                             "-E", "UTF8", "--no-instructions"],
                            capture_output=True, text=True, check=False, cwd=root, **_as_user(user))  # type: ignore[call-overload]
    if result.returncode != 0:
        raise PostgresServerError(root, f"initdb exited with {result.returncode}", result.stdout + result.stderr)


def start(root: Path, *, port: int | None = None, timeout: float = START_TIMEOUT) -> PostgresServer:
    """Start the cluster under ``root`` (initialising it first) on 127.0.0.1; returns once it accepts queries.

    Runs ``postgres`` in its own session so it outlives this process; :func:`stop` (or :func:`kill`) ends it."""
    root = Path(root).resolve()
    running = status(root)
    if running is not None:
        return running
    initialise(root)
    remove_stale_lock(root)
    user = run_as()
    _owned_dir(root / "socket", user)
    port = port or free_port()
    log_path = root / "postgres.log"
    with open(log_path, "ab") as log:
        if user is not None:
            os.chown(log_path, user.pw_uid, user.pw_gid)
        popen = subprocess.Popen(  # type: ignore[call-overload]
            [str(bin_dir() / "postgres"), "-D", str(root / "data"), "-p", str(port), "-k", str(root / "socket"),
             "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
            cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            **_as_user(user))
    server = PostgresServer(root, port, popen.pid)
    deadline = time.monotonic() + timeout
    while not accepts_queries(server):
        if popen.poll() is not None:
            raise PostgresServerError(root, f"postgres exited with {popen.returncode} before accepting connections",
                                      log_tail(log_path))
        if time.monotonic() > deadline:
            kill(root)
            raise PostgresServerError(root, f"not accepting connections after {timeout:.0f} s", log_tail(log_path))
        time.sleep(0.1)
    return server


def accepts_queries(server: PostgresServer) -> bool:
    import psycopg

    try:
        with psycopg.connect(server.url(), connect_timeout=2, autocommit=True) as connection:
            connection.execute("SELECT 1")
        return True
    except psycopg.OperationalError:
        return False


def _pid_and_port(root: Path) -> tuple[int, int] | None:
    """PostgreSQL's own ``postmaster.pid``: first line the pid, fourth the port; None when absent or stale.

    Stale means more than "no such pid": a killed server leaves the file behind, and its pid is soon another
    process's (or a thread's: Spark's JVMs use hundreds of ids). Signalling that pid would end an unrelated process,
    so the pid counts only while it runs ``postgres -D <root>/data``, the command :func:`start` gave it."""
    data = Path(root) / "data"
    try:
        lines = (data / "postmaster.pid").read_text(encoding="utf-8").splitlines()
        pid, port = int(lines[0]), int(lines[3])
    except (OSError, ValueError, IndexError):
        return None
    return (pid, port) if runs_marked(pid, str(data)) else None


def remove_stale_lock(root: Path) -> bool:
    """Remove a killed server's lock files (``data/postmaster.pid`` and the socket's ``.s.PGSQL.<port>.lock``) whose
    pid no longer runs ``postgres -D <root>/data``; True if one was removed. PostgreSQL's own check (``kill(pid,
    0)``) takes a zombie for a running postmaster and refuses to start ("lock file already exists"): a killed
    postmaster stays a zombie until its parent reaps it, which does not always happen at once (seen in CI: the
    restart after the PostgreSQL-died test failed so, on one file and then on the other). A file whose first line
    is not a pid (being written) is left alone."""
    data = str(Path(root) / "data")
    removed = False
    for lock in [Path(data) / "postmaster.pid", *sorted((Path(root) / "socket").glob(".s.PGSQL.*.lock"))]:
        try:
            pid = int(lock.read_text(encoding="utf-8").splitlines()[0])
        except (OSError, ValueError, IndexError):
            continue
        if runs_marked(pid, data):
            continue
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
        removed = True
    return removed


def status(root: Path) -> PostgresServer | None:
    """The cluster running under ``root``, or None."""
    root = Path(root).resolve()
    found = _pid_and_port(root)
    if found is None:
        return None
    server = PostgresServer(root, found[1], found[0])
    return server if accepts_queries(server) else None


def stop(root: Path, *, timeout: float = STOP_TIMEOUT) -> bool:
    """Fast shutdown (SIGINT: roll back sessions, checkpoint), SIGKILL of its group if it does not end in time.
    Returns whether a server was running."""
    found = _pid_and_port(Path(root).resolve())
    if found is None:
        return False
    pid = found[0]
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    if not _wait_gone(pid, root, timeout):
        kill(root)
    return True


def kill(root: Path) -> None:
    """SIGKILL the whole server (postmaster and backends): a crash, for tests; the next start recovers from WAL."""
    found = _pid_and_port(Path(root).resolve())
    if found is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(found[0], signal.SIGKILL)
    _wait_gone(found[0], root, STOP_TIMEOUT)


def _wait_gone(pid: int, root: Path, timeout: float) -> bool:
    """Whether the postmaster ``pid`` of ``root`` ended within ``timeout`` (its pid reused by another process
    counts as ended)."""
    data = str(Path(root).resolve() / "data")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if not runs_marked(pid, data):
            return True
        time.sleep(0.05)
    return False


def create_database(server: PostgresServer, name: str) -> str:
    """Create database ``name`` unless it exists; return its libpq URL."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(server.url(), autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return server.url(name)


@contextlib.contextmanager
def running(root: Path) -> Iterator[PostgresServer]:
    """A cluster for the ``with`` block (tests, benchmarks); stopped however the block ends."""
    server = start(root)
    try:
        yield server
    finally:
        stop(root)
