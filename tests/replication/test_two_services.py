"""Replication between two real Hive metastore services on PostgreSQL, each started by the project (``ddl-log
metastore start``) with its own PostgreSQL cluster and warehouse, as a disaster-recovery pair runs.

The source driver (a process, its home a database home on the source's PostgreSQL) runs a script of every statement
kind (CTAS with ``rand()``, INSERT INTO of many files and of one, CREATE OR REPLACE, INSERT OVERWRITE of a partition,
LIKE, TRUNCATE, ALTER: properties, comment, columns, a partition, a type change; views, functions, RENAME, DROP,
UNDROP, RESTORE, DROP DATABASE CASCADE). The replica applier (a process on the replica's service) follows it as it
runs and is SIGKILLed (JVM included) between two file moves of the replica's INSERT INTO; a second applier process
recovers and applies the rest to the end while a reader thread reads two tables throughout: every source event
applied exactly once, in order, 0 bad reads, and at the end the replica's databases (tables' definitions and rows,
views, functions) equal the source's. Both services are shared by the module's tests (one start each, in
parallel).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log.ops import metastore, postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.metastore_schema import JAVA_OPTIONS_ENV
from tests.jvm_archive import SERVICE_JVM_OPTIONS
from tests.replication.services_worker import SCRIPT

pytestmark = [pytest.mark.servers, pytest.mark.spark, pytest.mark.xdist_group("replication_services")]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def services() -> Iterator[dict[str, MetastoreService]]:
    """The source's and the replica's services, started at once (each with its own PostgreSQL cluster)."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-repl-"))
    root.chmod(0o755)
    previous = os.environ.get(JAVA_OPTIONS_ENV)
    os.environ[JAVA_OPTIONS_ENV] = SERVICE_JVM_OPTIONS
    started: dict[str, Any] = {}

    def start(side: str) -> None:
        try:
            started[side] = metastore.start(root / side)
        except Exception as error:  # noqa: BLE001 - raised below, in the test's thread
            started[side] = error

    try:
        began = time.monotonic()
        threads = [threading.Thread(target=start, args=(side,)) for side in ("source", "replica")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for value in started.values():
            if isinstance(value, Exception):
                raise value
        print(f"\n[measured] two services up in {time.monotonic() - began:.1f} s")
        yield started
    finally:
        for side in ("source", "replica"):
            metastore.stop(root / side)
        if previous is None:
            os.environ.pop(JAVA_OPTIONS_ENV, None)
        else:
            os.environ[JAVA_OPTIONS_ENV] = previous
        shutil.rmtree(root, ignore_errors=True)


def database_home(service: MetastoreService, name: str) -> str:
    """A database home on the service's own PostgreSQL cluster (the production shape: log beside the metastore)."""
    assert service.postgres_root is not None
    server = postgres.status(service.postgres_root)
    assert server is not None
    return f"{postgres.create_database(server, 'ddl_homes')}?home={name}"


def worker(*args: str, crash_at: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_CRASH_AT", None)
    if crash_at is not None:
        env["DDL_LOG_CRASH_AT"] = crash_at
    return subprocess.Popen([sys.executable, "-m", "tests.replication.services_worker", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)


def finished(process: subprocess.Popen[str], timeout: float = 600) -> tuple[int, dict[str, Any] | None, str]:
    out, err = process.communicate(timeout=timeout)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return process.returncode, (lines[-1] if lines else None), err


def test_a_replica_on_its_own_service_applies_every_kind_once_killed_mid_apply_with_readers(services, tmp_path):
    source_service, replica_service = services["source"], services["replica"]
    source_home = database_home(source_service, "src")
    replica_home, done, history = tmp_path / "replica", tmp_path / "source-done", tmp_path / "history.json"
    replica_args = ("replica", str(replica_home), source_home, replica_service.uri, str(replica_service.warehouse),
                    str(done), str(history))
    began = time.monotonic()
    source = worker("source", source_home, source_service.uri, str(source_service.warehouse))
    killed = worker(*replica_args, crash_at="insert.move.between:1")  # follows the source as it runs
    code, report, err = finished(source)
    assert code == 0 and report is not None, err[-3000:]
    history.write_text(json.dumps(report["history"]))
    done.touch()
    code, _, err = finished(killed)
    assert code == -9, err[-3000:]  # killed between two moves of the replica's INSERT INTO, after its commit
    code, replica, err = finished(worker(*replica_args))
    assert code == 0 and replica is not None, err[-3000:]
    print(f"\n[measured] source, killed replica and resumed replica in {time.monotonic() - began:.1f} s; "
          f"{replica['reads']} reads on the replica")
    assert replica["recovery"] == ["finished"]  # the killed INSERT INTO's moves, finished by recovery
    assert replica["seqs"] == list(range(1, report["events"] + 1)) and report["events"] == len(SCRIPT)
    assert replica["bad"] == [] and replica["reads"] > 0
    assert replica["dump"] == report["dump"]
    assert len(json.loads(report["dump"]["rp.r"]["rows"][0])) == 2 and "rq.a" not in report["dump"]
