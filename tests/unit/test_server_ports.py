"""A port the project picks for a server it starts lies below the OS's ephemeral range, where no outgoing connection
made before the server binds can take it; it is free when picked; without a range to pick from, the OS picks. The
address to listen on may be IPv4 or IPv6 (its port checks and URL as each writes them); one that names no address is
refused by name."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from ddl_log.ops import server_ports as ports
from ddl_log.ops.connect_server import CONNECT_SERVER
from ddl_log.ops.errors import UnusableHostError
from ddl_log.ops.processes import accepts
from ddl_log.ops.thrift_server import THRIFT_SERVER


def test_a_picked_port_is_free_and_below_the_ephemeral_range() -> None:
    start = ports.ephemeral_start()
    if start is None:
        pytest.skip("no ephemeral range to read (not Linux)")
    for _ in range(20):
        port = ports.free_port()
        assert ports.LISTENER_PORTS_FROM <= port < start
        assert ports.bindable(port)


def test_a_port_another_listener_holds_is_not_picked(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", ports.LISTENER_PORTS_FROM))
        held.listen()
        monkeypatch.setattr(ports, "ephemeral_start", lambda: ports.LISTENER_PORTS_FROM + ports.ATTEMPTS)
        assert not ports.bindable(ports.LISTENER_PORTS_FROM)
        for _ in range(20):
            assert ports.free_port() != ports.LISTENER_PORTS_FROM


@pytest.mark.parametrize(("text", "start"), [("", None), ("not numbers", None), ("1024\t60999", 1024)])
def test_without_a_range_to_pick_from_the_os_picks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   text: str, start: int | None) -> None:
    source = tmp_path / "ip_local_port_range"
    source.write_text(text, encoding="ascii")
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE", source)
    assert ports.ephemeral_start() == start
    assert ports.bindable(ports.free_port())


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_an_ipv6_address_gets_a_port_a_connection_check_and_a_url_in_brackets() -> None:
    port = ports.free_port("::1")
    assert ports.bindable(port, "::1")
    assert not accepts(port, "::1")
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as listening:
        listening.bind(("::1", port))
        listening.listen()
        assert accepts(port, "::1")
        assert not ports.bindable(port, "::1")
    assert CONNECT_SERVER.url("::1", port) == f"sc://[::1]:{port}"
    assert THRIFT_SERVER.url("::1", port) == f"jdbc:hive2://[::1]:{port}/default"
    assert CONNECT_SERVER.url("127.0.0.1", port) == f"sc://127.0.0.1:{port}"


def test_an_address_of_no_family_is_refused_by_name() -> None:
    with pytest.raises(UnusableHostError, match=re.escape("cannot listen on no.such.host.invalid: ")):
        ports.free_port("no.such.host.invalid")
    assert not accepts(1, "no.such.host.invalid")
