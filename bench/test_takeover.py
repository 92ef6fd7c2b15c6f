"""Takeover latency, kill to recovered: a driver process holding a database home with an interrupted statement
(an undo chain creating a table) is SIGKILLed; a live driver (in-memory catalog, same database) runs one takeover
round. Timed: from the kill to the end of that round. Its parts (``extra_info``): detect (reading the dead log),
lock (ending its sessions, its lock, the epoch CAS), lease (waiting for the dead driver's lease to end on the server's
clock: the fence's price, at most one lease) and recovery. The lease is short here (1 s); with the default 30 s the
lease part is what is left of the dead driver's last lease, up to 30 s."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.memory import memory_catalog
from tests.servers.postgres import postgres_server as postgres_server
from tests.servers.postgres import postgres_url as postgres_url

ROOT = Path(__file__).resolve().parents[1]
LEASE = 1.0
DYING = textwrap.dedent(
    """
    import sys, time
    from chains.entries import ActionType, ChainKind
    from chains.log import DDLLog
    from storage.catalogs.names import TableName
    from storage.records.home import open_home
    home = open_home(sys.argv[1], lease_seconds=float(sys.argv[2]))
    log = DDLLog(home.log_store())
    position = log.new_chain(ChainKind.UNDO, "CREATE TABLE t")
    log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "t"), payload=CreateTablePayload())
    print("ready", flush=True)
    time.sleep(300)
    """
)


@pytest.fixture
def live(postgres_url: str) -> Iterator[tuple[str, AtomicDDL]]:
    ddl = AtomicDDL(home=f"{postgres_url}?home=live", catalog=memory_catalog(), lease_seconds=30,
                    takeover_interval=3600)
    yield postgres_url, ddl
    ddl.close()


@pytest.mark.benchmark(group="takeover: kill to recovered")
def test_takeover_latency_kill_to_recovered(benchmark, live):
    url, ddl = live
    rounds = iter(range(100))
    victims: list[subprocess.Popen[str]] = []

    def setup() -> tuple[tuple[subprocess.Popen[str]], dict[str, object]]:
        location = f"{url}?home=dead{next(rounds)}"
        process = subprocess.Popen([sys.executable, "-c", DYING, location, str(LEASE)], text=True,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                                   start_new_session=True)
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        victims.append(process)
        return (process,), {}

    parts: list[dict[str, float]] = []

    def kill_and_take_over(process: subprocess.Popen[str]) -> None:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        report = ddl.take_over_dead()
        [taken] = report.recovered
        parts.append(dict(taken.seconds))

    benchmark.pedantic(kill_and_take_over, setup=setup, rounds=5, iterations=1)
    for process in victims:
        if process.poll() is None:
            process.kill()
            process.wait()
    benchmark.extra_info["lease_seconds"] = LEASE
    benchmark.extra_info["parts_mean"] = {key: round(sum(p[key] for p in parts) / len(parts), 4) for key in parts[0]}
