"""A port the project picks for a server it starts lies below the OS's ephemeral range, where no outgoing connection
made before the server binds can take it; it is free when picked; without a range to pick from, the OS picks."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ddl_log.ops import server_ports as ports


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
