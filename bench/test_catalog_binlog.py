"""Binlog append on the catalog's one binlog (``ddl_binlog``: advisory transaction lock, ``max(seq) + 1``, one row
per event, an XID from ``ddl_xid_seq``) beside a home's own segmented binlog on the PostgreSQL record store (the
baseline: one row per event in the home's stream, the XID from the log's counter), on the same local server.
One appender, then two appenders at once (two homes, two threads: the catalog binlog serialises their commits on
its lock, the per-home binlogs do not share anything). The catalog benchmark runs the per-home loop right before
each of its rounds (untimed by pytest-benchmark, timed by itself): its paired ratio saw the same machine load."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from itertools import count

import pytest

from bench.pairing import run_paired, timed
from chains.binlog import Binlog, BinlogLike
from chains.catalog_binlog import CatalogBinlog
from storage.records.pg_binlog import PgBinlog
from storage.records.pg_store import PgRecordStore
from tests.servers.postgres import postgres_server as postgres_server
from tests.servers.postgres import postgres_url as postgres_url

EVENTS = 100
ROUNDS = 5
STATEMENT = "CREATE OR REPLACE TABLE `default`.`t` USING parquet AS SELECT * FROM `default`.`s`"


class Binlogs:
    """Per-home binlogs and catalog binlogs of ``homes`` homes in one database, closed at the end."""

    def __init__(self, url: str, homes: int) -> None:
        ids = count(1)
        self.stores = [PgRecordStore(url, f"home{n}", "binlog") for n in range(homes)]
        self.per_home: list[BinlogLike] = [Binlog(store, ids=lambda: next(ids)) for store in self.stores]
        self.tables = [PgBinlog(url, f"home{n}") for n in range(homes)]
        self.catalog: list[BinlogLike] = [CatalogBinlog(table) for table in self.tables]

    def close(self) -> None:
        for binlog in [*self.per_home, *self.catalog]:
            binlog.close()
        for store in self.stores:
            store.close()


def append_events(binlog: BinlogLike) -> None:
    for _ in range(EVENTS):
        binlog.append(STATEMENT, xid=binlog.new_xid(), objects=("default.t",))


def at_once(binlogs: list[BinlogLike]) -> None:
    """Every binlog appends its events on a thread of its own, all at the same time."""
    threads = [threading.Thread(target=append_events, args=(binlog,)) for binlog in binlogs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.fixture
def one(postgres_url: str) -> Iterator[Binlogs]:
    binlogs = Binlogs(postgres_url, 1)
    yield binlogs
    binlogs.close()


@pytest.fixture
def two(postgres_url: str) -> Iterator[Binlogs]:
    binlogs = Binlogs(postgres_url, 2)
    yield binlogs
    binlogs.close()


@pytest.mark.benchmark(group=f"Binlog append, one appender: {EVENTS} events, one commit each")
def test_binlog_append_per_home_pg_store(benchmark, one):
    benchmark.extra_info.update(events=EVENTS, baseline=True)
    benchmark.pedantic(append_events, args=(one.per_home[0],), rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group=f"Binlog append, one appender: {EVENTS} events, one commit each")
def test_binlog_append_catalog_binlog(benchmark, one):
    benchmark.extra_info.update(events=EVENTS)
    run_paired(benchmark, lambda: append_events(one.catalog[0]), lambda: timed(lambda: append_events(one.per_home[0])),
               rounds=ROUNDS, rounded=False)
    assert one.catalog[0].last_seq == EVENTS * ROUNDS


@pytest.mark.benchmark(group=f"Binlog append, two appenders at once: {EVENTS} events each")
def test_binlog_append_two_appenders_per_home_pg_store(benchmark, two):
    benchmark.extra_info.update(events=2 * EVENTS, baseline=True)
    benchmark.pedantic(at_once, args=(two.per_home,), rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group=f"Binlog append, two appenders at once: {EVENTS} events each")
def test_binlog_append_two_appenders_catalog_binlog(benchmark, two):
    benchmark.extra_info.update(events=2 * EVENTS)
    run_paired(benchmark, lambda: at_once(two.catalog), lambda: timed(lambda: at_once(two.per_home)), rounds=ROUNDS,
               rounded=False)
    seqs = [event.seq for event in two.catalog[0].events()]
    assert seqs == list(range(1, 2 * EVENTS * ROUNDS + 1))
