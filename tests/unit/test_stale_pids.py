"""A pid kept in a file outlives its process: a SIGKILLed server leaves PostgreSQL's ``postmaster.pid``, a killed
applier its state file, and Spark's JVMs use hundreds of pids each, so the number is soon another process's (found by
CI: a Spark worker started by a test died silently at start, the likely signal a stop of a killed test PostgreSQL
cluster sent to its stale pid). No stop or status command signals a pid it has not confirmed as its own: each
case below points a state file at a live stranger, which must survive and be reported as not running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ddl_log.ops import metastore, postgres, spark_cluster
from ddl_log.ops.processes import is_zombie


@pytest.fixture
def stranger() -> Iterator[subprocess.Popen[bytes]]:
    """An unrelated process leading a session of its own (as a Spark worker or a server does)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=30)


def alive(process: subprocess.Popen[bytes]) -> bool:
    return process.poll() is None


def test_a_stale_postmaster_pid_naming_another_process_is_not_a_server(tmp_path: Path, stranger) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "postmaster.pid").write_text(f"{stranger.pid}\n{tmp_path}/data\n0\n5999\n")
    assert postgres.status(tmp_path) is None
    assert postgres.stop(tmp_path, timeout=1) is False
    postgres.kill(tmp_path)
    assert alive(stranger), "stop/kill of a dead cluster signalled the process that has its old pid"


def test_a_killed_postmasters_lock_file_is_removed_before_a_restart_even_while_it_is_a_zombie(tmp_path: Path,
                                                                                             stranger) -> None:
    """Found by CI: after the PostgreSQL-died test killed the postmaster, its restart failed ("lock file
    postmaster.pid already exists ... another postmaster running?", then the same of the socket's lock file): the
    killed postmaster was a zombie nobody had reaped yet, which PostgreSQL's own check takes for a running server.
    A lock file goes when its pid is a zombie or another process; one still being written (no pid yet) stays."""
    (tmp_path / "data").mkdir()
    (tmp_path / "socket").mkdir()
    lock = tmp_path / "data" / "postmaster.pid"
    socket_lock = tmp_path / "socket" / ".s.PGSQL.5999.lock"
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    while not is_zombie(Path(f"/proc/{zombie.pid}/stat").read_text()):
        time.sleep(0.02)  # exited, not reaped: what a killed postmaster is until its parent waits for it
    try:
        for pid in (zombie.pid, stranger.pid):
            lock.write_text(f"{pid}\n{tmp_path}/data\n0\n5999\n")
            socket_lock.write_text(f"{pid}\n{tmp_path}/socket\n")
            assert postgres.remove_stale_lock(tmp_path) and not lock.exists() and not socket_lock.exists()
    finally:
        zombie.wait()
    lock.write_text("")
    assert not postgres.remove_stale_lock(tmp_path) and lock.exists()
    assert alive(stranger)


def test_a_stale_metastore_state_naming_another_process_is_not_a_service(tmp_path: Path, stranger) -> None:
    state = {"root": str(tmp_path), "port": 1, "pid": stranger.pid, "backend": "derby", "label": "x",
             "warehouse": str(tmp_path / "w")}
    (tmp_path / metastore.STATE_FILE).write_text(json.dumps(state))
    assert metastore.status(tmp_path) is None
    metastore.stop(tmp_path)
    assert alive(stranger)


def test_a_stale_cluster_state_naming_another_process_stops_nothing(tmp_path: Path, stranger) -> None:
    (tmp_path / spark_cluster.STATE_FILE).write_text(json.dumps(
        {"root": str(tmp_path), "port": 1, "ui_port": 2, "master_pid": stranger.pid, "workers": [stranger.pid]}))
    assert spark_cluster.status(tmp_path) is None
    assert spark_cluster.stop(tmp_path) is False
    assert alive(stranger)


def test_a_worker_just_launched_counts_as_running_before_proc_shows_its_arguments(tmp_path: Path, stranger) -> None:
    # /proc shows no cluster marker for the stranger, as for a JVM in its first milliseconds: its handle decides
    launched = {stranger.pid: (stranger, tmp_path / "worker-1.log")}
    assert spark_cluster._exited(stranger.pid, tmp_path, launched) is False
    stranger.kill()
    stranger.wait(timeout=30)
    assert spark_cluster._exited(stranger.pid, tmp_path, launched) is True
    assert spark_cluster._exited(stranger.pid, tmp_path, {}) is True


def test_replica_stop_never_signals_a_pid_that_is_no_longer_its_applier(tmp_path: Path, stranger) -> None:
    from ddl_log.replication.replica_state import ReplicaState, write_state

    home = tmp_path / "replica"
    home.mkdir()
    write_state(str(home), ReplicaState(source="/elsewhere", origin="file:/elsewhere", pid=stranger.pid))
    result = subprocess.run([sys.executable, "-m", "ddl_log", "--home", str(home), "replica", "stop"],
                            capture_output=True, text=True, timeout=120, check=False,
                            cwd=Path(__file__).resolve().parents[2],
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "not running"
    assert alive(stranger)
