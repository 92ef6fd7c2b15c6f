"""Log append throughput beside the physical limit: a raw write+fsync loop of the same bytes on the same disk."""

from __future__ import annotations

import os

import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.codec import action_to_wire
from chains.entries import FINAL, ActionType, ChainKind
from chains.log import open_log
from storage.catalogs.names import TableName
from storage.records.format import encode_record

ENTRIES = 200
BATCH = 50


def phase_record(action_id: int) -> dict[str, int | str]:
    return {"op": "phase", "id": action_id, "phase": FINAL}


@pytest.fixture
def log_with_action(tmp_path):
    log = open_log(str(tmp_path), compact_bytes=1 << 40)
    position = log.new_chain(ChainKind.UNDO, "bench")
    action = log.add_action(
        position,
        ActionType.CREATE_TABLE,
        name=TableName("default", "t"),
        payload=CreateTablePayload(),
    )
    yield log, action.id
    log.close_file()


def raw_loop(path: str, chunks: list[bytes], per_sync: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for start in range(0, len(chunks), per_sync):
            os.write(fd, b"".join(chunks[start : start + per_sync]))
            os.fsync(fd)
    finally:
        os.close(fd)


@pytest.mark.benchmark(group="append: one fsync per entry")
def test_raw_write_fsync_per_entry(benchmark, tmp_path):
    chunks = [encode_record(phase_record(n)) for n in range(ENTRIES)]
    benchmark.extra_info.update(entries=ENTRIES, baseline=True)
    benchmark.pedantic(raw_loop, args=(str(tmp_path / "raw"), chunks, 1), rounds=5, iterations=1)


@pytest.mark.benchmark(group="append: one fsync per entry")
def test_log_append_fsync_per_entry(benchmark, log_with_action):
    log, action_id = log_with_action

    def append() -> None:
        for _ in range(ENTRIES):
            log.set_phase(action_id, FINAL)

    benchmark.extra_info.update(entries=ENTRIES)
    benchmark.pedantic(append, rounds=5, iterations=1)


@pytest.mark.benchmark(group=f"append: group commit, {BATCH} entries per fsync")
def test_raw_write_fsync_batched(benchmark, tmp_path):
    chunks = [encode_record(phase_record(n)) for n in range(ENTRIES)]
    benchmark.extra_info.update(entries=ENTRIES, baseline=True)
    benchmark.pedantic(raw_loop, args=(str(tmp_path / "raw"), chunks, BATCH), rounds=5, iterations=1)


@pytest.mark.benchmark(group=f"append: group commit, {BATCH} entries per fsync")
def test_log_append_group_commit(benchmark, log_with_action):
    log, action_id = log_with_action

    def append() -> None:
        for _ in range(ENTRIES // BATCH):
            with log.batch():
                for _ in range(BATCH):
                    log.set_phase(action_id, FINAL)

    benchmark.extra_info.update(entries=ENTRIES)
    benchmark.pedantic(append, rounds=5, iterations=1)


def test_bench_records_have_the_size_of_real_entries():
    record = action_to_wire(_sample_action())
    assert len(encode_record(record)) < 200


def _sample_action():  # type: ignore[no-untyped-def]
    from actions.kinds.create_table import CreateTablePayload
    from chains.entries import ActionEntry

    return ActionEntry(1, 1, ActionType.CREATE_TABLE, name=TableName("default", "t"), tag="x1-0123456789abcdef",
                       payload=CreateTablePayload().to_wire())
