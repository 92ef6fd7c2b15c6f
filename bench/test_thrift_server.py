"""The Thrift server over JDBC (docs/thrift-server.md), paired in one run: an atomic CREATE OR REPLACE ... AS SELECT
issued by a PyHive client to ``ddl-log thrift-server`` vs what plain Spark's Thrift server (no extension) runs for
the same intent, DROP TABLE IF EXISTS + CREATE TABLE ... AS SELECT (Spark refuses CREATE OR REPLACE for these
tables). Both servers run at once, each a driver of its own; the plain pair runs right before each round of the
atomic statement, and ``paired_ratio`` is the median of the per-round ratios."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.conftest import select
from bench.pairing import run_paired, timed
from bench.test_attached import ROOT
from ddl_log.ops.server_ports import free_port
from tests.thrift.clients import Server, pyhive, serving

ROUNDS = 9
ROWS = 1000


@pytest.fixture(scope="module")
def atomic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("thrift-bench") / "home", free_port()) as server:
        yield server


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("thrift-bench-plain")
    with plain_server(workdir, "thrift") as port:
        yield Server(workdir, {"port": port, "url": f"jdbc:hive2://127.0.0.1:{port}/default"})


@contextmanager
def plain_server(workdir: Path, server: str) -> Iterator[int]:
    """Plain Spark's ``server`` (thrift, connect) in a driver of its own (:mod:`bench.plain_server_driver`): its
    port, for the block."""
    port = free_port()
    driver = subprocess.Popen([sys.executable, "-m", "bench.plain_server_driver", str(workdir), str(port), server],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert driver.stdout is not None and driver.stdout.readline().strip() == "serving"
        yield port
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()


def test_create_or_replace_over_jdbc_vs_plain_drop_and_ctas(benchmark: Any, atomic: Server, plain: Server) -> None:
    replace = f"CREATE OR REPLACE TABLE t USING parquet AS {select(ROWS)}"
    with pyhive(atomic) as ours, pyhive(plain) as theirs:
        ours.execute(f"CREATE TABLE t USING parquet AS {select(ROWS)}")
        theirs.execute(f"CREATE TABLE t USING parquet AS {select(ROWS)}")

        def plain_pair() -> float:
            return timed(lambda: (theirs.execute("DROP TABLE IF EXISTS t"),
                                  theirs.execute(f"CREATE TABLE t USING parquet AS {select(ROWS)}")))

        run_paired(benchmark, lambda: ours.execute(replace), plain_pair, rounds=ROUNDS, warmup=1)
