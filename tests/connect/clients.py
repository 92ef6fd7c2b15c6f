"""What a test of the Connect server uses beside tests/thrift/clients.py's ``ddl-log`` helpers: a Connect client
(:mod:`tests.connect.connect_client`) run in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from tests.thrift.clients import Server

T = TypeVar("T")


def client_process(server: Server, *steps: list[Any]) -> subprocess.Popen[str]:
    """A Connect client running ``steps`` in one session of ``server`` (its outcomes on stdout, :func:`outcomes`)."""
    environ = {key: value for key, value in os.environ.items() if key != "DDL_LOG_CRASH_AT"}
    return subprocess.Popen([sys.executable, "-m", "tests.connect.connect_client", server.url, json.dumps(list(steps))],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=environ)


def outcomes(printed: str) -> dict[str, dict[str, Any]]:
    """Each step's outcome by its label (those the client printed before it ended)."""
    found = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    return {outcome["label"]: outcome for outcome in found}


def connect(server: Server, *steps: list[Any], timeout: float = 600) -> dict[str, dict[str, Any]]:
    """Run ``steps`` in one Connect session of ``server``: each step's outcome by its label."""
    client = client_process(server, *steps)
    printed, _ = client.communicate(timeout=timeout)
    return outcomes(printed)


def connect_while(server: Server, waiting: Callable[[], T], *steps: list[Any]) -> tuple[dict[str, dict[str, Any]], T]:
    """Run ``steps`` in a client while ``waiting()`` runs (until the server died, say), then end the client: a
    Connect client retries a server that is gone for minutes. The outcomes it printed, and what ``waiting`` gave."""
    client = client_process(server, *steps)
    try:
        waited = waiting()
    finally:
        client.kill()
        printed, _ = client.communicate()
    return outcomes(printed), waited
