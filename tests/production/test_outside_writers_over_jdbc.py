"""Two Thrift servers on one metastore service, as two teams run them: ``ddl-log thrift-server`` (the log's) and plain
Spark's (no extension, outside the log's locks). Over JDBC, one client replaces a table through the log's server
(CREATE OR REPLACE AS SELECT, INSERT OVERWRITE) while another drops it and makes its own under the same name through
plain Spark's, as fast as they can, for :data:`SECONDS`. Whatever the interleaving:

* every statement of the log's server either runs whole (a binlog event each) or fails with Spark's error naming
  the cause (the table changed outside the log, or missing, or, a CTAS of a missing name, another CTAS at the same
  directory), never an internal error;
* plain Spark's statements fail only as they fail against one another (the name taken between its DROP and its
  CREATE, two CTAS at one directory);
* afterwards one table holds the rows of one statement, whole; recovery has nothing to do; and the warehouse holds
  no directory but that table's (every refused statement of the log's removed what it wrote, every replaced
  version was deleted, nothing of plain Spark's tables was kept)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
import pytest

from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.server_ports import free_port
from tests.production.conftest import ROOT, worker_env
from tests.thrift.clients import Server, binlog, ddl_log, location, pyhive, rows

pytestmark = pytest.mark.spark

SECONDS = 25.0
"""How long both clients run (each statement takes about a second on a 2-core machine)."""
TABLE = "ow.t"
ATOMIC_STATEMENTS = (
    "CREATE OR REPLACE TABLE ow.t USING parquet AS SELECT CAST({n} AS INT) AS n, 'log' AS who FROM range(3)",
    "INSERT OVERWRITE ow.t SELECT CAST({n} AS INT), 'log' FROM range(3)",
)
PLAIN_STATEMENTS = (
    "DROP TABLE IF EXISTS ow.t",
    "CREATE TABLE ow.t USING parquet AS SELECT CAST({n} AS INT) AS n, 'plain' AS who FROM range(3)",
)
ATOMIC_REFUSALS = ("changed outside the DDL log", "TABLE_OR_VIEW_NOT_FOUND", "TABLE_OR_VIEW_ALREADY_EXISTS")
"""What the log's server may answer while the other server drops and makes the table: the change it found before
(or, dropped in the window after that read, at) its first change of the name, the table missing (an INSERT
OVERWRITE between the other's DROP and CREATE), or the name taken between its check and its create (a CREATE OR
REPLACE that found no table)."""
LOST_THE_NAME = ("TABLE_OR_VIEW_ALREADY_EXISTS", "AlreadyExistsException")
"""Plain Spark's CREATE finding the name taken: by its check (Spark's condition), or by the metastore's create after
its job wrote the rows (Hive's exception as Spark passes it on)."""
SAME_DIRECTORY_RACE = ("PATH_NOT_FOUND", "No such file or directory", "FileNotFoundException",
                       "Job aborted due to stage failure")
"""A CTAS of the name failing on files another CTAS of the name, at the same directory ``ow.db/t``, removed under it:
Spark's file commit gives every job at a directory the same ``_temporary/0``, which one job's commit or abort
removes under the other. Plain Spark against plain Spark fails so too (two sessions' DROP + CTAS loops of one name
for 40 s, 2026-12-04: 5 PATH_NOT_FOUND, 31 "No such file or directory" from Hadoop's chmod, 7 failed jobs, 1
FileNotFoundException, beside 73 LOCATION_ALREADY_EXISTS and 47 TABLE_OR_VIEW_ALREADY_EXISTS). The log's CREATE OR
REPLACE of a missing name writes its CTAS at that directory, as plain Spark's does, and may meet it so too (then
undone whole: the binlog and warehouse checks below hold)."""
PLAIN_REFUSALS = (*LOST_THE_NAME, "LOCATION_ALREADY_EXISTS", *SAME_DIRECTORY_RACE)
"""What plain Spark's own drop-then-create may answer: the log made the table between its DROP and its CREATE; its
CTAS racing the log's at the directory (:data:`SAME_DIRECTORY_RACE`); the directory ``ow.db/t`` still there (its
CTAS that lost that race wrote its rows there before it failed, which this client then removes as an operator
would; or, for the moment between the log's commit and the deletion after it, the version of a table plain Spark
made that the log replaced: no grace period here)."""


@contextmanager
def plain_server(workdir: Path, service: MetastoreService, port: int) -> Iterator[Server]:
    """Plain Spark's Thrift server on ``service``, killed (its process group) at the end."""
    process = subprocess.Popen([sys.executable, "-m", "bench.plain_server_driver", str(workdir), str(port), "thrift",
                                service.uri, str(service.warehouse)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=worker_env(),
                               start_new_session=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "serving", "plain Spark's Thrift server did not start"
        yield Server(workdir, {"port": port, "url": f"jdbc:hive2://127.0.0.1:{port}/default"})
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)


@attrs.define
class Client:
    """One JDBC client's loop: ``statements`` in turn on one connection of ``server`` until ``until``; what each
    did (``ran``: the statements that ran; ``refused``: the others with their error)."""

    server: Server
    statements: tuple[str, ...]
    until: float
    leftover: Path | None = None
    """Where plain Spark's own CTAS leaves its rows when it loses the race for the name (removed after it)."""
    ran: list[str] = attrs.field(factory=list)
    refused: list[str] = attrs.field(factory=list)
    timeline: list[str] = attrs.field(factory=list)
    """Each statement with its start and end (epoch seconds) and outcome: what a failure prints."""

    def run(self) -> None:
        with pyhive(self.server) as cursor:
            n = 0
            while time.monotonic() < self.until:
                text = self.statements[n % len(self.statements)].format(n=n)
                n += 1
                began = time.time()
                try:
                    cursor.execute(text)
                except Exception as error:  # noqa: BLE001 - each refusal is classified by the test
                    self.refused.append(f"{text}: {error}")
                    self.timeline.append(f"{began:.3f}-{time.time():.3f} {text[:40]}: {str(error)[:300]}")
                    if any(reason in str(error) for reason in LOST_THE_NAME):
                        self.remove_own_leftover(began)
                else:
                    self.ran.append(text)
                    self.timeline.append(f"{began:.3f}-{time.time():.3f} {text[:40]}: ran")

    def remove_own_leftover(self, began: float) -> None:
        """Remove what plain Spark's CTAS wrote before it failed (every file written since ``began``; anything
        older there is someone else's and stays for the test to see)."""
        if self.leftover is None or not self.leftover.is_dir():
            return
        changes = [float(entry.rsplit("@", 1)[1]) for entry in tree_of(self.leftover)]
        if changes and all(changed >= began - 1 for changed in changes):
            shutil.rmtree(self.leftover, ignore_errors=True)

    def refused_but(self, allowed: tuple[str, ...]) -> list[str]:
        return [message for message in self.refused if not any(reason in message for reason in allowed)]


def tree_of(directory: Path) -> list[str]:
    """Every file under ``directory`` with its last change (epoch seconds), for a failure's message."""
    found = []
    for root, _, files in os.walk(directory):
        for name in files:
            path = Path(root) / name
            with contextlib.suppress(OSError):
                found.append(f"{path.relative_to(directory)}@{path.stat().st_mtime:.3f}")
    return sorted(found)


def race(atomic: Client, plain: Client) -> None:
    threads = [threading.Thread(target=client.run) for client in (atomic, plain)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=SECONDS + 600)


def started(home: Path, joins: tuple[str, ...]) -> Server:
    """``ddl-log thrift-server start`` on ``home`` joined to the service (no grace period: a replaced version is
    deleted after its statement)."""
    done = ddl_log(home, *joins, "--grace-seconds", "0", "thrift-server", "start", "--port", str(free_port()),
                   "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return Server(home, json.loads(done.stdout))


def test_a_plain_thrift_server_dropping_and_making_the_table_meanwhile_breaks_nothing(
        service: MetastoreService, tmp_path: Path) -> None:
    home = tmp_path / "home"
    joins = ("--metastore-uri", service.uri, "--warehouse", str(service.warehouse))
    database = Path(str(service.warehouse)) / "ow.db"
    with plain_server(tmp_path / "plain", service, free_port()) as plain_side:
        with pyhive(plain_side) as cursor:
            cursor.execute("CREATE DATABASE IF NOT EXISTS ow")
            cursor.execute("DROP TABLE IF EXISTS ow.t")
        atomic_side = started(home, joins)
        until = time.monotonic() + SECONDS
        atomic = Client(atomic_side, ATOMIC_STATEMENTS, until)
        plain = Client(plain_side, PLAIN_STATEMENTS, until, leftover=database / "t")
        try:
            race(atomic, plain)
        finally:
            stopped = ddl_log(home, *joins, "thrift-server", "stop")
        assert stopped.returncode == 0, stopped.stderr
        print(f"\n[measured] log's server: {len(atomic.ran)} ran, {len(atomic.refused)} refused; plain Spark's: "
              f"{len(plain.ran)} ran, {len(plain.refused)} refused")
        assert atomic.ran and any(text.startswith("CREATE") for text in plain.ran), "the two never met"
        around = f"log's: {atomic.timeline}; plain Spark's: {plain.timeline}"
        assert [message for message in atomic.refused_but(ATOMIC_REFUSALS) if not (
            message.startswith("CREATE OR REPLACE") and any(race in message for race in SAME_DIRECTORY_RACE))] == [], \
            around
        assert plain.refused_but(PLAIN_REFUSALS) == [], around
        assert len(binlog(home)) == len(atomic.ran), "one binlog event per statement that ran, none for a refused one"
        recovered = ddl_log(home, *joins, "recover", "--json")
        assert recovered.returncode == 0, recovered.stderr
        report = json.loads(recovered.stdout.splitlines()[-1])
        # nothing to undo or finish but a deletion come due: a statement undone with its name taken keeps its
        # previous version (due at once, grace 0), deleted after the server's next statement, or here if none came
        assert report["abandoned"] == [] and all(
            outcome["outcome"] == "finished" and outcome["detail"].startswith("delete_data")
            and outcome["statement"].startswith("kept after undo, its name taken: ")
            for outcome in report["outcomes"]), report
        with pyhive(plain_side) as cursor:
            tables = rows(cursor, "SHOW TABLES IN ow")
            final = rows(cursor, f"SELECT n, who, count(*) FROM {TABLE} GROUP BY n, who") if tables else []
            where = location(cursor, TABLE).removeprefix("file:") if tables else None
    assert len(final) == (1 if tables else 0) and all(count == 3 for *_, count in final), final
    left = {entry.name for entry in database.iterdir()} if database.exists() else set()
    assert left == ({Path(where).name} if where else set()), (
        f"a directory no table uses is left behind: {tree_of(database)}; log's: {atomic.timeline[-6:]}; plain "
        f"Spark's: {plain.timeline[-6:]}")
