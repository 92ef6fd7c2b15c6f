"""Recovery time with a long history and a few active chains: it must not grow with history, because recovery reads
only the binlog tail after the earliest XID position of an active chain and the log holds only live chains."""

from __future__ import annotations

import os
import shutil
import tracemalloc

import pytest

from actions.kinds.create_table import CreateTablePayload
from chains.binlog import binlog_store, list_segments, open_binlog, segment_name
from chains.entries import ActionType, ChainKind
from ddl_log import AtomicDDL
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName

ACTIVE_CHAINS = 10
HISTORIES = (1_000, 10_000, 100_000, 1_000_000)


def build_home(path: str, history: int, active: int) -> None:
    """``history`` committed statements in the binlog, then ``active`` interrupted statements in the log:
    half of them reached the binlog (recovery closes them), half did not (recovery undoes them)."""
    binlog = open_binlog(path)
    batch: list[tuple[str, int | None, tuple[str, ...]]] = []
    for n in range(history):
        batch.append((f"CREATE OR REPLACE TABLE `default`.`t{n % 100}` AS SELECT {n}", n + 1, (f"default.t{n}",)))
        if len(batch) == 5000:
            binlog.append_many(batch)
            batch = []
    if batch:
        binlog.append_many(batch)
    binlog.close()
    ddl = AtomicDDL(home=path, catalog=memory_catalog())
    for n in range(active):
        position = ddl.log.new_chain(ChainKind.UNDO, f"interrupted {n}")
        ddl.log.add_action(
            position,
            ActionType.CREATE_TABLE,
            name=TableName("default", f"ddllog_{n}_tmp"),
            tag="t",
            payload=CreateTablePayload(),
        )
        xid = ddl.log.allocate_id()
        ddl.log.set_xid(position, xid, ddl.binlog_file.position())
        if n % 2 == 0:
            ddl.binlog_file.append(f"interrupted {n}", xid=xid)
    ddl.abandon()


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    made = {}
    for history in HISTORIES:
        path = str(tmp_path_factory.mktemp(f"history{history}"))
        build_home(path, history, ACTIVE_CHAINS)
        made[history] = path
    return made


@pytest.mark.parametrize("history", HISTORIES)
@pytest.mark.benchmark(group=f"recovery: {ACTIVE_CHAINS} active chains")
def test_recovery_time_with_history(benchmark, templates, tmp_path, history):
    counter = iter(range(10_000))

    def setup():  # type: ignore[no-untyped-def]
        target = str(tmp_path / f"run{next(counter)}")
        shutil.copytree(templates[history], target)
        return (target,), {}

    def open_and_recover(home: str) -> None:
        ddl = AtomicDDL(home=home, catalog=memory_catalog())
        assert len(ddl.last_recovery.of("committed")) == ACTIVE_CHAINS // 2
        assert len(ddl.last_recovery.of("undone")) == ACTIVE_CHAINS // 2
        ddl.close()

    # Opening scans the newest binlog segment (at most DEFAULT_SEGMENT_BYTES, as MySQL scans its last binlog file
    # after a crash), so the time follows how full that segment is, not how long the history is.
    segments = list_segments(binlog_store(templates[history]))
    newest = os.path.join(templates[history], "binlog", segment_name(segments[-1]))
    benchmark.extra_info.update(history=history, baseline=history == 1_000, binlog_segments=len(segments),
                                newest_segment_kib=round(os.path.getsize(newest) / 1024))
    benchmark.pedantic(open_and_recover, setup=setup, rounds=7, iterations=1)


@pytest.mark.benchmark(group="recovery: no-op, no Spark")
def test_noop_recovery_time_and_peak_memory(benchmark, templates, tmp_path):
    home = str(tmp_path / "noop")
    shutil.copytree(templates[10_000], home)
    AtomicDDL(home=home, catalog=memory_catalog()).close()  # leaves nothing active

    def open_noop() -> None:
        ddl = AtomicDDL(home=home)  # no catalog, no Spark: nothing to run means none is started
        assert ddl.last_recovery.nothing_to_do and ddl._spark is None
        ddl.close()

    tracemalloc.start()
    open_noop()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    benchmark.extra_info.update(peak_kib=round(peak / 1024, 1), history=10_000)
    benchmark.pedantic(open_noop, rounds=20, iterations=1)
