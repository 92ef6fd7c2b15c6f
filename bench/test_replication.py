"""Replication figures (issue 28): apply throughput of metadata events and apply lag under a steady source load (on
the in-memory catalog, so that the replica's own work, not Spark's, is measured), and copying a 1M-row version beside
a plain copy of the same files (``shutil.copytree``) on Spark.

Throughput is paired: the same statements run directly on a fresh home (``direct``) against the same statements
applied from a source's binlog (``apply``, which adds reading the source, parsing the text and the position marker);
the ratio is apply / direct. The copy is paired too: each round copies the files with ``copytree`` and then installs
them as the replica does (a CREATE OR REPLACE whose TMP gets the version's data files as files, the swap included)."""

from __future__ import annotations

import shutil
import statistics
import threading
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.replication.origin import mark_of
from storage.catalogs.memory import MemoryCatalog
from storage.catalogs.names import TableName

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


def fresh_catalog() -> MemoryCatalog:
    catalog = MemoryCatalog()
    catalog.add_user_table(TableName.of("base"), ("x",), [(1,)])
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


def test_copy_of_a_1m_row_version_beside_copytree(benchmark, spark: Any, tmp_path):
    from ddl_log.engine.schema import table_spec
    from ddl_log.replication.copy import schema_text
    from ddl_log.replication.install import InstallVersion
    from replace_table.versions import version_record

    spark.sql("DROP TABLE IF EXISTS default.version_1m PURGE")
    spark.sql("DROP TABLE IF EXISTS default.version_copy PURGE")
    ddl = AtomicDDL(spark=spark, home=str(tmp_path / "home"), grace_seconds=0)  # its own home: no warm-up fixture
    ddl.create_table("version_1m", as_select="SELECT id, id*2 AS v, concat('r', id) AS s FROM range(1000000)")
    version = version_record(ddl.context(), TableName.of("version_1m"), _select_spec(), None)
    assert version is not None
    location = version.location.removeprefix("file:")
    rounds: list[tuple[float, float]] = []

    def once(index: int) -> None:
        started = time.perf_counter()
        shutil.copytree(location, tmp_path / f"copy{index}")
        plain = time.perf_counter() - started
        started = time.perf_counter()
        ddl.run(InstallVersion(name=TableName.of("version_copy"), files_from=version.location,
                               spec=table_spec(schema=schema_text(version), using="parquet")))
        rounds.append((plain, time.perf_counter() - started))

    once(999)  # warm-up: the first CREATE OR REPLACE of a JVM pays class loading
    rounds.clear()
    counter = iter(range(1000))
    benchmark.pedantic(lambda: once(next(counter)), rounds=3, iterations=1)
    benchmark.extra_info.update({
        "copytree_seconds": round(statistics.median(r[0] for r in rounds), 3),
        "replica_copy_seconds": round(statistics.median(r[1] for r in rounds), 3),
        "paired_ratio": round(statistics.median(r[1] / r[0] for r in rounds), 2),
    })
    ddl.drop_tables(["version_1m", "version_copy"])
    ddl.close()


def _select_spec() -> Any:
    from storage.catalogs.interface import TableSpec

    return TableSpec(as_select="SELECT 1")
