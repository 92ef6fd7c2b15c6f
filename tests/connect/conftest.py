"""One Connect server for a module: started as an operator starts it (``ddl-log connect-server start``) on a home of
the module's own and a free port, stopped (``connect-server stop``) after the module's last test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ddl_log.ops.server_ports import free_port
from tests.thrift.clients import CONNECT, Server, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("connect") / "home", free_port(), server=CONNECT) as started:
        yield started
