"""A real SIGKILL of the Connect server's driver during a CREATE OR REPLACE a Connect client issued, at the crash
points of tests/thrift/test_thrift_kill.py (``DDL_LOG_CRASH_AT`` in the server's environment: before and after the
commit's binlog event), then ``connect-server start`` again: its attach recovers the home, and a Connect client
reads the old table (killed before the commit point) or the new one (after), whole, nothing left over, the binlog
agreeing. Three server starts for two kills: each start recovers the kill before and is itself killed at the next
point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log.ops.server_ports import free_port
from tests.connect.clients import connect, connect_while
from tests.thrift.clients import CONNECT, Server, binlog, ddl_log, start
from tests.thrift.test_thrift_kill import (  # the same assertions, on this module's kills
    CRASH_AT,
    CRASHES,
    NEW,
    OLD,
    Kill,
    test_a_killed_server_says_it_died_and_its_client_sees_the_connection_end,
    test_the_next_start_recovers_the_old_or_the_new_table_whole,
    wait_died,
)

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("connect_kill")]

READ: list[list[Any]] = [["sql", "table", "SELECT w, count(*) FROM t GROUP BY w"],
                         ["sql", "columns", "DESCRIBE TABLE t"],
                         ["sql", "location", "DESCRIBE TABLE EXTENDED t"]]


def start_connect(home: Path, armed: dict[str, str]) -> Server:
    return start(home, free_port(), env=armed, server=CONNECT)


@pytest.fixture(scope="module")
def kills(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Kill]:
    home = tmp_path_factory.mktemp("connect-kill") / "home"
    server = start_connect(home, {CRASH_AT: f"{CRASHES[0][0]}:2"})
    found: dict[str, Kill] = {}
    try:
        assert "rows" in connect(server, ["sql", "old", OLD])["old"]
        for index, (point, _) in enumerate(CRASHES):  # each start recovers the kill before, then is killed
            printed, died = connect_while(server, lambda: wait_died(home, server=CONNECT), ["sql", "new", NEW])
            answer = printed.get("new", {"error": "no answer"})
            killed_pid = int(server.status["pid"])
            server = start_connect(home, {CRASH_AT: CRASHES[index + 1][0]} if index + 1 < len(CRASHES) else {})
            read = connect(server, *READ)
            location = next(row[1] for row in read["location"]["rows"] if row[0] == "Location")
            dirs = {entry.name for entry in (home / "warehouse").iterdir() if entry.is_dir()}
            found[point] = Kill(answer.get("error", ""), died, killed_pid, list(server.status["recovery"]),
                                [tuple(row) for row in read["table"]["rows"]],
                                [row[0] for row in read["columns"]["rows"]], binlog(home), dirs,
                                location.rstrip("/").rpartition("/")[2])
    finally:
        ddl_log(home, CONNECT, "stop")
    return found


__all__ = ["test_a_killed_server_says_it_died_and_its_client_sees_the_connection_end",
           "test_the_next_start_recovers_the_old_or_the_new_table_whole"]
