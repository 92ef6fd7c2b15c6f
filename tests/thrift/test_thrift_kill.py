"""A real SIGKILL of the Thrift server's driver (Python and its JVM, the whole process group) while a CREATE OR REPLACE
issued over JDBC runs, at a named crash point (``DDL_LOG_CRASH_AT`` in the server's environment); then ``thrift-server
start`` again, whose attach recovers the home: the old table before the commit point, the new one after it, whole,
nothing left over, the binlog agreeing. The killed server's status says it died.

Each server started after a kill recovers it, is inspected over JDBC and is itself killed at the next point (3
server starts for 2 kills). The old table is made through the log by the first server (the crash point's first hit
is its commit: the count ``:2`` arms the replace's)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import attrs
import pytest

from ddl_log.ops.server_ports import free_port
from tests.thrift.clients import THRIFT, Server, binlog, ddl_log, location, pyhive, rows, start, status

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("thrift_kill")]

CRASH_AT = "DDL_LOG_CRASH_AT"
CRASHES = [
    ("commit.before_binlog", False),  # swapped, XID stored, binlog event not written: undone
    ("commit.after_binlog", True),    # committed: finished
]
LONG = "CREATE OR REPLACE TABLE t USING parquet AS SELECT id AS n, 'long' AS w FROM range(30000000)"
STOP_AFTER = 5.0
"""Seconds into the long replace at which ``stop`` is given (it takes longer than that on the test machine)."""
OLD = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, 'old' AS w FROM range(500)"
NEW = "CREATE OR REPLACE TABLE t USING parquet AS SELECT id AS n, 'new' AS w FROM range(3000)"


@attrs.frozen
class Kill:
    """One killed replace: what the client got, what ``status`` said, what the next server found after recovery."""

    client_error: str
    died: tuple[int, dict[str, Any]]
    killed_pid: int
    recovery: list[str]
    table: list[tuple[Any, ...]]
    columns: list[str]
    statements: list[str]
    dirs: set[str]
    table_dir: str


def killed_replace(server: Server) -> str:
    try:
        with pyhive(server) as cursor:
            cursor.execute(NEW)
    except Exception as error:  # noqa: BLE001 - the connection dies with the server: what the client sees
        return type(error).__name__
    return ""


def wait_died(home: Path, timeout: float = 120, server: str = THRIFT) -> tuple[int, dict[str, Any]]:
    """``status`` of ``server`` once it no longer says running (the Connect kill test's too)."""
    deadline = time.monotonic() + timeout
    while True:
        code, found = status(home, server)
        if found["state"] != "running" or time.monotonic() > deadline:
            return code, found
        time.sleep(0.5)


@pytest.fixture(scope="module")
def kills(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Kill]:
    home = tmp_path_factory.mktemp("thrift-kill") / "home"
    server = start(home, free_port(), env={CRASH_AT: f"{CRASHES[0][0]}:2"})
    found: dict[str, Kill] = {}
    try:
        with pyhive(server) as cursor:
            cursor.execute(OLD)
        for index, (point, _) in enumerate(CRASHES):  # each start recovers the kill before, then is killed
            error = killed_replace(server)
            died = wait_died(home)
            armed = {CRASH_AT: CRASHES[index + 1][0]} if index + 1 < len(CRASHES) else {}
            killed_pid = int(server.status["pid"])
            server = start(home, free_port(), env=armed)
            with pyhive(server) as cursor:
                table = rows(cursor, "SELECT w, count(*) FROM t GROUP BY w")
                columns = [row[0] for row in rows(cursor, "DESCRIBE TABLE t")]
                table_dir = location(cursor, "t").rstrip("/").rpartition("/")[2]
            dirs = {entry.name for entry in (home / "warehouse").iterdir() if entry.is_dir()}
            found[point] = Kill(error, died, killed_pid, list(server.status["recovery"]), table, columns,
                                binlog(home), dirs, table_dir)
        found["stop"] = stopped_mid_replace(home, server)
    finally:
        ddl_log(home, "thrift-server", "stop")
    return found


def stopped_mid_replace(home: Path, server: Server) -> Kill:
    """``thrift-server stop`` while a long replace runs (the last server of the chain), then ``start`` again."""
    outcome: list[str] = []

    def replace() -> None:
        try:
            with pyhive(server) as cursor:
                cursor.execute(LONG)
            outcome.append("")
        except Exception as error:  # noqa: BLE001 - what the client sees when the server stops under it
            outcome.append(type(error).__name__)

    client = threading.Thread(target=replace)
    client.start()
    time.sleep(STOP_AFTER)
    stop = ddl_log(home, "thrift-server", "stop")
    client.join(timeout=300)
    stopped = (stop.returncode, {"state": stop.stdout.strip()})
    server = start(home, free_port())
    with pyhive(server) as cursor:
        table = rows(cursor, "SELECT w, count(*) FROM t GROUP BY w")
        columns = [row[0] for row in rows(cursor, "DESCRIBE TABLE t")]
        table_dir = location(cursor, "t").rstrip("/").rpartition("/")[2]
    dirs = {entry.name for entry in (home / "warehouse").iterdir() if entry.is_dir()}
    return Kill(outcome[0] if outcome else "no answer", stopped, int(server.status["pid"]),
                list(server.status["recovery"]), table, columns, binlog(home), dirs, table_dir)


@pytest.mark.parametrize(("point", "committed"), CRASHES)
def test_a_killed_server_says_it_died_and_its_client_sees_the_connection_end(kills, point, committed):
    kill = kills[point]
    code, found = kill.died
    assert code == 1 and found["state"] == "died" and not found["running"] and found["pid"] == kill.killed_pid
    assert kill.client_error != ""


@pytest.mark.parametrize(("point", "committed"), CRASHES)
def test_the_next_start_recovers_the_old_or_the_new_table_whole(kills, point, committed):
    kill = kills[point]
    assert kill.recovery != []  # the killed statement's chain, recovered when the next server attached
    replaces = [text for text in kill.statements if text == NEW]
    if committed:
        assert kill.table == [("new", 3000)] and kill.columns == ["n", "w"] and len(replaces) == 1
    else:
        assert kill.table == [("old", 500)] and kill.columns == ["a", "w"] and replaces == []
    assert kill.statements[0] == OLD
    assert kill.dirs == {kill.table_dir}  # nothing left over: no work table, no orphan directory


def test_stop_during_a_replace_leaves_the_table_old_or_new_whole_after_the_next_start(kills):
    """``stop`` does not wait for running statements: Spark's context stops under a replace, the client gets an
    error and the statement is undone, by its own failure when what it made needs no Spark to remove (the new
    version's directory of a direct write), else by the next start's recovery (or, finished before the stop, it is
    the table and the binlog's)."""
    kill = kills["stop"]
    assert kill.died == (0, {"state": "stopped"})
    finished = LONG in kill.statements
    if finished:
        assert kill.client_error == "" and kill.table == [("long", 30000000)]
    else:
        assert kill.client_error != "" and kill.table == [("new", 3000)] and kill.recovery in ([], ["undone"])
    assert kill.columns == ["n", "w"] and kill.dirs == {kill.table_dir}
