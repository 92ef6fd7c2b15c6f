"""One Thrift server for a module: started as an operator starts it (``ddl-log thrift-server start``) on a home of the
module's own and a free port, stopped (``thrift-server stop``) after the module's last test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ddl_log.ops.server_ports import free_port
from tests.thrift.clients import Server, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("thrift") / "home", free_port()) as started:
        yield started
