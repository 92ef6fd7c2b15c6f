"""``tmp_path`` on a RAM-backed file system (tmpfs), for tests that write thousands of small durable files.

The crash tests simulate a process dying (an exception, or SIGKILL of a subprocess). The kernel's page cache outlives
a process, so whether a write reached the disk is never observable to them; what they prove is that the code gets to
each write, fsync and crash point in the right order, and that calls it. On a disk every fsync waits for the device
(the recovery sweeps make ~18,000 of them: 58 of 80 s of one test); on tmpfs the same call returns at once. Same
code, same calls, same assertions: only the wait goes. Where no tmpfs is writable, the usual ``tmp_path`` is used.

A directory is removed when its test passes and kept (its path is in the failure's traceback) when it failed, as
pytest keeps the ``tmp_path`` of failed tests.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

RAM_FILE_SYSTEM = Path("/dev/shm")


def ram_root() -> Path | None:
    """This user's directory on the RAM file system, made on first use; None when there is none to write."""
    if not (RAM_FILE_SYSTEM.is_dir() and os.access(RAM_FILE_SYSTEM, os.W_OK | os.X_OK)):
        return None
    root = RAM_FILE_SYSTEM / f"spark-ddl-log-tests-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    if root.is_symlink() or root.stat().st_uid != os.getuid():
        return None
    return root


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """A fresh empty directory of this test's own on tmpfs (else the usual ``tmp_path``)."""
    root = ram_root()
    if root is None:
        yield tmp_path
        return
    failed_before = request.session.testsfailed
    path = Path(tempfile.mkdtemp(prefix=re.sub(r"[^\w.-]", "_", request.node.name)[:60] + "-", dir=root))
    yield path
    if request.session.testsfailed == failed_before:  # this test's call phase passed (counted before teardown)
        shutil.rmtree(path, ignore_errors=True)
