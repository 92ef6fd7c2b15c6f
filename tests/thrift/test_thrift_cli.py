"""``ddl-log thrift-server`` and ``ddl-log connect-server`` without a server: what an operator sees before one starts,
when its port is taken or out of range or its address names nothing to listen on, after one died, and for a home it
cannot serve. Each is one clear line and an exit code, with nothing left behind; none starts Spark. Both commands
share their process management: each test runs for both."""

from __future__ import annotations

import json
import socket

import pytest

from ddl_log.ops.driver_server import STATE_FILE
from tests.thrift.clients import CONNECT, THRIFT, ddl_log

SERVERS = pytest.mark.parametrize(("server", "title"), [(THRIFT, "Thrift server"), (CONNECT, "Connect server")])


@SERVERS
def test_status_before_any_start_says_stopped(tmp_path, server, title):
    done = ddl_log(tmp_path / "home", server, "status", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"running": False, "state": "stopped", "dir": str(tmp_path / "home" / server)}
    stop = ddl_log(tmp_path / "home", server, "stop")
    assert (stop.returncode, stop.stdout.strip()) == (0, "not running")


@SERVERS
def test_a_taken_port_is_refused_before_anything_starts(tmp_path, server, title):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = ddl_log(tmp_path / "home", server, "start", "--port", str(port))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: {title} in {tmp_path / 'home' / server}: port {port} on 127.0.0.1 is taken: give another (--port)"]
    assert not (tmp_path / "home" / server / STATE_FILE).exists()
    assert not (tmp_path / "home" / server / "server.log").exists()  # no driver was launched


@SERVERS
def test_an_address_that_names_nothing_to_listen_on_is_refused_before_anything_starts(tmp_path, server, title):
    done = ddl_log(tmp_path / "home", server, "start", "--host", "no.such.host.invalid")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {title} in {tmp_path / 'home' / server}: cannot listen on no.such.host.invalid: ")
    assert line.endswith(" (--host)")
    assert not (tmp_path / "home" / server / STATE_FILE).exists()
    assert not (tmp_path / "home" / server / "server.log").exists()  # no driver was launched


@SERVERS
@pytest.mark.parametrize("port", ["70000", "-5", "0", "x"])
def test_a_port_no_server_can_listen_on_is_refused_as_a_usage_error(tmp_path, server, title, port):
    done = ddl_log(tmp_path / "home", server, "start", f"--port={port}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith(f"ddl-log {server} start: error: argument --port: ")
    assert not (tmp_path / "home" / server / "server.log").exists()  # no driver was launched


@SERVERS
def test_a_server_that_died_says_so_until_stop_clears_it(tmp_path, server, title):
    root = tmp_path / "home" / server
    root.mkdir(parents=True)
    (root / "server.log").write_text(f"{server}: serving\nKilled\n")
    state = {"root": str(root), "home": str(tmp_path / "home"), "host": "127.0.0.1", "port": 1, "pid": 1}
    (root / STATE_FILE).write_text(json.dumps(state))  # pid 1 is not a driver of this directory
    done = ddl_log(tmp_path / "home", server, "status", "--json")
    found = json.loads(done.stdout)
    assert done.returncode == 1 and found["state"] == "died" and found["pid"] == 1 and "Killed" in found["log_tail"]
    text = ddl_log(tmp_path / "home", server, "status")
    assert text.returncode == 1 and "(died)" in text.stdout and "the next `start` recovers the home" in text.stdout
    assert ddl_log(tmp_path / "home", server, "stop").stdout.strip() == "had died (its state cleared)"
    assert not (root / STATE_FILE).exists()


@SERVERS
def test_a_database_home_needs_a_directory_for_the_server(tmp_path, server, title):
    url = "postgresql://127.0.0.1:1/db?home=h"
    done = ddl_log(tmp_path, "--home", url, server, "status")  # the later --home is the one used
    assert done.returncode == 1
    assert done.stderr.strip() == (f"error: {title} in {url}: a database home has no directory for the server: "
                                   "give one (--dir)")
