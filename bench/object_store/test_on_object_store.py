"""CREATE OR REPLACE of a 1,000-file table (plain: DROP + CTAS), DROP of one (plain DROP), INSERT INTO of 100
files (plain INSERT INTO) and the dynamic INSERT OVERWRITE of 1 of 20 partitions of ``bench/test_statements.py`` (a
dbt incremental model's statement; no hard links on a store: the kept partitions' rows are copied) on the simulated
object store at 20 ms per request, each atomic statement beside its plain
Spark equivalent in one run, in the paired rounds of ``bench/test_statements.py`` (issue 40). Today's project renames
data on the store (tests/object_store/test_no_data_rename.py): these figures move with the no-rename redesign.

A table of 1,000 files is made outside the timing without a request of the store: one file written by Spark, copied
999 times in the store's local directory, the table refreshed. Each round's table has a name of its own: the atomic
statements keep the previous version at ``<database>/<name>`` for its retention.

The bench session's warehouse is at ``s3sim://bucket/warehouse`` (tests/object_store/store.py; ``bench/conftest.py``
makes that session in this folder's own pytest process, ``BENCH_OBJECT_STORE=1``: one SparkContext per process)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from bench.conftest import exists, run
from bench.test_statements import Action, Scenario, cases, insert_overwrite_one_partition, measure_paired
from tests.object_store.store import StoreCalls, backing_path

LATENCY_MS = 20
"""Per request of the store: about what a same-region S3 request takes."""
FILES = 1000
INSERT_FILES = 100
ROUNDS = 3
GROUP_PREFIX = f"object store, {LATENCY_MS} ms per request: "
SMALL = "SELECT id, id * 2 AS v, concat('r', id) AS s FROM range(1000)"
"""The new contents of a replaced table (one file)."""


def many_files(spark: Any, name: str, files: int) -> None:
    """A parquet table ``name`` of ``files`` data files (see the module), made afresh."""
    run(spark, f"DROP TABLE IF EXISTS `default`.`{name}` PURGE",
        f"CREATE TABLE `default`.`{name}` USING parquet AS SELECT /*+ REPARTITION(1) */ * FROM ({SMALL})")
    location = str(spark.sql(f"DESCRIBE TABLE EXTENDED `default`.`{name}`").where("col_name = 'Location'")
                   .first()[1])
    directory = backing_path(spark, location)
    assert directory is not None, location
    [first] = [path for path in directory.iterdir() if path.name.startswith("part-")]
    for index in range(1, files):
        shutil.copyfile(first, first.with_name(f"part-{index:05d}-copy-{first.name.removeprefix('part-')}"))
    spark.catalog.refreshTable(f"`default`.`{name}`")


class Rounds:
    """A name per kind and round (``setup`` moves to the next)."""

    def __init__(self, prefix: str) -> None:
        self.prefix, self.counts = prefix, dict[str, int]()

    def next(self, kind: str) -> str:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        return self.name(kind)

    def name(self, kind: str) -> str:
        return f"{self.prefix}_{kind}_{self.counts.get(kind, 0)}"


def create_or_replace_many_files() -> Scenario:
    rounds = Rounds("cor")
    return Scenario(
        "create_or_replace_1000_files",
        f"CREATE OR REPLACE TABLE AS SELECT of a {FILES:,}-file table (plain: DROP + CTAS)", FILES,
        plain=lambda spark, kind: run(spark, f"DROP TABLE `default`.`{rounds.name(kind)}`",
                                      f"CREATE TABLE `default`.`{rounds.name(kind)}` USING parquet AS {SMALL}"),
        atomic=lambda ddl, kind: ddl.create_or_replace_table(rounds.name(kind), as_select=SMALL),
        setup=lambda spark, kind: many_files(spark, rounds.next(kind), FILES),
        check=lambda spark, kind: assert_rows(spark, rounds.name(kind), 1000))


def drop_many_files() -> Scenario:
    rounds = Rounds("drop")
    return Scenario(
        "drop_1000_files", f"DROP TABLE of a {FILES:,}-file table", FILES,
        plain=lambda spark, kind: run(spark, f"DROP TABLE `default`.`{rounds.name(kind)}`"),
        atomic=lambda ddl, kind: ddl.drop_tables([rounds.name(kind)]),
        setup=lambda spark, kind: many_files(spark, rounds.next(kind), FILES),
        check=lambda spark, kind: None if not exists(spark, rounds.name(kind)) else pytest.fail("not dropped"))


def insert_into_many_files() -> Scenario:
    rows = f"SELECT /*+ REPARTITION({INSERT_FILES}) */ id, id * 2 AS v, concat('r', id) AS s FROM range(10000)"
    return Scenario(
        "insert_into_100_files", f"INSERT INTO of {INSERT_FILES} files", INSERT_FILES,
        plain=lambda spark, kind: run(spark, f"INSERT INTO `default`.`ii_{kind}` {rows}"),
        atomic=lambda ddl, kind: ddl.insert_into(f"ii_{kind}", as_select=rows),
        prepare=lambda spark, kind: exists(spark, f"ii_{kind}") or run(
            spark, f"CREATE TABLE `default`.`ii_{kind}` (id BIGINT, v BIGINT, s STRING) USING parquet"),
        check=lambda spark, kind: assert_rows(spark, f"ii_{kind}", None))


def assert_rows(spark: Any, name: str, rows: int | None) -> None:
    count = spark.table(f"`default`.`{name}`").count()
    assert count == rows if rows is not None else count and count % 10000 == 0, (name, count)


def at_latency(scenario: Scenario, calls: StoreCalls) -> Scenario:
    """``scenario`` whose setups run with no latency and whose statements with :data:`LATENCY_MS`."""
    def quick(action: Action) -> Action:
        def run_quick(spark: Any, kind: str) -> None:
            calls.set_latency(0)
            try:
                action(spark, kind)
            finally:
                calls.set_latency(LATENCY_MS)
        return run_quick

    return replace(scenario, setup=quick(scenario.setup), prepare=quick(scenario.prepare),
                   check=quick(scenario.check))


ON_OBJECT_STORE: list[Callable[[], Scenario]] = [create_or_replace_many_files, drop_many_files,
                                                 insert_into_many_files, insert_overwrite_one_partition]


@pytest.mark.parametrize(("scenario", "kind"), cases([make() for make in ON_OBJECT_STORE]))
def test_statement_on_object_store(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    calls = StoreCalls(clean)
    calls.set_latency(LATENCY_MS)
    try:
        measure_paired(benchmark, ddl, clean, at_latency(scenario, calls), kind, rounds=ROUNDS, warmup=1)
    finally:
        calls.set_latency(0)
    benchmark.group = GROUP_PREFIX + benchmark.group
    benchmark.extra_info["latency_ms"] = LATENCY_MS
