"""Attached sessions (README "Attached sessions"), each figure paired in one run:

* a statement the project routes, through ``spark.sql`` on an attached session vs the same through ``ddl.sql``
  (same JVM, each on a home of its own): the target is <= 1.05x;
* a statement it does not route (SELECT, SHOW, DESCRIBE, SET) on an attached session vs a session without the
  extension: in two driver processes, one JVM with the extension (attached) and one without, run alternately (the
  target is <= 1.02x); and in this JVM, an attached session vs one with the extension turned off (what deciding not
  to route costs, the parser's look and the rules' checks);
* session start: a driver whose session is built with the extension (and attached) vs one without.

Each attached benchmark runs its baseline right before each of its rounds (timed by itself) and stores the median
of the per-round ratios as ``paired_ratio`` (:func:`bench.pairing.run_paired`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.conftest import create_table, select
from bench.pairing import run_paired, timed

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 9
STARTS = 3
REPEAT = 5
"""Statements per round of the unrouted benchmarks (a few ms each: several per round)."""

ROUTED = {
    "create or replace (1k rows)": "CREATE OR REPLACE TABLE {t} USING parquet AS " + select(1000),
    "alter set properties": "ALTER TABLE {t} SET TBLPROPERTIES ('k' = 'v')",
    "insert into (1k rows)": "INSERT INTO {t} " + select(1000),
}
UNROUTED = {
    "select": "SELECT count(*), sum(v) FROM bench_t",
    "show tables": "SHOW TABLES",
    "describe": "DESCRIBE TABLE bench_t",
    "set": "SET spark.sql.shuffle.partitions=4",
}


@pytest.fixture(scope="module")
def attached(spark: Any, ddl: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A session of the bench Spark attached to a home of its own, warmed up as ``ddl`` is."""
    from ddl_log import attach
    from ddl_log.frontends.extension import ENABLED

    session = spark.newSession()
    session.conf.set(ENABLED, "true")
    engine = attach(session, home=tmp_path_factory.mktemp("attached-home"))
    for n in range(2):
        session.sql(f"CREATE OR REPLACE TABLE warm_a{n} USING parquet AS {select(1000)}")
        session.sql(f"INSERT INTO warm_a{n} {select(10)}")
        session.sql(f"DROP TABLE warm_a{n}")
    yield session
    engine.close()


@pytest.mark.parametrize("name", sorted(ROUTED))
@pytest.mark.parametrize("kind", ["ddl.sql", "spark.sql attached"])
def test_routed_statement(benchmark: Any, spark: Any, ddl: Any, attached: Any, name: str, kind: str) -> None:
    text = ROUTED[name]
    benchmark.group = f"attached: {name}"
    # each side's table made (again) by the way in it measures: after the project replaced a table, plain Spark's
    # DROP + CREATE of the name meets the version the log keeps at its directory (LOCATION_ALREADY_EXISTS)
    ddl.sql(f"CREATE OR REPLACE TABLE routed_sql USING parquet AS {select(1000)}")
    attached.sql(f"CREATE OR REPLACE TABLE routed_attached USING parquet AS {select(1000)}")

    def through_ddl() -> None:
        ddl.sql(text.format(t="routed_sql"))

    if kind == "ddl.sql":
        benchmark.extra_info["baseline"] = True
        benchmark.pedantic(through_ddl, rounds=ROUNDS, warmup_rounds=1, iterations=1)
        return
    run_paired(benchmark, lambda: attached.sql(text.format(t="routed_attached")), lambda: timed(through_ddl),
               rounds=ROUNDS, warmup=1)


@pytest.mark.parametrize("name", sorted(UNROUTED))
@pytest.mark.parametrize("kind", ["extension off", "attached"])
def test_unrouted_statement_in_one_jvm(benchmark: Any, spark: Any, attached: Any, name: str, kind: str) -> None:
    text = UNROUTED[name]
    benchmark.group = f"attached, same JVM: {name} (x{REPEAT})"
    off = spark.newSession()
    if not spark.catalog.tableExists("bench_t"):
        create_table(spark, "bench_t", 100_000)

    def run(session: Any) -> None:
        for _ in range(REPEAT):
            session.sql(text).collect()

    if kind == "extension off":
        benchmark.extra_info["baseline"] = True
        benchmark.pedantic(lambda: run(off), rounds=ROUNDS, warmup_rounds=2, iterations=1)
        return
    run_paired(benchmark, lambda: run(attached), lambda: timed(lambda: run(off)), rounds=ROUNDS, warmup=2)


class Driver:
    """A bench/attached_driver.py process."""

    def __init__(self, mode: str, workdir: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen([sys.executable, "-m", "bench.attached_driver", mode, str(workdir)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.ready = self._answer()

    def _answer(self) -> dict[str, float]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the driver ended (exit {self.process.wait()})"
        return dict(json.loads(line))

    def run(self, sql: str, times: int = REPEAT) -> float:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"sql": sql, "times": times}) + "\n")
        self.process.stdin.flush()
        return self._answer()["seconds"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"quit": True}) + "\n")
        self.process.stdin.flush()
        self.process.wait(timeout=300)


@pytest.fixture(scope="module")
def drivers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Driver]]:
    started = {mode: Driver(mode, tmp_path_factory.mktemp(mode)) for mode in ("plain", "extension")}
    for driver in started.values():
        for text in UNROUTED.values():
            driver.run(text, 3)  # warm
    yield started
    for driver in started.values():
        driver.close()


@pytest.mark.parametrize("name", sorted(UNROUTED))
@pytest.mark.parametrize("kind", ["no extension", "attached"])
def test_unrouted_statement_against_a_jvm_without_the_extension(benchmark: Any, drivers: dict[str, Driver],
                                                                 name: str, kind: str) -> None:
    text = UNROUTED[name]
    benchmark.group = f"attached vs no extension (two drivers): {name} (x{REPEAT})"
    if kind == "no extension":
        benchmark.extra_info["baseline"] = True
        benchmark.pedantic(lambda: drivers["plain"].run(text), rounds=ROUNDS, warmup_rounds=1, iterations=1)
        return
    run_paired(benchmark, lambda: drivers["extension"].run(text), lambda: timed(lambda: drivers["plain"].run(text)),
               rounds=ROUNDS, warmup=1)


@pytest.mark.parametrize("kind", ["no extension", "extension (attached)"])
def test_session_start(benchmark: Any, tmp_path: Path, kind: str) -> None:
    """A driver process to a ready session (Python, the JVM, the session; with the extension: its jar and the
    attach, whose recovery has nothing to do), and the first statement's table made."""
    benchmark.group = "attached: driver start to a ready session"
    counter = iter(range(1000))

    def start(mode: str) -> None:
        Driver(mode, tmp_path / f"{mode}{next(counter)}").close()

    if kind == "no extension":
        benchmark.extra_info["baseline"] = True
        benchmark.pedantic(lambda: start("plain"), rounds=STARTS, iterations=1)
        return
    run_paired(benchmark, lambda: start("extension"), lambda: timed(lambda: start("plain")), rounds=STARTS, warmup=0)
