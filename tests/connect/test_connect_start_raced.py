"""A port another listener takes while the Connect server's driver starts (after ``start`` found it free, before
Spark binds it, 10 to 30 s later): ``start`` exits 1 with one line that names the JVM's cause (the BindException),
nothing is left running and no state behind, and the next ``start`` of the home serves. The same failure, from a
client connection that took a port the OS had picked, failed CI's Connect kill proof before ports were picked below
the ephemeral range (ddl_log/ops/server_ports.py)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from ddl_log.ops.driver_server import STATE_FILE
from ddl_log.ops.server_ports import free_port
from tests.connect.clients import connect
from tests.thrift.clients import CONNECT, ddl_log, serving, status

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("connect_start_raced")]



def once_launched(log: Path, timeout: float = 120) -> None:
    """Until the driver's log exists: ``start`` checked the port, then launched the driver (its Spark session is up
    seconds later)."""
    deadline = time.monotonic() + timeout
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_port_taken_while_the_driver_starts_fails_the_start_in_one_line_and_leaves_nothing(tmp_path):
    home, port = tmp_path / "home", free_port()
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    released = threading.Event()

    def take() -> None:
        once_launched(home / CONNECT / "server.log")
        taken.bind(("127.0.0.1", port))
        taken.listen()
        released.wait(600)
        taken.close()

    thief = threading.Thread(target=take, daemon=True)
    thief.start()
    try:
        done = ddl_log(home, CONNECT, "start", "--port", str(port))
    finally:
        released.set()
        thief.join()
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: Connect server in {home / CONNECT}: Py4JJavaError: ")
    assert f"(caused by java.net.BindException: Failed to bind to address /127.0.0.1:{port}" in line
    assert status(home, CONNECT)[1]["state"] == "stopped"
    assert not (home / CONNECT / STATE_FILE).exists()
    with serving(home, free_port(), server=CONNECT) as server:  # the home was let go: the next start serves
        assert connect(server, ["sql", "one", "SELECT 1 AS n"])["one"]["rows"] == [[1]]
