"""The Connect server (docs/connect-server.md), paired in one run: an atomic CREATE OR REPLACE ... AS SELECT issued
by a Connect client to ``ddl-log connect-server`` vs what plain Spark's Connect server (no extension) runs for the
same intent, DROP TABLE IF EXISTS + CREATE TABLE ... AS SELECT. Both servers run at once, each a driver of its own;
the client (:mod:`bench.connect_timer`, a process of its own) times each statement where it issues it; the plain
pair runs right before each round of the atomic statement, and ``paired_ratio`` is the median of the per-round
ratios."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from bench.pairing import run_paired
from bench.test_attached import ROOT
from bench.test_thrift_server import plain_server
from ddl_log.ops.server_ports import free_port
from tests.thrift.clients import CONNECT, serving

ROUNDS = 9
ROWS = 1000


@pytest.fixture(scope="module")
def timer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[subprocess.Popen[str]]:
    """The Connect client, on our server and on plain Spark's, ready to time."""
    workdir = tmp_path_factory.mktemp("connect-bench-plain")
    with serving(tmp_path_factory.mktemp("connect-bench") / "home", free_port(), CONNECT) as ours, \
            plain_server(workdir, "connect") as port:
        client = subprocess.Popen([sys.executable, "-m", "bench.connect_timer", ours.url, f"sc://127.0.0.1:{port}",
                                   str(ROWS)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert client.stdout is not None and client.stdout.readline().strip() == "ready"
            yield client
        finally:
            client.kill()
            client.wait()


def ask(client: subprocess.Popen[str], which: str) -> float:
    """One timed replace by the client (``ours`` or ``plain``): its seconds as the client measured them."""
    assert client.stdin is not None and client.stdout is not None
    client.stdin.write(f"{which}\n")
    client.stdin.flush()
    return float(client.stdout.readline())


def test_create_or_replace_over_connect_vs_plain_drop_and_ctas(benchmark: Any,
                                                              timer: subprocess.Popen[str]) -> None:
    run_paired(benchmark, lambda: ask(timer, "ours"), lambda: ask(timer, "plain"), rounds=ROUNDS, warmup=1)
