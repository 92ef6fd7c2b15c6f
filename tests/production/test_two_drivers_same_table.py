"""Two drivers (processes, each its own JVM and home) on the shared metastore service replace the same table at the
same moment: the cross-driver metadata lock makes them run one after the other (or the second fails with
MetadataLockTimeoutError, having written nothing), and the binlog's order is the final table's."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chains.binlog import BinlogEvent
from chains.catalog_binlog import read_catalog_events
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.postgres import PostgresServer
from tests.production.conftest import ROOT, shared_home, worker_env
from tests.servers.postgres import advisory_locks_of

pytestmark = [pytest.mark.servers, pytest.mark.xdist_group("production_service")]
READY_LIMIT = 300.0
"""Two JVMs starting at once on a busy 2-core machine."""


def binlog_in_commit_order(homes: list[str]) -> list[tuple[str, BinlogEvent]]:
    """Every event of the catalog binlog these homes commit to as (home location, event), in commit order: its seq
    is the commit order across drivers, and each event names its driver."""
    by_driver = {home.rsplit("=", 1)[1]: home for home in homes}
    events = list(read_catalog_events(homes[0]))
    assert [event.seq for event in events] == sorted(event.seq for event in events)
    return [(by_driver[event.driver], event) for event in events if event.driver in by_driver]


class Driver:
    """A two_drivers process; its JSON lines arrive on a queue."""

    def __init__(self, service: MetastoreService, home: str, db: str, name: str, barrier: Path,
                 read: Path | None) -> None:
        command = [sys.executable, "-m", "tests.production.two_drivers", home, service.uri, str(service.warehouse),
                   db, name, str(barrier), *([str(read)] if read is not None else [])]
        self.home, self.name = home, name
        self.process = subprocess.Popen(command, cwd=ROOT, env=worker_env(), stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr or []), daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout or []:
            if line.startswith("{"):
                self.lines.put(json.loads(line))

    def expect(self, key: str, limit: float) -> Any:
        deadline = time.monotonic() + limit
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{self.name} never said {key}: {''.join(self.stderr)[-3000:]}") from None
            if key in line:
                return line[key]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 9)
        self.process.wait(timeout=30)


@pytest.fixture
def drivers() -> Iterator[list[Driver]]:
    started: list[Driver] = []
    yield started
    for driver in started:
        driver.stop()


def test_two_drivers_replacing_the_same_table_at_once_run_one_after_the_other(
        service: MetastoreService, postgres_server: PostgresServer, drivers: list[Driver], tmp_path: Path) -> None:
    run = uuid.uuid4().hex[:8]
    db = f"two_{run}"
    names = [f"drv-a-{run}", f"drv-b-{run}"]
    homes = [shared_home(postgres_server, name) for name in names]
    barrier, read = tmp_path / "go", tmp_path / "read"
    drivers += [Driver(service, homes[0], db, names[0], barrier, read),
                Driver(service, homes[1], db, names[1], barrier, None)]
    for driver in drivers:
        driver.expect("ready", READY_LIMIT)
    barrier.touch()
    outcomes = {driver.name: driver.expect("statement", READY_LIMIT) for driver in drivers}
    read.touch()
    final = drivers[0].expect("final", 120)
    for driver in drivers:
        assert driver.process.wait(timeout=120) == 0, "".join(driver.stderr)[-3000:]

    succeeded = [name for name, outcome in outcomes.items() if outcome["error"] is None]
    for outcome in outcomes.values():
        assert outcome["error"] is None or outcome["error"]["type"] == "MetadataLockTimeoutError", outcome
    assert succeeded, outcomes
    events = [(home, event) for home, event in binlog_in_commit_order(homes)
              if f"`{db}`.`t`" in event.statement]
    assert [home.rsplit("=", 1)[1] for home, _ in events] == sorted(
        succeeded, key=lambda name: outcomes[name]["ended"]), "one event per statement that succeeded, in its order"
    last = events[-1][0].rsplit("=", 1)[1]
    assert final["rows"] == [[n, last] for n in range(20)], "the table is the last binlogged statement's"
    assert final["reserved"] == []
    print(f"\n[measured] two drivers at once: {json.dumps(outcomes)}")
    if len(succeeded) == 2:
        first, second = sorted(outcomes.values(), key=lambda outcome: outcome["ended"])
        assert abs(first["began"] - second["began"]) < 5.0, "they started at once"
        assert second["locked_at"][0] >= events[0][1].timestamp, "the second took the table once the first committed"
    url = homes[0].split("?", 1)[0]
    assert all(advisory_locks_of(url, f"ddl-log:{name}") == 0 for name in names), "nothing held by ended drivers"
