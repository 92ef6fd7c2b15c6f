"""Reliability of the log itself: many threads, two processes, damaged files, a failing disk, hostile names and
unsafe paths. Spark-free (in-memory catalog); the Spark-side equivalents live in tests/spark."""

from __future__ import annotations

import errno
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from chains.log import LOG_FILE
from ddl_log import (
    AtomicDDL,
    CorruptLogError,
    DDLLogError,
    HomeLockedError,
    InvalidNameError,
    StatementFailedError,
    UnsafePathError,
    UnsupportedFormatError,
)
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.records.fileops import FileOps
from storage.records.home import LOG_DIR

ROOT = Path(__file__).resolve().parents[2]


def tn(text: str) -> TableName:
    return TableName.of(text)


def seeded_catalog() -> Catalog:
    catalog = memory_catalog()
    for name in "abc":
        catalog.backend.add_user_table(tn(name), ("x",), [(name,)])
    return catalog


# ------------------------------------------------------------------ concurrency


def test_many_threads_on_overlapping_tables_end_done_or_cleanly_failed_with_a_consistent_log(tmp_path):
    catalog = seeded_catalog()
    ddl = AtomicDDL(home=tmp_path, catalog=catalog)
    succeeded: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for step in range(15):
            choice = rng.randrange(5)
            names = rng.sample("abcde", 3)
            try:
                if choice == 0:
                    ddl.create_or_replace_table(names[0], df=MemoryTable("", ("x",), [(seed, step)]))
                elif choice == 1:
                    ddl.rename_tables(
                        [(names[0], "tmp" + str(seed)), (names[1], names[0]), ("tmp" + str(seed), names[1])]
                    )
                elif choice == 2:
                    ddl.drop_tables([names[0]], if_exists=True)
                elif choice == 3:
                    ddl.create_table(names[0], if_not_exists=True, df=MemoryTable("", ("x",), [(seed,)]))
                else:
                    ddl.truncate_table(names[0])
                with lock:
                    succeeded.append(f"{seed}:{step}")
            except DDLLogError:
                pass  # a clean, typed failure (missing table, name taken, ...)
            except BaseException as exc:  # noqa: BLE001 - anything else is a bug
                with lock:
                    failures.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "deadlock"
    assert failures == []
    assert ddl.active_chains() == []
    events = ddl.binlog_events()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert len({e.xid for e in events}) == len(events)
    assert all(not name.is_reserved for name in catalog.backend.tables)
    ddl.close()
    reopened = AtomicDDL(home=tmp_path, catalog=catalog)
    assert reopened.last_recovery.nothing_to_do
    reopened.close()


def test_a_second_process_on_the_same_home_is_refused_with_a_clear_error(tmp_path):
    holder = AtomicDDL(home=tmp_path, catalog=memory_catalog())
    script = (
        "from ddl_log import AtomicDDL, HomeLockedError\n"
        "import sys\n"
        "try:\n    AtomicDDL(home=sys.argv[1])\nexcept HomeLockedError as e:\n    print(e); sys.exit(7)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert result.returncode == 7
    assert "in use by another process" in result.stdout
    with pytest.raises(HomeLockedError):  # a second opener in the same process is refused too
        AtomicDDL(home=tmp_path, catalog=memory_catalog())
    holder.close()
    AtomicDDL(home=tmp_path, catalog=memory_catalog()).close()  # and once released, the home opens again


# ------------------------------------------------------------------ damaged files


def build_history(home: Path) -> None:
    catalog = seeded_catalog()
    ddl = AtomicDDL(home=home, catalog=catalog, compact_bytes=1 << 40)
    for n in range(3):
        ddl.create_or_replace_table("a", df=MemoryTable("", ("x",), [(n,)]))
    ddl.close()


def test_every_truncation_of_the_log_reopens_or_refuses_never_runs_a_damaged_entry(tmp_path):
    source = tmp_path / "source"
    build_history(source)
    data = (source / LOG_DIR / LOG_FILE).read_bytes()
    for cut in range(0, len(data) + 1, 7):
        home = tmp_path / f"cut{cut}"
        (home / LOG_DIR).mkdir(parents=True)
        (home / LOG_DIR / LOG_FILE).write_bytes(data[:cut])
        try:
            ddl = AtomicDDL(home=home, catalog=seeded_catalog())
        except (CorruptLogError, UnsupportedFormatError) as exc:
            assert LOG_FILE in str(exc)
            assert cut < 16, "only a cut inside the header may refuse"
            continue
        assert ddl.active_chains() == []
        ddl.close()


def test_a_flipped_bit_in_the_log_refuses_recovery_naming_file_and_offset_and_dump_still_reads(tmp_path):
    home = tmp_path / "home"
    build_history(home)
    path = home / LOG_DIR / LOG_FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x20
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptLogError) as raised:
        AtomicDDL(home=home, catalog=seeded_catalog())
    assert raised.value.path.endswith(LOG_FILE) and raised.value.offset > 0
    assert f"offset {raised.value.offset}" in str(raised.value)
    from storage.records.files import read_records

    with pytest.raises(CorruptLogError):
        read_records(str(path), b"SDDLLOG")


def test_a_garbage_log_and_a_newer_format_are_refused(tmp_path):
    home = tmp_path / "home"
    (home / LOG_DIR).mkdir(parents=True)
    (home / LOG_DIR / LOG_FILE).write_bytes(os.urandom(300))
    with pytest.raises((CorruptLogError, UnsupportedFormatError)):
        AtomicDDL(home=home, catalog=memory_catalog())


# ------------------------------------------------------------------ failing disk


class FailingDisk(FileOps):
    """Fails the n-th write (or every write from it on) with ENOSPC, as a full disk does."""

    def __init__(self, fail_at: int, persistent: bool = False) -> None:
        self.writes = 0
        self.fail_at = fail_at
        self.persistent = persistent

    def write(self, fd: int, data: bytes) -> None:
        self.writes += 1
        if self.writes == self.fail_at or (self.persistent and self.writes >= self.fail_at):
            raise OSError(errno.ENOSPC, "No space left on device")
        super().write(fd, data)


def test_a_full_disk_at_any_write_fails_the_statement_cleanly_and_keeps_the_old_table(tmp_path):
    counting = FailingDisk(fail_at=-1)
    probe = AtomicDDL(home=tmp_path / "probe", catalog=seeded_catalog(), file_ops=counting)
    start = counting.writes
    probe.create_or_replace_table("a", df=MemoryTable("", ("x",), [("new",)]))
    total = counting.writes - start
    probe.close()
    assert total >= 6
    for persistent in (False, True):
        for n in range(1, total + 1):
            catalog = seeded_catalog()
            home = tmp_path / f"disk{n}{persistent}"
            AtomicDDL(home=home, catalog=catalog).close()
            disk = FailingDisk(fail_at=-1)
            ddl = AtomicDDL(home=home, catalog=catalog, file_ops=disk)
            disk.fail_at, disk.persistent = disk.writes + n, persistent
            try:
                ddl.create_or_replace_table("a", df=MemoryTable("", ("x",), [("new",)]))
                failed = False
            except DDLLogError as exc:
                failed = True
                assert "No space left" in str(exc) or "append failed" in str(exc)
            ddl.abandon()
            healthy = AtomicDDL(home=home, catalog=catalog)  # the disk has space again
            events = healthy.binlog_events()
            assert healthy.active_chains() == []
            healthy.close()
            rows = catalog.backend.tables[tn("a")].rows
            assert rows == ([("new",)] if events else [("a",)]), (n, persistent)
            if failed and not events:
                assert set(catalog.backend.tables) == {tn("a"), tn("b"), tn("c")}


# ------------------------------------------------------------------ hostile input and unsafe paths

HOSTILE_NAMES = ["a`; DROP TABLE b; --", "we ird", "ünïcödé", "x" * 257, "ddllog_sneaky", "a.b.c", "", "tab\there"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_are_refused_or_handled_never_run_as_sql(tmp_path, name):
    catalog = seeded_catalog()
    ddl = AtomicDDL(home=tmp_path, catalog=catalog)
    try:
        target = TableName.of(f"`{name.replace('`', '``')}`") if name else TableName.of(name)
    except InvalidNameError as exc:
        assert exc.name is not None
        ddl.close()
        return
    # Parsed and quoted, but not a name Spark can store (letters, digits and _ only; the catalog contract checks
    # that the memory catalog refuses what Spark refuses; a name over the metastore's limit is refused before
    # anything is logged): the statement fails cleanly, nothing runs as SQL.
    assert target.quoted.count("`") >= 4
    with pytest.raises((StatementFailedError, InvalidNameError)) as failed:
        ddl.create_table(target, like="a")
    refusal = failed.value.cause if isinstance(failed.value, StatementFailedError) else failed.value
    assert isinstance(refusal, InvalidNameError) and refusal.name == str(target)
    assert target not in catalog.backend.tables
    assert {tn("a"), tn("b"), tn("c")} <= set(catalog.backend.tables)
    ddl.close()


def test_reserved_prefix_is_refused_even_quoted(tmp_path):
    with pytest.raises(InvalidNameError, match="reserved"):
        TableName.of("`DDLLOG_x`")


def test_log_and_binlog_files_are_private(tmp_path):
    home = tmp_path / "home"
    ddl = AtomicDDL(home=home, catalog=seeded_catalog())
    ddl.create_or_replace_table("a", df=MemoryTable("", ("x",), [(1,)]))
    ddl.close()
    assert home.stat().st_mode & 0o777 == 0o700
    assert (home / LOG_DIR).stat().st_mode & 0o777 == 0o700
    for path in [home / LOG_DIR / LOG_FILE, *sorted((home / "binlog").iterdir())]:
        assert path.stat().st_mode & 0o777 == 0o600, path


def test_a_symlinked_log_or_home_is_refused(tmp_path):
    real = tmp_path / "real"
    AtomicDDL(home=real, catalog=memory_catalog()).close()
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(UnsafePathError, match="symlink"):
        AtomicDDL(home=link, catalog=memory_catalog())
    log = real / LOG_DIR / LOG_FILE
    log.rename(real / "elsewhere.log")
    log.symlink_to(real / "elsewhere.log")
    with pytest.raises(UnsafePathError, match="symlink"):
        AtomicDDL(home=real, catalog=memory_catalog())


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to create a directory owned by another user")
def test_a_home_owned_by_another_user_is_refused(tmp_path):
    home = tmp_path / "theirs"
    home.mkdir(mode=0o700)
    os.chown(home, 12345, 12345)
    with pytest.raises(UnsafePathError, match="owned by uid 12345"):
        AtomicDDL(home=home, catalog=memory_catalog())
