"""Takeover on the production shape (drivers in separate processes on the shared metastore service, their logs in one
PostgreSQL database, leases of 3 s):

(a) a driver SIGSTOPped mid-statement (at ``replace.exchange.between``: TMP holds the old definition) past its lease
    is taken over by another driver, which undoes the statement; continued, the paused driver raises
    HomeFencedError and changes nothing: catalog, table data, its log and binlog are exactly as the taker left them;
(b) a driver SIGKILLed mid-statement is recovered by a live driver's periodic takeover within lease + interval
    (+ a margin for the catalog calls of recovery on a busy machine);
(c) a driver restarted with a taken-over home's id finds nothing to do and says so.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import psycopg
import pytest

from ddl_log.ops import postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.postgres import PostgresServer
from tests.production.conftest import ROOT, json_lines, last_with, worker_env
from tests.production.takeover_worker import INTERVAL, LEASE

pytestmark = [pytest.mark.servers, pytest.mark.xdist_group("production_service")]
WORKER = "tests.production.takeover_worker"
POINT = "replace.exchange.between"
MARGIN = 30.0
"""Seconds beyond lease + interval for the taker's recovery itself (metastore calls, a busy 2-core machine)."""


def command(database: str, home: str, service: MetastoreService, *step: str) -> list[str]:
    return [sys.executable, "-m", WORKER, f"{database}?home={home}", service.uri, str(service.warehouse), *step]


def start(database: str, home: str, service: MetastoreService, *step: str) -> subprocess.Popen[str]:
    return subprocess.Popen(command(database, home, service, *step), env=worker_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)


def wait_for(process: subprocess.Popen[str], key: str, seen: list[str], timeout: float = 240) -> dict[str, Any]:
    """Read the process's lines until one has ``key``."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    for line in process.stdout:
        seen.append(line)
        found = last_with(line, key)
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"no {key} from the worker"
    stderr = process.stderr.read() if process.stderr is not None else ""
    raise AssertionError(f"the worker ended without {key}: {''.join(seen)} {stderr[-3000:]}")


def finish(process: subprocess.Popen[str], seen: list[str]) -> tuple[int, list[dict[str, Any]], str]:
    out, err = process.communicate(timeout=240)
    return process.returncode, json_lines("".join(seen) + out), err[-3000:]


def rows_of(database: str, home: str) -> list[tuple[Any, ...]]:
    """Every record of ``home``'s log and binlog, as stored."""
    with psycopg.connect(database, autocommit=True) as connection:
        return connection.execute(
            "SELECT s.space, s.name, r.pos, md5(r.data) FROM ddl_log_streams s JOIN ddl_log_records r "
            "ON r.stream = s.id WHERE s.home = %s ORDER BY 1, 2, 3", (home,)).fetchall()


@pytest.fixture(scope="module")
def database(postgres_server: PostgresServer) -> str:
    return postgres.create_database(postgres_server, "takeover_homes")


def test_a_paused_driver_taken_over_runs_nothing_stale_and_a_restart_finds_nothing(
        service: MetastoreService, database: str) -> None:
    stopped = start(database, "stopped", service, "stop", POINT)
    seen: list[str] = []
    try:
        old = wait_for(stopped, "old", seen)["old"]
        wait_for(stopped, "stopping", seen)
        time.sleep(LEASE + 0.5)  # the stopped driver's lease runs out; its sessions linger (SIGSTOP)
        taker = subprocess.run(command(database, "taker", service, "takeover"), env=worker_env(), text=True,
                               capture_output=True, timeout=240, cwd=ROOT, check=False)
        report = last_with(taker.stdout, "takeover")
        assert report is not None, taker.stderr[-3000:]
        assert [(h["home"], h["outcome"], h["recovery"]) for h in report["takeover"]] == [
            ("stopped", "recovered", ["undone"])]
        assert report["table"] == old
        left_by_taker = rows_of(database, "stopped")
    finally:
        os.kill(stopped.pid, signal.SIGCONT)
    code, lines, err = finish(stopped, seen)
    assert code == 0, err
    ended = next(line for line in lines if "error" in line)
    assert ended["error"] == "HomeFencedError", err
    assert ended["table"] == old  # nothing stale ran: the table is the taker's
    reopened = next(line for line in lines if "note" in line)
    assert reopened["note"].startswith("taken over by ddl-log:taker at ")
    assert reopened["note"].endswith("nothing left to do") and reopened["nothing_to_do"]
    # the fenced driver wrote nothing; its restart bumped the epoch only (its log is compacted at most by it)
    after = rows_of(database, "stopped")
    assert [row for row in after if row[0] == "binlog"] == [row for row in left_by_taker if row[0] == "binlog"]


def test_a_sigkilled_driver_is_recovered_by_a_live_drivers_periodic_takeover(
        service: MetastoreService, database: str) -> None:
    limit = LEASE + INTERVAL + MARGIN
    watcher = start(database, "watcher", service, "watch", str(limit + 240))
    seen: list[str] = []
    try:
        wait_for(watcher, "watching", seen)
        victim = subprocess.run(command(database, "victim", service, "kill", POINT), env=worker_env(), text=True,
                                capture_output=True, timeout=240, cwd=ROOT, check=False)
        killed_at = time.time()
        assert victim.returncode == -signal.SIGKILL, victim.stderr[-3000:]
        old = last_with(victim.stdout, "old")
        assert old is not None
        recovered = wait_for(watcher, "recovered_at", seen)
    finally:
        if watcher.poll() is None:
            code, _, err = finish(watcher, seen)
            assert code == 0, err
    assert recovered["recovered_at"] is not None
    took = recovered["recovered_at"] - killed_at
    print(f"\n[measured] SIGKILL to recovered by the periodic takeover: {took:.1f} s "
          f"(lease {LEASE} s, interval {INTERVAL} s); parts {recovered['takeover']}")
    assert [(h["home"], h["recovery"]) for h in recovered["takeover"] if h["outcome"] == "recovered"] == [
        ("victim", ["undone"])]
    assert recovered["table"] == old["old"]
    assert took < limit
