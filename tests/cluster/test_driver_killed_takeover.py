"""The driver SIGKILLed during its data job, its database home taken over by another live driver, and a task of that
job that writes after the takeover undid the statement (issue 30; ``make test-cluster`` only).

Both drivers run on the standalone cluster and on a Hive metastore service backed by PostgreSQL; their homes are
database homes (``postgresql://...?home=ID``) with leases of a few seconds (:mod:`tests.cluster.takeover_driver`).
The killed driver's statement (CREATE OR REPLACE AS SELECT, its tasks held on purpose) is undone by the other
driver's periodic takeover, which logs, in the dead home's log, the sweep of the work table, due when the orphan
window the dead driver recorded is over. Only then does the late writer (:mod:`tests.cluster.late_writer`) write a
task's files into the work table's directory. Once the sweep is due the taker's periodic takeover runs it, and: no
work table, no directory but the tables' own, no stray file, the old table with exactly its rows, no late row in any
table, nothing pending in either home, one more takeover round with nothing to recover, and the dead home restarted
with its id finds nothing to do.
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
from typing import IO, Any

import pytest

from ddl_log.ops import postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.metastore_schema import JAVA_OPTIONS_ENV
from ddl_log.ops.postgres import PostgresServer
from tests.cluster import late_writer
from tests.cluster.conftest import LONG, ROOT, driver_env, executors_of
from tests.cluster.late_writer import PID_FILE, WRITTEN
from tests.cluster.orphan_driver import GO, OLD_ROWS
from tests.cluster.takeover_driver import INTERVAL, LEASE, ORPHAN_SECONDS, VICTIM
from tests.cluster.tasks import release, wait_for_marker
from tests.cluster.test_driver_killed import wait_until
from tests.jvm_archive import SERVICE_JVM_OPTIONS
from tests.servers.metastore import metastore_service

pytestmark = pytest.mark.skipif(not LONG, reason="make test-cluster (DDL_LOG_CLUSTER_PROOFS=long) only")
MARGIN = 30.0
"""Seconds beyond lease + interval for a takeover round itself (metastore calls, a busy 2-core machine)."""


@pytest.fixture(scope="module")
def service() -> Iterator[MetastoreService]:
    """A metastore service on a local PostgreSQL cluster of its own (under /tmp: PostgreSQL runs as an unprivileged
    user when we are root), stopped with its cluster at the end."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-takeover-"))
    root.chmod(0o755)
    previous = os.environ.get(JAVA_OPTIONS_ENV)
    os.environ[JAVA_OPTIONS_ENV] = SERVICE_JVM_OPTIONS
    try:
        with metastore_service(root / "service", backend="postgres") as started:
            yield started
    finally:
        if previous is None:
            os.environ.pop(JAVA_OPTIONS_ENV, None)
        else:
            os.environ[JAVA_OPTIONS_ENV] = previous
        shutil.rmtree(root, ignore_errors=True)


def start(role: str, database: str, service: MetastoreService, workdir: Path, cluster: dict[str, Any],
          stderr: IO[bytes]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tests.cluster.takeover_driver", role, database, service.uri,
                             str(service.warehouse), str(workdir)],
                            env=driver_env(cluster), cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
                            start_new_session=True)


def line_with(process: subprocess.Popen[str], key: str, stderr: Path) -> dict[str, Any]:
    """The process's next JSON line that has ``key`` (its stderr's tail when it ends without one)."""
    for line in process.stdout:  # type: ignore[union-attr]
        if line.startswith("{") and key in (record := json.loads(line)):
            return record  # type: ignore[no-any-return]
    raise AssertionError(f"no {key}: {stderr.read_text()[-3000:]}")


def test_a_late_write_after_a_takeover_is_swept_by_the_taker_and_never_appears_in_a_table(
        spark_cluster: dict[str, Any], postgres_server: PostgresServer, service: MetastoreService,
        tmp_path: Path) -> None:
    began = time.monotonic()
    database = postgres.create_database(postgres_server, "takeover_cluster")
    markers = tmp_path / "markers"
    processes: list[subprocess.Popen[str]] = []
    try:
        with open(tmp_path / "victim.stderr", "wb") as stderr:  # a file: a full pipe would stall the driver
            victim = start("victim", database, service, tmp_path, spark_cluster, stderr)
        processes.append(victim)
        header = line_with(victim, "orphan", tmp_path / "victim.stderr")
        wait_for_marker(markers, lambda marker: marker.partition == 0)
        wait_until(lambda: (markers / PID_FILE).exists(), "the late writer started")
        assert executors_of(header["application"]), "the tasks run in executor JVMs of their own"

        with open(tmp_path / "taker.stderr", "wb") as stderr:
            taker = start("taker", database, service, tmp_path, spark_cluster, stderr)
        processes.append(taker)
        line_with(taker, "watching", tmp_path / "taker.stderr")
        os.killpg(victim.pid, signal.SIGKILL)  # the driver's Python and its JVM; the executors are the workers'
        victim.wait(timeout=60)
        killed_at = time.time()

        recovered = line_with(taker, "recovered_at", tmp_path / "taker.stderr")
        took = recovered["recovered_at"] - killed_at
        print(f"\n[measured] SIGKILL to undone by the periodic takeover: {took:.1f} s (lease {LEASE} s, "
              f"interval {INTERVAL} s); parts {recovered['takeover']}")
        assert took < LEASE + INTERVAL + MARGIN, recovered
        (victim_home,) = [item for item in recovered["takeover"] if item["home"] == VICTIM]
        assert victim_home["outcome"] == "recovered" and victim_home["recovery"] == ["undone"], recovered
        assert recovered["tables"] == ["t"], recovered
        assert not [name for name in recovered["dirs"] if name.startswith("ddllog_")], recovered
        assert recovered["active"] == 1, recovered  # the sweep, waiting in the dead home's log
        (sweep,) = recovered["sweeps"]
        # due when the window the dead driver recorded is over, not the taker's own (610 s: Spark's heartbeat bound)
        assert killed_at + ORPHAN_SECONDS <= sweep["due"] <= recovered["recovered_at"] + ORPHAN_SECONDS, sweep

        release(markers)  # the orphaned task writes now, after the takeover undid its statement
        wait_until(lambda: (markers / WRITTEN).exists(), "the late write")
        late = json.loads((markers / WRITTEN).read_text())
        assert late["targets"] and late["at"] < sweep["due"], (late, sweep)
        assert all(Path(path).exists() for path in late["files"]), late
        assert str(Path(sweep["location"].removeprefix("file:"))) in late["targets"], (late, sweep)

        (tmp_path / GO).write_text("")
        final = line_with(taker, "swept_at", tmp_path / "taker.stderr")
        print(f"[measured] sweep due to swept by the periodic takeover: {final['swept_at'] - sweep['due']:.1f} s")
        assert sweep["due"] <= final["swept_at"] < sweep["due"] + LEASE + INTERVAL + MARGIN, (final, sweep)
        (swept,) = [item for item in final["takeover"] if item["home"] == VICTIM]
        assert swept["outcome"] == "recovered" and swept["recovery"] == ["finished"], final
        assert final["tables"] == ["t"] and final["work_tables"] == [], final
        assert final["dirs"] == final["table_dirs"], final
        assert final["stray"] == [], final
        assert final["t"] == [OLD_ROWS, OLD_ROWS, "old", "old"], final
        assert set(final["late_rows"].values()) == {0}, final
        assert not any(Path(path).exists() for path in late["files"]), late
        assert final["victim_log"] == {"active": 0, "sweeps": []}, final
        assert final["taker_log"] == {"active": 0, "sweeps": []} and final["taker_pending"] == 0, final
        assert not [item for item in final["second_takeover"] if item["outcome"] == "recovered"], final
        assert final["taker_nothing_to_do"], final
        restart = final["victim_restart"]
        assert restart["nothing_to_do"] and restart["note"].endswith("nothing left to do"), restart
        assert restart["pending"] == 0 and restart["active"] == 0 and restart["binlog"] == [], restart
        assert taker.wait(timeout=120) == 0, (tmp_path / "taker.stderr").read_text()[-3000:]
        print(f"[measured] driver kill, takeover, late write and sweep by the taker: "
              f"{time.monotonic() - began:.1f} s")
    finally:
        release(markers)
        for process in processes:  # the victim: gone already, unless a step failed
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
        late_writer.end(markers)
