"""Replication figures (issue 28): apply throughput of metadata events and apply lag under a steady source load (on
the in-memory catalog, so that the replica's own work, not Spark's, is measured), and copying a 1M-row version beside
a plain copy of the same files (``shutil.copytree``) on Spark.

Throughput is paired: the same statements run directly on a fresh home (``direct``) against the same statements
applied from a source's binlog (``apply``, which adds reading the source, parsing the text and the position marker);
the ratio is apply / direct. The copies are paired too: each round copies the files with ``cp -r`` and
``shutil.copytree`` and installs them as the replica does (a version: a CREATE OR REPLACE whose TMP gets the
version's data files as files, the swap included; an INSERT INTO's files: copied into the work table, then moved
into the table), the order alternating per round; one more install runs under :mod:`bench.profiler`, which says
where its time goes (the catalog calls, the log writes, the file copy inside ``insert``)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import attrs

from ddl_log import AtomicDDL
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.replication.origin import mark_of
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog

EVENTS = 300
LAG_EVENTS = 200
LAG_RATE = 50.0
"""Source statements per second during the lag measurement."""


def statement(ddl: AtomicDDL, n: int) -> None:
    """A mix of metadata statements: CREATE TABLE LIKE, ALTER ... SET TBLPROPERTIES, RENAME."""
    kind = n % 3
    if kind == 0:
        ddl.create_table(f"t{n}", like="base")
    elif kind == 1:
        ddl.alter_table(f"t{n - 1}", SetProperties({"k": str(n)}))
    else:
        ddl.rename_tables([(f"t{n - 2}", f"r{n - 2}")])


def fresh_catalog() -> Catalog:
    catalog = memory_catalog()
    catalog.backend.add_user_table(TableName.of("base"), ("x",), [(1,)])
    return catalog


def source_of(path: Path, events: int) -> str:
    home = str(path / "source")
    with AtomicDDL(home=home, catalog=fresh_catalog()) as ddl:
        for n in range(events):
            statement(ddl, n)
    return home


def test_apply_throughput_of_metadata_events(benchmark, tmp_path):
    source = source_of(tmp_path, EVENTS)
    rounds: list[tuple[float, float]] = []

    def once(index: int) -> None:
        started = time.perf_counter()
        with AtomicDDL(home=str(tmp_path / f"direct{index}"), catalog=fresh_catalog()) as ddl:
            for n in range(EVENTS):
                statement(ddl, n)
        direct = time.perf_counter() - started
        started = time.perf_counter()
        with AtomicDDL(home=str(tmp_path / f"replica{index}"), catalog=fresh_catalog()) as ddl:
            assert ddl.replica_of(source).apply_available().applied == EVENTS
        rounds.append((direct, time.perf_counter() - started))

    counter = iter(range(1000))
    benchmark.pedantic(lambda: once(next(counter)), rounds=5, iterations=1)
    applied = statistics.median(r[1] for r in rounds)
    benchmark.extra_info.update({
        "events_per_second": round(EVENTS / applied, 1),
        "paired_ratio_apply_vs_direct": round(statistics.median(r[1] / r[0] for r in rounds), 2),
    })


def test_apply_lag_under_a_steady_source_load(benchmark, tmp_path):
    def once(index: int) -> dict[str, float]:
        source_home = str(tmp_path / f"lag-source{index}")
        source = AtomicDDL(home=source_home, catalog=fresh_catalog())
        source.create_table("seed", like="base")  # the binlog exists before the replica looks at it
        stop = threading.Event()
        replica = AtomicDDL(home=str(tmp_path / f"lag-replica{index}"), catalog=fresh_catalog())
        applier = replica.replica_of(source_home)
        runner = threading.Thread(target=lambda: applier.run(poll_seconds=0.01, stop=stop.is_set))
        runner.start()
        for n in range(LAG_EVENTS):
            statement(source, n)
            time.sleep(1 / LAG_RATE)
        head = source.binlog_file.last_seq
        deadline = time.monotonic() + 30
        while applier.position < head and time.monotonic() < deadline:
            time.sleep(0.01)
        stop.set()
        runner.join()
        written = {event.seq: event.timestamp for event in source.binlog_events()}
        lags = [event.timestamp - written[mark.seq] for event in replica.binlog_events()
                if (mark := mark_of(event.statement)) is not None]
        source.close()
        replica.close()
        return {"median_ms": statistics.median(lags) * 1000, "max_ms": max(lags) * 1000}

    counter = iter(range(1000))
    results: list[dict[str, float]] = []
    benchmark.pedantic(lambda: results.append(once(next(counter))), rounds=3, iterations=1)
    benchmark.extra_info.update({
        "source_rate_per_second": LAG_RATE,
        "lag_median_ms": round(statistics.median(r["median_ms"] for r in results), 2),
        "lag_max_ms": round(max(r["max_ms"] for r in results), 2),
    })


def paired_copies(location: str, target: Path, steps: dict[str, Any], index: int) -> dict[str, float]:
    """One round: ``cp -r`` and ``shutil.copytree`` of the directory ``location``, and each of ``steps`` (the
    replica's install ...), in an order that alternates per round (the page cache and the load favour no side)."""
    def cp_r() -> None:
        subprocess.run(["cp", "-r", location, str(target / f"cp{index}")], check=True)

    def copytree() -> None:
        shutil.copytree(location, target / f"tree{index}")

    named = [("cp_r", cp_r), ("copytree", copytree), *steps.items()]
    seconds: dict[str, float] = {}
    for name, step in named if index % 2 else reversed(named):
        started = time.perf_counter()
        step()
        seconds[name] = time.perf_counter() - started
    return seconds


def copy_figures(benchmark: Any, rounds: list[dict[str, float]], profile: dict[str, Any], size: int) -> None:
    """The medians and paired ratios (each step against ``cp -r``), and where a profiled install's time goes (its
    largest items)."""
    items = sorted(profile.get("items", []), key=lambda item: -item["ms"])
    benchmark.extra_info["bytes"] = size
    for name in rounds[0]:
        benchmark.extra_info[f"{name}_seconds"] = round(statistics.median(r[name] for r in rounds), 4)
        if name != "cp_r":
            benchmark.extra_info[f"paired_ratio_{name}_vs_cp_r"] = round(
                statistics.median(r[name] / r["cp_r"] for r in rounds), 2)
    benchmark.extra_info.update({
        "profiled_wall_ms": profile.get("wall_ms"),
        "profiled_categories": profile.get("categories"),
        "profiled_items": [item for item in items if item["ms"] >= 1.0][:16],
    })


def profiled(ddl: AtomicDDL, install: Any, rounds: int = 2) -> dict[str, Any]:
    """``install`` run ``rounds`` times under :class:`bench.profiler.StatementProfiler`: its breakdown."""
    from bench.profiler import StatementProfiler

    profiler = StatementProfiler(ddl)
    with profiler.installed():
        for _ in range(rounds):
            with profiler.round():
                install()
    return profiler.breakdown()


def test_copy_of_a_1m_row_version_beside_cp_and_copytree(benchmark, spark: Any, tmp_path):
    """The replica's install of a source's CTAS version (its data files copied as files into TMP, then the swap)."""
    from ddl_log.engine.schema import table_spec
    from ddl_log.replication.copy import schema_text
    from ddl_log.replication.install import InstallVersion
    from replace_table.plans.recorded_version import version_record
    from storage.catalogs.spark.fs.version_files import copy_version_files

    for name in ("version_1m", "version_copy"):
        spark.sql(f"DROP TABLE IF EXISTS default.{name} PURGE")
    ddl = AtomicDDL(spark=spark, home=str(tmp_path / "home"), grace_seconds=0)  # its own home: no warm-up fixture
    ddl.create_table("version_1m", as_select="SELECT id, id*2 AS v, concat('r', id) AS s FROM range(1000000)")
    version = version_record(ddl.context(), TableName.of("version_1m"), _select_spec(), None)
    assert version is not None and version.files
    location = version.location.removeprefix("file:")
    size = sum(path.stat().st_size for path in Path(location).rglob("*") if path.is_file())

    def install() -> None:
        ddl.run(InstallVersion(name=TableName.of("version_copy"), files_from=version.location, files=version.files,
                               spec=table_spec(schema=schema_text(version), using="parquet")))

    copies = iter(range(1000))

    def files_only() -> None:  # the install's data path alone: its copy of the version's files
        copy_version_files(version.location, f"file:{tmp_path}/files{next(copies)}", TableName.of("x"),
                           names=version.files)

    steps = {"replica_install": install, "replica_file_copy": files_only}
    paired_copies(location, tmp_path, steps, 998)  # warm-up: the first replace of a JVM pays class loading
    rounds: list[dict[str, float]] = []
    counter = iter(range(1000))
    benchmark.pedantic(lambda: rounds.append(paired_copies(location, tmp_path, steps, next(counter))), rounds=5,
                       iterations=1)
    copy_figures(benchmark, rounds, profiled(ddl, install), size)
    ddl.drop_tables(["version_1m", "version_copy"])
    ddl.close()


def test_copy_of_a_1m_row_insert_beside_cp_and_copytree(benchmark, spark: Any, tmp_path):
    """The replica's INSERT INTO of a source INSERT's 1M rows: its files copied into the work table, then moved
    into the table (the table holds more rows each round; the copy is of the insert's files only)."""
    from chains.binlog import BinlogEvent
    from ddl_log.replication.added import insert_statement

    for name in ("insert_1m", "insert_copy"):
        spark.sql(f"DROP TABLE IF EXISTS default.{name} PURGE")
    ddl = AtomicDDL(spark=spark, home=str(tmp_path / "home"), grace_seconds=0)
    ddl.sql("CREATE TABLE insert_1m (id BIGINT, v BIGINT, s STRING) USING parquet")
    event = ddl.sql("INSERT INTO insert_1m SELECT id, id*2, concat('r', id) FROM range(1000000)")[-1].result.event
    added = attrs.evolve(event.added, table="default.insert_copy")
    location = added.location.removeprefix("file:")
    size = sum(Path(f.path.removeprefix("file:")).stat().st_size for f in added.files)
    stage = tmp_path / "insert-files"  # the insert's files alone, for the plain copies
    stage.mkdir()
    for f in added.files:
        shutil.copyfile(f.path.removeprefix("file:"), stage / Path(f.path).name)
    assert location

    def install() -> None:
        ddl.run(insert_statement(BinlogEvent(1, 1, "INSERT INTO insert_copy ...", added=added), "/* bench */", list))

    def fresh() -> None:  # the same files cannot go into one table twice: an empty table per round (not timed)
        spark.sql("DROP TABLE IF EXISTS default.insert_copy PURGE")
        spark.sql("CREATE TABLE insert_copy (id BIGINT, v BIGINT, s STRING) USING parquet")

    def once(index: int) -> None:
        fresh()
        rounds.append(paired_copies(str(stage), tmp_path, {"replica_insert": install}, index))

    rounds: list[dict[str, float]] = []
    once(998)
    rounds.clear()
    counter = iter(range(1000))
    benchmark.pedantic(lambda: once(next(counter)), rounds=5, iterations=1)
    fresh()
    profile = profiled(ddl, install, rounds=1)
    copy_figures(benchmark, rounds, profile, size)
    ddl.drop_tables(["insert_1m", "insert_copy"])
    ddl.close()


def _select_spec() -> Any:
    from storage.catalogs.interface import TableSpec

    return TableSpec(as_select="SELECT 1")
