"""dbt's thrift method, paired in one run (issue 38: at most 1.15x): ``type: spark_ddl_log`` with ``method: thrift``
on ``ddl-log thrift-server`` against plain dbt-spark's ``method: thrift`` on plain Spark's Thrift server (no
extension, :func:`bench.test_thrift_server.plain_server`), the nearest honest baseline: the same client (dbt-spark's
PyHive connection), the same kind of server driver, dbt-spark's DROP + CREATE where the adapter sends one atomic
statement. Two projects: bench/test_dbt.py's (``dbt build`` of a seed, a table, a view, an incremental model) and a
run of many small models. Both targets poll with ``poll_interval: 0`` (dbt-spark's default, 5 s, would measure its
sleep). The plain build runs right before each atomic round; ``paired_ratio`` is the median of per-round ratios."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.test_dbt import MODELS, SEED, SMALL, SMALL_MODELS, build, measure, write_project
from bench.test_thrift_server import plain_server
from ddl_log.ops.server_ports import free_port
from tests.thrift.clients import serving


@pytest.fixture(scope="module")
def ports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, int]]:
    """The port of ``ddl-log thrift-server`` (``atomic``) and of plain Spark's Thrift server (``plain``)."""
    with serving(tmp_path_factory.mktemp("dbt-thrift-bench") / "home", free_port()) as atomic, \
            plain_server(tmp_path_factory.mktemp("dbt-thrift-bench-plain"), "thrift") as plain:
        yield {"atomic": atomic.port, "plain": plain}


def project(root: Path, ports: dict[str, int], models: dict[str, str], seeds: dict[str, str]) -> Path:
    """A project with a target per server (``paired``: plain dbt-spark on plain Spark's server again, on a schema
    of its own), each built once to warm dbt and both servers."""
    def target(kind: str, port: int, schema: str) -> dict[str, Any]:
        return {"type": kind, "method": "thrift", "host": "127.0.0.1", "port": port, "user": "bench",
                "schema": schema, "threads": 1, "poll_interval": 0}

    outputs = {"plain": target("spark", ports["plain"], "dbt_plain"),
               "paired": target("spark", ports["plain"], "dbt_paired"),
               "atomic": target("spark_ddl_log", ports["atomic"], "dbt_atomic")}
    write_project(root, models, seeds, outputs)
    for name in outputs:
        build(root, name)
    return root


@pytest.fixture(scope="module")
def small_project(ports: dict[str, int], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("dbt-thrift-small"), ports, SMALL_MODELS, {})


@pytest.fixture(scope="module")
def bench_project(ports: dict[str, int], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory.mktemp("dbt-thrift-project"), ports, MODELS, {"s.csv": SEED})


@pytest.mark.parametrize("kind", ["plain", "atomic"])
def test_dbt_build_over_thrift(benchmark: Any, bench_project: Path, kind: str) -> None:
    benchmark.group = "dbt build over thrift: seed, table, view, incremental"
    measure(benchmark, bench_project, kind)


@pytest.mark.parametrize("kind", ["plain", "atomic"])
def test_dbt_build_of_many_small_models_over_thrift(benchmark: Any, small_project: Path, kind: str) -> None:
    benchmark.group = f"dbt build over thrift: {SMALL} tiny tables and a view on each"
    measure(benchmark, small_project, kind)
