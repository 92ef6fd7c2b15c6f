"""What the cross-driver metadata locks cost: a statement on a database home (CREATE OR REPLACE TABLE on the
in-memory catalog, so the log's PostgreSQL writes and the locks are all there is) with the PostgreSQL locks, paired
round by round with the same statement on a home of its own with in-process locks only; and the bare lock + unlock
round trip beside a ``SELECT 1`` on the same server. The server is a local cluster on loopback (tests/servers)."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from bench.pairing import run_paired, timed
from chains.lock_keys import database_key, object_key
from ddl_log import AtomicDDL
from ddl_log.cluster.locks import MetadataLocks
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.records.pg_locks import ClusterLocks
from tests.servers.postgres import postgres_server as postgres_server
from tests.servers.postgres import postgres_url as postgres_url

STATEMENTS = 20
ROUND_TRIPS = 200
ROUNDS = 7


@pytest.fixture
def homes(postgres_url: str) -> Iterator[tuple[AtomicDDL, AtomicDDL]]:
    """(with cluster locks, in-process locks only): two homes on one database, each warmed up."""
    locked = AtomicDDL(home=f"{postgres_url}?home=bench-locked", catalog=memory_catalog())
    plain = AtomicDDL(home=f"{postgres_url}?home=bench-plain", catalog=memory_catalog())
    plain.locks = MetadataLocks()
    for ddl in (locked, plain):
        statements(ddl)
    yield locked, plain
    locked.close()
    plain.close()


def statements(ddl: AtomicDDL) -> None:
    for _ in range(STATEMENTS):
        ddl.create_or_replace_table("t", schema="a INT")


@pytest.mark.benchmark(group="Cross-driver metadata locks: CREATE OR REPLACE TABLE on a database home")
def test_statement_with_in_process_locks_only(benchmark: Any, homes: tuple[AtomicDDL, AtomicDDL]) -> None:
    benchmark.extra_info.update(statements=STATEMENTS, baseline=True)
    benchmark.pedantic(statements, args=(homes[1],), rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group="Cross-driver metadata locks: CREATE OR REPLACE TABLE on a database home")
def test_statement_with_cluster_locks(benchmark: Any, homes: tuple[AtomicDDL, AtomicDDL]) -> None:
    """Each round's setup runs the in-process-only statements right before (outside the timing): the median of
    the per-round ratios is ``paired_ratio``."""
    locked, plain = homes
    benchmark.extra_info.update(statements=STATEMENTS)
    paired = run_paired(benchmark, lambda: statements(locked), lambda: timed(lambda: statements(plain)), rounds=ROUNDS)
    per_statement = (statistics.median(benchmark.stats.stats.data) - statistics.median(paired)) / STATEMENTS
    benchmark.extra_info["lock_cost_per_statement_ms"] = round(per_statement * 1000, 2)


@pytest.fixture
def cluster(postgres_url: str) -> Iterator[ClusterLocks]:
    locks = ClusterLocks(postgres_url, "ddl-log:bench", wait_seconds=5.0)
    yield locks
    locks.close()


@pytest.fixture
def raw(postgres_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    connection = psycopg.connect(postgres_url, autocommit=True)
    yield connection
    connection.close()


@pytest.mark.benchmark(group="Cross-driver metadata locks: one round trip")
def test_select_one(benchmark: Any, raw: psycopg.Connection[tuple[object, ...]]) -> None:
    def loop() -> None:
        for _ in range(ROUND_TRIPS):
            raw.execute("SELECT 1").fetchone()

    benchmark.extra_info.update(entries=ROUND_TRIPS, baseline=True)
    benchmark.pedantic(loop, rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group="Cross-driver metadata locks: one round trip")
def test_lock_and_unlock_of_a_table_and_its_database(benchmark: Any, cluster: ClusterLocks) -> None:
    """What a statement on one table adds: its object exclusively and its database shared, each lock and unlock
    one round trip: four per statement (``entries`` counts round trips, as the baseline's do)."""
    keys = [(database_key("db"), False), (object_key(TableName("db", "t")), True)]

    def loop() -> None:
        for _ in range(ROUND_TRIPS // 4):
            for key, exclusive in keys:
                cluster.acquire(key, exclusive)
            for key, exclusive in reversed(keys):
                cluster.release(key, exclusive)

    benchmark.extra_info.update(entries=ROUND_TRIPS // 4 * 2 * len(keys))
    benchmark.pedantic(loop, rounds=ROUNDS, iterations=1)
