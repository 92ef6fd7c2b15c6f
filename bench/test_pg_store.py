"""Log append on the PostgreSQL store beside the physical limit there: a raw INSERT + COMMIT loop of the same bytes
on the same server (a table of the same shape: a bigint key and a bytea), one transaction per entry and one per
batch of 16 (group commit). The server is a local cluster on loopback started for the run (tests/servers)."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.entries import FINAL, ActionType, ChainKind
from chains.log import DDLLog
from storage.catalogs.names import TableName
from storage.records.format import encode_record
from storage.records.pg_store import PgRecordStore
from tests.servers.postgres import postgres_server as postgres_server
from tests.servers.postgres import postgres_url as postgres_url

ENTRIES = 200
BATCH = 16
RAW_TABLE = "CREATE TABLE raw_records (seq bigint PRIMARY KEY, data bytea NOT NULL)"


def phase_record(action_id: int) -> dict[str, int | str]:
    return {"op": "phase", "id": action_id, "phase": FINAL}


@pytest.fixture
def pg_log(postgres_url: str) -> Iterator[tuple[DDLLog, int]]:
    store = PgRecordStore(postgres_url, "bench", "ddl_log")
    log = DDLLog(store, compact_bytes=1 << 40)
    position = log.new_chain(ChainKind.UNDO, "bench")
    action = log.add_action(
        position,
        ActionType.CREATE_TABLE,
        name=TableName("default", "t"),
        payload=CreateTablePayload(),
    )
    yield log, action.id
    log.close_file()
    store.close()


@pytest.fixture
def raw(postgres_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    connection = psycopg.connect(postgres_url)
    connection.execute(RAW_TABLE)
    connection.commit()
    yield connection
    connection.close()


def raw_loop(connection: psycopg.Connection[tuple[object, ...]], chunks: list[bytes], per_commit: int,
             counter: list[int]) -> None:
    """INSERT + COMMIT, ``per_commit`` rows per transaction in one statement (the plain way to write them)."""
    for start in range(0, len(chunks), per_commit):
        batch = chunks[start : start + per_commit]
        keys = list(range(counter[0], counter[0] + len(batch)))
        counter[0] += len(batch)
        if len(batch) == 1:
            connection.execute("INSERT INTO raw_records (seq, data) VALUES (%s, %s)", (keys[0], batch[0]))
        else:
            connection.execute("INSERT INTO raw_records (seq, data) SELECT unnest(%s::int8[]), unnest(%s::bytea[])",
                               (keys, batch))
        connection.commit()


@pytest.mark.benchmark(group="PostgreSQL append: one transaction per entry")
def test_pg_raw_insert_commit_per_entry(benchmark, raw):
    chunks = [encode_record(phase_record(n)) for n in range(ENTRIES)]
    benchmark.extra_info.update(entries=ENTRIES, baseline=True)
    benchmark.pedantic(raw_loop, args=(raw, chunks, 1, [0]), rounds=5, iterations=1)


@pytest.mark.benchmark(group="PostgreSQL append: one transaction per entry")
def test_pg_log_append_per_entry(benchmark, pg_log):
    log, action_id = pg_log

    def append() -> None:
        for _ in range(ENTRIES):
            log.set_phase(action_id, FINAL)

    benchmark.extra_info.update(entries=ENTRIES)
    benchmark.pedantic(append, rounds=5, iterations=1)


@pytest.mark.benchmark(group=f"PostgreSQL append: group commit, {BATCH} entries per transaction")
def test_pg_raw_insert_commit_batched(benchmark, raw):
    chunks = [encode_record(phase_record(n)) for n in range(ENTRIES)]
    benchmark.extra_info.update(entries=ENTRIES, baseline=True)
    benchmark.pedantic(raw_loop, args=(raw, chunks, BATCH, [0]), rounds=5, iterations=1)


@pytest.mark.benchmark(group=f"PostgreSQL append: group commit, {BATCH} entries per transaction")
def test_pg_log_append_group_commit(benchmark, pg_log):
    log, action_id = pg_log

    def append() -> None:
        for _ in range(ENTRIES // BATCH):
            with log.batch():
                for _ in range(BATCH):
                    log.set_phase(action_id, FINAL)

    benchmark.extra_info.update(entries=ENTRIES // BATCH * BATCH)
    benchmark.pedantic(append, rounds=5, iterations=1)
