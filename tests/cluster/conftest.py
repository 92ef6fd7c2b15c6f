"""The proofs on a Spark standalone cluster (issue 30): one cluster per test process, started by the product's own
command (``ddl-log cluster start``: a master and 2 workers of 1 core, executors of 512 MiB) when the first test
needs it and stopped (``ddl-log cluster stop``) at the end, which must leave no process of it behind. Every test of
this folder runs on one xdist worker (one cluster, and its two cores are all the machine has).

Drivers run in subprocesses (:func:`driver_env`): the test process keeps its own local session for the other tests,
and a driver on the cluster must be a process the tests can kill. ``DDL_LOG_CLUSTER_PROOFS=long`` (``make
test-cluster``) runs every crash point and fault; without it a representative part runs (``make proofs``).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log.ops.spark_cluster import JAVA_OPTIONS_ENV, MARKER_PROPERTY
from tests.cluster import late_writer
from tests.jvm_archive import BASE_JVM_OPTIONS

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("DDL_LOG_CLUSTER_PROOFS") == "long"
"""Every point and every fault (``make test-cluster``), not the representative part of ``make test``."""
EXECUTOR_MEMORY = "512m"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.spark)
            item.add_marker(pytest.mark.xdist_group("spark_cluster"))


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``ddl-log ARGS`` in a subprocess, from this checkout."""
    return subprocess.run([sys.executable, "-m", "ddl_log", *args], env=env or base_env(), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False)


def base_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), JAVA_OPTIONS_ENV: f"-Xmx256m {BASE_JVM_OPTIONS}"}
    for name in ("DDL_LOG_CRASH_AT", "DDL_LOG_HOME", "DDL_LOG_SPARK_MASTER", "PYSPARK_SUBMIT_ARGS"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="session")
def spark_cluster() -> Iterator[dict[str, Any]]:
    """The test process's cluster, as ``ddl-log cluster status --json`` describes it (``url``, ``root``, ...)."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-cluster-"))
    began = time.monotonic()
    started = cli("cluster", "start", "--dir", str(root), "--workers", "2", "--cores", "1", "--memory", "1g",
                  "--json")
    try:
        assert started.returncode == 0, started.stderr[-3000:]
        cluster = json.loads(started.stdout)
        print(f"\n[measured] spark cluster (master + 2 workers) up in {time.monotonic() - began:.1f} s")
        yield cluster
    finally:
        stopped = cli("cluster", "stop", "--dir", str(root))
        assert stopped.returncode == 0, stopped.stderr[-2000:]
        left = cluster_processes(root)
        assert left == [], f"the cluster left processes running: {left}"


def cluster_processes(root: Path) -> list[int]:
    """Processes still running with the cluster's marker (master, workers) or in one of its executors' work
    directories."""
    marker = f"-D{MARKER_PROPERTY}={root.resolve()}".encode()
    work = str(root.resolve() / "work").encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if (marker in cmdline.split(b"\0") or work in cmdline) and stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(int(entry.name))
    return found


def driver_env(cluster: dict[str, Any], **conf: str) -> dict[str, str]:
    """The environment of a driver process on ``cluster``: the ``spark_master`` setting, its executors' Python
    (this one, with the repository on its path for the test UDFs), their JVM options (as the tests' own JVMs:
    C1 and the serial collector) and memory, and any further Spark settings ``conf`` (dots as given)."""
    settings = {
        "spark.executor.memory": EXECUTOR_MEMORY,
        "spark.executor.extraJavaOptions": BASE_JVM_OPTIONS,
        "spark.executorEnv.PYTHONPATH": str(ROOT),
        "spark.sql.shuffle.partitions": "4",
        **conf,
    }
    submit = " ".join(f"--conf {shlex.quote(f'{key}={value}')}" for key, value in settings.items())
    return {**base_env(), "DDL_LOG_SPARK_MASTER": str(cluster["url"]), "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_SUBMIT_ARGS": f"{submit} pyspark-shell"}


def executors_of(application: str) -> list[int]:
    """The executor JVMs of ``application`` (an app id) that run now."""
    found = []
    needle = f"--app-id\0{application}\0".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if b"CoarseGrainedExecutorBackend" in cmdline and needle in cmdline + b"\0" and \
                stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(int(entry.name))
    return found


def run_proof_driver(cluster: dict[str, Any], workdir: Path, scenarios: list[str], timeout: float = 1500,
                     **conf: str) -> dict[str, dict[str, Any]]:
    """:mod:`tests.cluster.proof_driver` on ``cluster`` with ``scenarios`` (Spark settings ``conf``); each
    scenario's JSON line by name, plus ``"driver"`` (application, seconds, exit code, stderr tail)."""
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tests.cluster.proof_driver", str(workdir), *scenarios],
                          env=driver_env(cluster, **conf), cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    found = {line["scenario"]: line for line in lines if "scenario" in line}
    header = next((line for line in lines if "application" in line), {})
    found["driver"] = {**header, "seconds": round(time.monotonic() - began, 1), "returncode": done.returncode,
                       "stderr": done.stderr[-3000:]}
    print(f"\n[measured] proof driver {scenarios}: {found['driver']['seconds']} s")
    return found


def scenario(results: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    """One scenario's result, failing with the driver's own error when it did not pass."""
    found = results.get(name)
    assert found is not None, f"{name} did not report (driver: {results['driver']})"
    assert found["ok"], found.get("error")
    return found


SPECULATION = {"spark.speculation": "true", "spark.speculation.interval": "200ms",
               "spark.speculation.multiplier": "1.5", "spark.speculation.quantile": "0.5",
               "spark.speculation.minTaskRuntime": "1s"}
"""A copy of a task starts once it runs 1.5 times as long as the median of the finished half (and 1 s at least)."""
SPECULATIVE = ("ctas", "replace", "overwrite") if LONG else ("overwrite",)


@pytest.fixture(scope="session")
def speculative_driver(spark_cluster: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
                       ) -> Iterator[dict[str, Any]]:
    """One driver with ``spark.speculation=true``: an executor killed in each data job of :data:`SPECULATIVE`, then
    the ``orphan`` statement it is to be SIGKILLed in (:mod:`tests.cluster.test_driver_killed` does): the
    scenarios' results by name, ``"driver"`` (application, ``spark_home``) and ``"process"`` (the live driver)."""
    workdir = tmp_path_factory.mktemp("speculative-driver")
    scenarios = [f"kill-executor:{statement}" for statement in SPECULATIVE] + ["orphan"]
    began = time.monotonic()
    with open(workdir / "driver.stderr", "wb") as stderr:  # a file: a full pipe would stall the driver
        process = subprocess.Popen([sys.executable, "-m", "tests.cluster.proof_driver", str(workdir), *scenarios],
                                   env=driver_env(cluster=spark_cluster, **SPECULATION), cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
    found: dict[str, Any] = {"process": process, "stderr": workdir / "driver.stderr"}
    try:
        for line in process.stdout:  # type: ignore[union-attr]
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "scenario" in record:
                found[record["scenario"]] = record
            elif "application" in record:
                found["driver"] = record
            elif "orphan" in record:
                found["orphan"] = record
                break
        print(f"\n[measured] speculative driver up to its orphan statement: {time.monotonic() - began:.1f} s")
        yield found
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        if "orphan" in found:
            late_writer.end(Path(found["orphan"]["orphan"]) / "markers")
