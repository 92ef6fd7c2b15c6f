"""Readers during repeated `dbt run` calls in the production shape: a Hive metastore service on PostgreSQL (started
by the project, as ``ddl-log metastore start`` does), the dbt project in a driver of its own
(:mod:`tests.dbt.service_driver`, the adapter's DDL log in a database home on the same PostgreSQL) with two reader
threads in its session, and a reader driver (:mod:`tests.readers.reader_process`) that resolves the model's table
anew for every read (``REFRESH TABLE``, then the query) throughout. Plain dbt-spark runs the same model first, in
the same test run, for its figures (it is expected to fail reads: its DROP, then its CREATE); the adapter's must be 0
failed and 0 wrong in both places: every read all rows of one version the runs made.

`make test-dbt` (``DBT_FULL=1``) runs it, 5 replacing runs per side (kept out of `make test`'s time)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ddl_log.ops import metastore, postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.metastore_schema import JAVA_OPTIONS_ENV
from tests.dbt.conftest import FULL
from tests.dbt.service_driver import MODEL, MODES, ROWS, SCHEMA
from tests.jvm_archive import SERVICE_JVM_OPTIONS
from tests.readers.harness import load, records
from tests.readers.model import Read
from tests.readers.services import Driver, drivers, wait_for

pytestmark = [pytest.mark.servers, pytest.mark.timeout(1800)]

RUNS = 5 if FULL else 1
"""Replacing runs per side, after the run that creates the table."""


@pytest.fixture(scope="module")
def service() -> Iterator[MetastoreService]:
    """A metastore service on a local PostgreSQL cluster it starts (under the system's temporary directory, which
    the unprivileged user PostgreSQL runs as when we are root can enter); stopped, cluster included, at the end."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime")
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-dbt-svc-"))
    root.chmod(0o755)
    previous = os.environ.get(JAVA_OPTIONS_ENV)
    os.environ[JAVA_OPTIONS_ENV] = SERVICE_JVM_OPTIONS
    try:
        yield metastore.start(root / "service")
    finally:
        metastore.stop(root / "service")
        if previous is None:
            os.environ.pop(JAVA_OPTIONS_ENV, None)
        else:
            os.environ[JAVA_OPTIONS_ENV] = previous
        shutil.rmtree(root, ignore_errors=True)


def write_project(root: Path, service: MetastoreService, home: str) -> None:
    (root / "project" / "models").mkdir(parents=True)
    (root / "project" / "dbt_project.yml").write_text(yaml.safe_dump(
        {"name": "svc", "version": "1.0", "config-version": 2, "profile": "svc"}))
    (root / "project" / "models" / f"{MODEL}.sql").write_text(
        "{{ config(materialized='table') }}\nselect id, {{ var('version') }} as version from range(" + str(ROWS) + ")")
    common = {"method": "session", "host": "localhost", "schema": SCHEMA, "threads": 1}
    outputs = {"plain": {"type": "spark", **common},
               "adapter": {"type": "spark_ddl_log", **common, "ddl_log_home": home, "grace_seconds": 600,
                           "metastore_uri": service.uri, "warehouse": str(service.warehouse)}}
    (root / "profiles.yml").write_text(yaml.safe_dump({"svc": {"target": "plain", "outputs": outputs}}))


def tally(reads: list[Read], versions: set[int]) -> Counter[str]:
    """``good``: all rows of one version the runs made; ``failed``: the read (or its REFRESH) raised; ``wrong``:
    anything else (empty, partial, mixed, a version never made)."""
    counts: Counter[str] = Counter()
    for read in reads:
        counts["reads"] += 1
        if read.error is not None:
            counts["failed"] += 1
            counts["error " + read.error.split(":", 1)[0]] += 1
        elif read.result is not None and len(read.result) == 1 and read.result[0][0] == ROWS \
                and read.result[0][1] == read.result[0][2] and read.result[0][1] in versions:
            counts["good"] += 1
        else:
            counts["wrong"] += 1
    return counts


@pytest.mark.skipif(not FULL, reason="make test-dbt (DBT_FULL=1): a metastore service, two drivers and dbt runs, about "
                    "45 s; make test keeps the same-session readers during dbt runs and a killed dbt run")
def test_a_reader_in_another_driver_never_fails_during_dbt_runs_beside_plain_dbt_spark(
        service: MetastoreService, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    began = time.monotonic()
    server = postgres.status(service.postgres_root) if service.postgres_root is not None else None
    assert server is not None, "the service's own PostgreSQL cluster"
    write_project(tmp_path, service, postgres.create_database(server, "dbt_homes") + "?home=dbt-driver")
    common = ["--uri", service.uri, "--warehouse", str(service.warehouse)]
    reader_out, driver_out, stop = tmp_path / "reader.jsonl", tmp_path / "driver.jsonl", tmp_path / "stop"
    with drivers() as started:
        reader = Driver("tests.readers.reader_process",
                        [*common, "--home", str(tmp_path / "reader-home"), "--control", str(tmp_path / "control.json"),
                         "--out", str(reader_out), "--stop-file", str(stop), "--refresh-every", "1"],
                        tmp_path / "reader.log")
        started.append(reader)
        driver = Driver("tests.dbt.service_driver", [str(tmp_path), service.uri, str(service.warehouse), str(RUNS)],
                        tmp_path / "driver.log")
        started.append(driver)
        wait_for(reader_out, "ready", reader)
        wait_for(driver_out, "ready", driver)
        ready = time.monotonic() - began
        (tmp_path / "go").touch()
        assert driver.wait(timeout=1500) == 0, driver.tail()
        stop.touch()
        reader.wait(timeout=300)
    steps = list(records(driver_out))
    assert all(step["success"] for step in steps if step["type"] == "run"), steps
    figures: dict[tuple[str, str], Counter[str]] = {}
    for place, path in (("another driver", reader_out), ("same session", tmp_path / "same-session.jsonl")):
        _, reads, _ = load(path)
        for number, mode in enumerate(MODES):
            start, end = (next(s["at"] for s in steps if s["type"] == "phase" and s["mode"] == mode
                               and s["edge"] == edge) for edge in ("start", "end"))
            figures[place, mode] = tally([r for r in reads if start <= r.start <= end],
                                         set(range(100 * number, 100 * number + RUNS + 1)))
    seconds = {mode: [round(s["seconds"], 1) for s in steps if s["type"] == "run" and s["mode"] == mode]
               for mode in MODES}
    with capsys.disabled():
        print(f"\nreaders during dbt runs on a metastore service on PostgreSQL ({RUNS} replacing runs each, "
              f"{time.monotonic() - began:.0f} s, drivers ready after {ready:.0f} s; runs {seconds}):")
        for (place, mode), counts in figures.items():
            print(f"  {place}, {'spark_ddl_log' if mode == 'adapter' else 'plain dbt-spark'}: {dict(counts)}")
    for place in ("another driver", "same session"):
        adapter = figures[place, "adapter"]
        assert adapter["reads"] > 0 and adapter["failed"] == 0 and adapter["wrong"] == 0, (place, dict(adapter))
