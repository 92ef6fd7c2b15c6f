"""What a test of the Thrift server (or the Connect server: ``server=CONNECT``) uses: ``ddl-log`` as an operator runs
it, and the two clients users connect to the Thrift server with, beeline (Hive's JDBC shell, from pyspark's jars) and
PyHive (HiveServer2's protocol from Python)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from ddl_log.ops.metastore import pyspark_jars

BEELINE = "org.apache.hive.beeline.BeeLine"


def ddl_log(home: Path, *args: str, env: dict[str, str] | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``ddl-log --home HOME ARGS`` in a process of its own (``env``: its environment; DDL_LOG_CRASH_AT only when
    given there)."""
    environ = {**os.environ, **(env or {})}
    if "DDL_LOG_CRASH_AT" not in (env or {}):
        environ.pop("DDL_LOG_CRASH_AT", None)
    return subprocess.run([sys.executable, "-m", "ddl_log", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=timeout, check=False, env=environ)


@attrs.frozen
class Server:
    """A started server, as ``thrift-server status --json`` reports it."""

    home: Path
    status: dict[str, Any]

    @property
    def port(self) -> int:
        return int(self.status["port"])

    @property
    def url(self) -> str:
        return str(self.status["url"])


THRIFT = "thrift-server"
CONNECT = "connect-server"
"""The server commands (``server`` below): the Thrift server's, the Connect server's."""


def start(home: Path, port: int, *, env: dict[str, str] | None = None, server: str = THRIFT) -> Server:
    done = ddl_log(home, "--grace-seconds", "0", server, "start", "--port", str(port), "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return Server(home, json.loads(done.stdout))


@contextmanager
def serving(home: Path, port: int, server: str = THRIFT) -> Iterator[Server]:
    """A server on ``home`` for the block, stopped however it ends."""
    started = start(home, port, server=server)
    try:
        yield started
    finally:
        ddl_log(home, server, "stop")


def status(home: Path, server: str = THRIFT) -> tuple[int, dict[str, Any]]:
    done = ddl_log(home, server, "status", "--json")
    return done.returncode, json.loads(done.stdout)


def binlog(home: Path) -> list[str]:
    """The statements of the home's binlog (read while the server holds the home: ``binlog`` takes no lock)."""
    done = ddl_log(home, "binlog", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["statement"] for line in done.stdout.splitlines() if line.startswith("{")]


def beeline(url: str, *statements: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Hive's JDBC shell from pyspark's jars: ``statements`` in one connection, rows as CSV on stdout (one of
    beeline's own commands, ``!tables``, alone: it takes no semicolon)."""
    script = statements[0] if statements[0].startswith("!") else ";\n".join(statements) + ";"
    command = ["java", "-cp", f"{pyspark_jars()}/*", BEELINE, "-u", url, "--silent=true", "--outputformat=csv2",
               "--showHeader=false", "-e", script]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


@contextmanager
def pyhive(server: Server) -> Iterator[Any]:
    """A PyHive cursor on its own connection (so its own Spark session in the server)."""
    from pyhive import hive

    connection = hive.connect("127.0.0.1", port=server.port, username="test")
    try:
        cursor = connection.cursor()
        yield cursor
        cursor.close()
    finally:
        connection.close()


def rows(cursor: Any, text: str) -> list[tuple[Any, ...]]:
    cursor.execute(text)
    return [tuple(row) for row in cursor.fetchall()]


def location(cursor: Any, table: str) -> str:
    described = rows(cursor, f"DESCRIBE TABLE EXTENDED {table}")
    return str(next(row[1] for row in described if row[0] == "Location"))


def metadata(cursor: Any, call: str, **request: Any) -> list[tuple[Any, ...]]:
    """A HiveServer2 metadata call on ``cursor``'s session (``GetTables``, ``GetColumns``: what a JDBC or ODBC
    driver sends for ``DatabaseMetaData.getTables``/``getColumns``), its rows."""
    from TCLIService import ttypes

    connection = cursor._connection
    cursor._reset_state()
    cursor._state = cursor._STATE_RUNNING
    response = getattr(connection.client, call)(
        getattr(ttypes, f"T{call}Req")(sessionHandle=connection.sessionHandle, **request))
    assert response.status.statusCode == ttypes.TStatusCode.SUCCESS_STATUS, response.status
    cursor._operationHandle = response.operationHandle
    return [tuple(row) for row in cursor.fetchall()]
