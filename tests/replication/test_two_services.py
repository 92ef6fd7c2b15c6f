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
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log.ops import metastore
from ddl_log.ops.metastore import MetastoreService
from tests.replication.services_worker import SCRIPT
from tests.replication.soak_spark import homes_url, soak, start_services, stop_services

pytestmark = [pytest.mark.servers, pytest.mark.spark, pytest.mark.xdist_group("replication_services")]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def services() -> Iterator[dict[str, MetastoreService]]:
    """The source's and the replica's services, started at once (each with its own PostgreSQL cluster)."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-repl-"))
    root.chmod(0o755)
    try:
        began = time.monotonic()
        started = start_services(root)
        print(f"\n[measured] two services up in {time.monotonic() - began:.1f} s")
        yield started
    finally:
        stop_services(root)
        shutil.rmtree(root, ignore_errors=True)


def database_home(service: MetastoreService, database: str) -> str:
    """A database home on the service's own PostgreSQL cluster (the production shape: log beside the metastore), in
    a database of the test's own: every home of a database shares its catalog binlog."""
    return f"{homes_url(service, database)}?home=driver-1"


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


@pytest.mark.skipif(os.environ.get("DDL_LOG_REPLICATION_LONG") != "1",
                    reason="make replication (DDL_LOG_REPLICATION_LONG=1): two metastore services, about 60 s; make "
                    "test keeps the replica on Spark with a kill mid-copy (tests/replication/test_replica_spark.py)")
def test_a_replica_on_its_own_service_applies_every_kind_once_killed_mid_apply_with_readers(services, tmp_path):
    source_service, replica_service = services["source"], services["replica"]
    source_home = database_home(source_service, "ddl_homes")
    replica_home, done, history = tmp_path / "replica", tmp_path / "source-done", tmp_path / "history.json"
    replica_args = ("replica", str(replica_home), source_home, replica_service.uri, str(replica_service.warehouse),
                    str(done), str(history), "r")
    began = time.monotonic()
    source = worker("source", source_home, source_service.uri, str(source_service.warehouse), "r")
    killed = worker(*replica_args, crash_at="insert_in_place.copy.between:1")  # follows the source as it runs
    code, report, err = finished(source)
    assert code == 0 and report is not None, err[-3000:]
    history.write_text(json.dumps(report["history"]))
    done.touch()
    code, _, err = finished(killed)
    assert code == -9, err[-3000:]  # killed between two copies of the replica's INSERT INTO, before its commit
    code, replica, err = finished(worker(*replica_args))
    assert code == 0 and replica is not None, err[-3000:]
    print(f"\n[measured] source, killed replica and resumed replica in {time.monotonic() - began:.1f} s; "
          f"{replica['reads']} reads on the replica")
    assert replica["recovery"] == ["undone"]  # the killed INSERT INTO's copies removed; the applier does it again
    assert replica["seqs"] == list(range(1, report["events"] + 1)) and report["events"] == len(SCRIPT)
    assert replica["bad"] == [] and replica["reads"] > 0
    assert replica["dump"] == report["dump"]
    assert len(json.loads(report["dump"]["rp.r"]["rows"][0])) == 2 and "rq.a" not in report["dump"]


LONG = os.environ.get("DDL_LOG_REPLICATION_LONG") == "1"


def kill(service: MetastoreService) -> None:
    """SIGKILL the service's process group (its JVM), as a crashed host would; its PostgreSQL keeps running."""
    running = metastore.status(service.root)
    assert running is not None
    os.killpg(running.pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while metastore.is_alive(running) and time.monotonic() < deadline:
        time.sleep(0.05)


def applied_now(home: Path) -> int:
    from chains.binlog import read_events
    from ddl_log.replication.origin import mark_of

    return sum(mark_of(event.statement) is not None for event in read_events(str(home))) if home.exists() else 0


@pytest.mark.skipif(not LONG, reason="make replication (DDL_LOG_REPLICATION_LONG=1)")
def test_the_replicas_service_dying_mid_apply_stops_it_typed_and_the_sources_service_is_not_needed(services,
                                                                                                   tmp_path):
    """The replica's metastore service SIGKILLed mid-apply: the applier stops with ApplyFailedError naming the
    event (nothing of it applied: recovery undoes it), or AppliedThenStoppedError when the kill came after its
    commit; once the service is back a new applier goes on from there.
    The source's service SIGKILLed mid-apply changes nothing: the applier reads the source's catalog binlog
    (PostgreSQL) and its files, never its metastore. Every event once, the databases equal at the end."""
    source_service, replica_service = services["source"], services["replica"]
    source_home = database_home(source_service, "ddl_homes_faults")
    replica_home, done, history = tmp_path / "replica", tmp_path / "source-done", tmp_path / "history.json"
    replica_args = ("replica", str(replica_home), source_home, replica_service.uri, str(replica_service.warehouse),
                    str(done), str(history), "f")
    code, report, err = finished(worker("source", source_home, source_service.uri, str(source_service.warehouse), "f"))
    assert code == 0 and report is not None, err[-3000:]
    done.touch()
    applier = worker(*replica_args)
    deadline = time.monotonic() + 300
    while applied_now(replica_home) < 6 and applier.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    kill(replica_service)
    try:
        code, _, err = finished(applier)
    finally:  # the next tests share the services
        metastore.start(replica_service.root, port=replica_service.port)
    # killed inside a statement: not applied, undone by the next start; or once it committed, before the applier
    # noted its objects (seen in make replication: it stopped with the metastore's raw error then): applied
    stopped = ("ApplyFailedError" in err and "was not applied" in err) or (
        "AppliedThenStoppedError" in err and "was applied, then the replica stopped" in err)
    assert code != 0 and stopped, err[-3000:]
    stood = applied_now(replica_home)
    history.write_text(json.dumps(report["history"]))
    resumed = worker(*replica_args)
    while applied_now(replica_home) < stood + 3 and resumed.poll() is None:
        time.sleep(0.1)
    kill(source_service)
    try:
        code, replica, err = finished(resumed)
    finally:
        metastore.start(source_service.root, port=source_service.port)
    assert code == 0 and replica is not None, err[-3000:]
    assert replica["seqs"] == list(range(1, report["events"] + 1)) and replica["bad"] == []
    assert replica["dump"] == report["dump"]


@pytest.mark.skipif(not LONG, reason="make replication (DDL_LOG_REPLICATION_LONG=1): 115 to 145 s of JVM starts, "
                                     "twice what a test of make test may cost")
def test_a_short_soak_source_drivers_and_the_applier_killed_at_random_every_event_once(services, tmp_path):
    """``make soak-replica``, short: a source driver running random statements of every kind, SIGKILLed inside a
    statement and replaced (its home reopened or taken over), the applier SIGKILLed and restarted, a reader process
    on the replica throughout: ``replica check`` finds no difference, every source event applied once, 0 bad reads."""
    report = soak(services, tmp_path / "soak", seconds=10, seed=20, drivers=1, source_kills=1, applier_kills=1,
                  database="soak_short")
    print(f"\n[measured] {json.dumps({k: v for k, v in report.items() if k != 'ok_by_kind'})}")
    assert report["violations"] == 0, report["problems"]
    assert report["source_events"] > 0 and report["applied"] == report["source_events"]
    assert report["source_kills_takeover"] == 1 and report["applier_kills"] == 1  # seed 20: a new home, takeover
    assert report["reads"] > 0 and report["check_compared"] > 0
