"""The background JVMs of the operations room (the metastore service, a Spark cluster's master and workers): how one
is told apart from another process that got its pid, whether it listens, how it is ended, and the state file a
server keeps so that `status` and `stop` work from another process.

Each JVM carries ``-D<marker>=<directory>`` on its command line: a pid alone may have been reused since the state file
was written, the marker in ``/proc/<pid>/cmdline`` says it is still ours."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

from ddl_log.ops.hive_site import write_private

STOP_GRACE = 20.0
"""Seconds a process group gets after SIGTERM before SIGKILL."""


def runs_marked(pid: int, *markers: str) -> bool:
    """Whether ``pid`` runs (not a zombie) with every one of ``markers`` (``-Dname=value``, a directory) among its
    arguments. A pid read from a state file may name another process by now (or a thread of one: kill() of a
    thread id signals its whole process), so nothing signals a pid this has not confirmed."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return not is_zombie(stat) and all(marker.encode() in cmdline for marker in markers)


def is_zombie(stat: str) -> bool:
    """Whether ``/proc/PID/stat`` text is a process that has exited but was not reaped yet."""
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


def accepts(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts TCP connections at ``host:port`` (an IPv4 or IPv6 address, or a name)."""
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def end_group(pid: int, marker: str, grace: float = STOP_GRACE) -> None:
    """End the process group ``pid`` leads: SIGTERM, then SIGKILL once ``grace`` seconds have passed. Each signal
    only while ``pid`` still runs with ``marker``: once it has ended, its pid (and group id) may be another's."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not runs_marked(pid, marker):
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)  # our own child (tests) would stay a zombie
            if not runs_marked(pid, marker):
                return
            time.sleep(0.05)


def group_runs(pgid: int) -> bool:
    """Whether a live process (not a zombie) is still in the process group ``pgid``. While one is, the group id
    cannot be another's (Linux does not reuse a pid that names a live group), so signalling the group is safe."""
    for stat_path in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat = stat_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def end_leader(pid: int, marker: str, grace: float = STOP_GRACE) -> None:
    """End a driver that shuts down its own children (a PySpark driver and its JVM): SIGTERM to ``pid`` alone
    (while it runs with ``marker``), up to ``grace`` seconds for it and its process group to end, then SIGKILL to
    whatever is left of the group."""
    if runs_marked(pid, marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if not runs_marked(pid, marker) and not group_runs(pid):
            return
        time.sleep(0.1)
    if group_runs(pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


def read_json(path: Path) -> dict[str, Any] | None:
    """A state file's object, or None when it is missing or unreadable."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def write_json(path: Path, value: dict[str, Any]) -> None:
    """Replace a state file atomically, readable by its owner only (a URL in it may hold a password)."""
    partial = path.with_suffix(".tmp")
    write_private(partial, json.dumps(value, indent=2) + "\n")
    partial.replace(path)


def remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
