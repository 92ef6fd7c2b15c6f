"""Every temporary file of a test run on a RAM-backed file system (tmpfs) when the machine has one.

The crash tests simulate a process dying (an exception, or SIGKILL of a subprocess with its JVM). The kernel's page
cache outlives a process, so whether a write reached the disk is never observable to them; what they prove is that
the code gets to each write, fsync and crash point in the right order. On a disk every fsync waits for the device:
the DDL log's own (a file-store recovery sweep makes ~18,000: 58 of its 80 s), Derby's on every metastore commit,
PostgreSQL's on every test cluster's commit; on tmpfs the same calls return at once (the unit tests: 445 -> 140 s).
Same code, same calls, same assertions: only the wait goes.

:func:`use_ram_for_temporary_files` points ``TMPDIR`` (inherited by the xdist workers and every process a test
starts: drivers, CLI runs, servers) and Python's :mod:`tempfile` at this user's directory on ``/dev/shm``, so
pytest's ``tmp_path`` and every ``tempfile.mkdtemp`` land there; where no tmpfs is writable nothing changes.
pytest removes a passing test's directory (``tmp_path_retention_policy = "failed"`` in pyproject.toml), so the run
leaves only failed tests' files in memory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

RAM_FILE_SYSTEM = Path("/dev/shm")


def ram_root() -> Path | None:
    """This user's directory on the RAM file system, made on first use; None when there is none to write. Mode
    0755: a test PostgreSQL cluster runs as an unprivileged user (when we are root) and must reach its directory."""
    if not (RAM_FILE_SYSTEM.is_dir() and os.access(RAM_FILE_SYSTEM, os.W_OK | os.X_OK)):
        return None
    root = RAM_FILE_SYSTEM / f"spark-ddl-log-tests-{os.getuid()}"
    try:
        root.mkdir(mode=0o755, exist_ok=True)
    except OSError:
        return None
    if root.is_symlink() or root.stat().st_uid != os.getuid():
        return None
    root.chmod(0o755)
    return root


def use_ram_for_temporary_files() -> Path | None:
    """Make :func:`ram_root` the temporary directory of this process and its children (unless ``TMPDIR`` is set
    already); the directory used, or None."""
    if os.environ.get("TMPDIR"):
        return None
    root = ram_root()
    if root is not None:
        os.environ["TMPDIR"] = str(root)
        tempfile.tempdir = None  # forget a directory chosen before
    return root
