"""The production shape for crash proofs: one Hive metastore service on a local PostgreSQL cluster per test process,
shared by every test of this folder (they run on one xdist worker), and drivers in separate processes.

Where a driver's DDL log lives is chosen by :func:`shared_home` alone: a database home (a ``postgresql://`` URL) on
the test process's own PostgreSQL cluster (``postgres_server``), apart from the metastore's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log.ops import metastore, postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.metastore_schema import JAVA_OPTIONS_ENV
from ddl_log.ops.postgres import PostgresServer
from tests.jvm_archive import SERVICE_JVM_OPTIONS

ROOT = Path(__file__).resolve().parents[2]
WORKER = "tests.production.worker"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.servers)
            item.add_marker(pytest.mark.xdist_group("production_service"))


def shared_home(log_server: PostgresServer, name: str = "home") -> str:
    """Where a driver of these tests keeps its DDL log and binlog, every process of one test the same: a database
    home (the production shape's record store) on a PostgreSQL cluster of its own, so that killing the metastore's
    database leaves the log's alone."""
    return f"{postgres.create_database(log_server, 'ddl_homes')}?home={name}"


@pytest.fixture(scope="session")
def service() -> Iterator[MetastoreService]:
    """The test process's metastore service, on a local PostgreSQL cluster (both under /tmp: PostgreSQL runs as an
    unprivileged user when we are root, and pytest's base directory is 0700). Stopped, cluster included, at the
    end; tests that kill it start it again on the same port (:func:`restart`)."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-prod-"))
    root.chmod(0o755)
    previous = os.environ.get(JAVA_OPTIONS_ENV)
    os.environ[JAVA_OPTIONS_ENV] = SERVICE_JVM_OPTIONS
    try:
        began = time.monotonic()
        started = metastore.start(root / "service")
        print(f"\n[measured] production service up in {time.monotonic() - began:.1f} s")
        yield started
    finally:
        metastore.stop(root / "service")
        if previous is None:
            os.environ.pop(JAVA_OPTIONS_ENV, None)
        else:
            os.environ[JAVA_OPTIONS_ENV] = previous
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def drivers() -> Iterator[list[Any]]:
    """The :class:`tests.production.drivers.Driver` processes a test starts, killed at its end if still running."""
    started: list[Any] = []
    yield started
    for driver in started:
        driver.stop()


def kill_service(service: MetastoreService) -> None:
    """SIGKILL the service's process group (its JVM), as a crashed host would; its PostgreSQL keeps running."""
    running = metastore.status(service.root)
    assert running is not None, "the service runs before it is killed"
    os.killpg(running.pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while metastore.is_alive(running) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not metastore.is_alive(running)


def restart(service: MetastoreService) -> MetastoreService:
    """Start the service again on its database and port (drivers keep their URI), and its cluster on its port."""
    if service.postgres_root is not None and postgres.status(service.postgres_root) is None:
        postgres.start(service.postgres_root, port=cluster_port(service))
    again = metastore.start(service.root, port=service.port)
    assert again.uri == service.uri
    return again


def cluster_port(service: MetastoreService) -> int:
    """The local cluster's port, from the database URL the service uses."""
    return int(service.database.rsplit(":", 1)[1].split("/", 1)[0])


def worker(home: str, service: MetastoreService, *steps: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """Run the worker module in a new process (its own session: a crash point kills its whole group, JVM included)."""
    return subprocess.run(worker_command(home, service, *steps), env=worker_env(), capture_output=True, text=True,
                          timeout=timeout, start_new_session=True, cwd=ROOT, check=False)


def worker_command(home: str, service: MetastoreService, *steps: str) -> list[str]:
    return [sys.executable, "-m", WORKER, home, service.uri, str(service.warehouse), *steps]


def worker_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_CRASH_AT", None)
    return env


def json_lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def last_with(output: str, key: str) -> dict[str, Any] | None:
    found = [line for line in json_lines(output) if key in line]
    return found[-1] if found else None
