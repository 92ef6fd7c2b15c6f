"""Driver processes of the production-shape tests that run side by side: each a module of this folder in its own
process (its own JVM and home) on the shared metastore service, talking back in JSON lines."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import attrs

from chains.binlog import BinlogEvent
from chains.catalog_binlog import read_catalog_events
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.postgres import PostgresServer
from tests.production.conftest import ROOT, shared_home, worker_env

TWO_DRIVERS = "tests.production.two_drivers"
OVERLAPPING_TRANSACTIONS = "tests.production.overlapping_transactions"
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
    """A driver process (``module`` run with the home, the service's URI and warehouse, then ``arguments``, the
    name among them where the module wants it); its JSON lines arrive on a queue."""

    def __init__(self, service: MetastoreService, home: str, name: str, module: str, *arguments: object) -> None:
        command = [sys.executable, "-m", module, home, service.uri, str(service.warehouse),
                   *[str(argument) for argument in arguments if argument is not None]]
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


@attrs.frozen
class Two:
    """Two drivers started and ready: the database they share, their names and homes, the file that lets them go
    (``barrier``) and the one that lets the first read the end state (``read``)."""

    db: str
    names: list[str]
    homes: list[str]
    barrier: Path
    read: Path


def start_two(started: list[Driver], service: MetastoreService, postgres_server: PostgresServer, tmp_path: Path,
              module: str, db: str, *extras: tuple[str, tuple[object, ...]]) -> Two:
    """Start ``module`` twice (``extras``: each driver's name and its arguments after the database and the name; the
    barrier then follows, and for the first driver the read file), each on a database home of its own, and wait
    until both are ready (their JVMs started and warm)."""
    run = uuid.uuid4().hex[:8]
    two = Two(f"{db}_{run}", [f"{name}-{run}" for name, _ in extras], [], tmp_path / "go", tmp_path / "read")
    for index, (name, (_, arguments)) in enumerate(zip(two.names, extras, strict=True)):
        two.homes.append(shared_home(postgres_server, name))
        started.append(Driver(service, two.homes[-1], name, module, two.db, name, *arguments, two.barrier,
                              two.read if index == 0 else None))
    for driver in started:
        driver.expect("ready", READY_LIMIT)
    return two
