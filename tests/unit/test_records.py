"""Record streams on both stores: durable appends, torn tails cut (a file) or never there (PostgreSQL), corruption
reported with location and offset, never skipped."""

from __future__ import annotations

import itertools
import os
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storage.errors import CorruptLogError, UnsafePathError, UnsupportedFormatError
from storage.records.files import RecordFile, read_records
from storage.records.format import HEADER_SIZE, encode_header
from tests.stores import StoreKit

MAGIC = b"TESTREC"


def write_file(path: str, records: list[object]) -> list[int]:
    file, _ = RecordFile.open(path, MAGIC)
    with file:
        offsets = file.append_batch(records)
        return [*offsets, file.size]


def reopen(path: str) -> list[object]:
    file, records = RecordFile.open(path, MAGIC)
    file.close()
    return [record for _, record in records]


def write_stream(store: StoreKit, records: list[object], home: str = "home") -> list[int]:
    """Append ``records`` as one batch to stream ``f``; return their offsets and the end."""
    stream, _ = store.log_store(home).open("f", MAGIC)
    try:
        offsets = stream.append_batch(records)
        return [*offsets, stream.size]
    finally:
        stream.close()


def reopen_stream(store: StoreKit, home: str = "home") -> list[object]:
    stream, records = store.log_store(home).open("f", MAGIC)
    stream.close()
    return [record for _, record in records]


def test_records_come_back_in_order_after_reopen(store):
    write_stream(store, [{"a": 1}, [1, 2, 3], "text", b"bytes"])
    assert reopen_stream(store) == [{"a": 1}, [1, 2, 3], "text", b"bytes"]


def test_appends_after_reopen_continue_the_file(store):
    write_stream(store, [1])
    write_stream(store, [2, 3])
    assert reopen_stream(store) == [1, 2, 3]


def test_a_batch_costs_one_fsync(store):
    stream, _ = store.log_store().open("f", MAGIC)
    stream.append_batch(list(range(100)))
    stream.append(100)
    assert stream.syncs == 2
    assert stream.records_written == 101  # type: ignore[attr-defined]
    stream.close()


def test_new_files_are_private(tmp_path):
    path = tmp_path / "f"
    write_file(str(path), [1])
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_symlinked_file_is_refused(tmp_path):
    target = tmp_path / "real"
    write_file(str(target), [1])
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(UnsafePathError, match="symlink"):
        RecordFile.open(str(link), MAGIC)


def test_a_cut_at_any_byte_keeps_exactly_the_complete_records(store):
    """A file keeps a torn tail, which the open cuts off durably; in PostgreSQL a record cut by a crash was never
    committed. Either way the stream reopens with exactly the complete records, ending on their boundary."""
    records = [{"n": n, "pad": "x" * n} for n in range(6)]
    boundaries = write_stream(store, records)
    source = store.log_store()
    for size in range(HEADER_SIZE, boundaries[-1] + 1):
        trial = f"cut{size}"
        target = store.log_store(trial)
        store.copy(source, target, "f", size)
        complete = sum(1 for end in boundaries[1:] if end <= size)
        assert reopen_stream(store, trial) == records[:complete], size
        assert store.end(target, "f") == ([HEADER_SIZE, *boundaries[1:]])[complete]
        store.remove_home(trial)


def test_a_flipped_bit_before_valid_records_is_corruption_with_file_and_offset(store):
    boundaries = write_stream(store, [{"n": n} for n in range(5)])
    log_store = store.log_store()
    store.flip(log_store, "f", boundaries[2] + 9, 0x10)  # inside the payload of the third record
    with pytest.raises(CorruptLogError) as raised:
        reopen_stream(store)
    assert raised.value.path == log_store.location_of("f")
    assert raised.value.offset == boundaries[2]
    assert f"offset {boundaries[2]}" in str(raised.value)


def test_every_single_bit_flip_is_detected_never_silently_skipped(store):
    """A file may read damage to its last record as a torn tail (losing that record alone); a PostgreSQL row is
    never torn, so there every flip is corruption."""
    records = [{"n": n} for n in range(4)]
    boundaries = write_stream(store, records)
    source = store.log_store()
    for position in range(HEADER_SIZE, boundaries[-1]):
        for bit in (0x01, 0x80):
            trial = store.log_store("flip")
            store.copy(source, trial, "f")
            store.flip(trial, "f", position, bit)
            try:
                got = reopen_stream(store, "flip")
            except CorruptLogError:
                continue
            finally:
                store.remove_home("flip")
            assert not store.is_postgres, (position, bit)
            assert got == records[:-1], (position, bit)


def test_a_deleted_row_in_the_middle_is_corruption_never_a_gap(store):
    if not store.is_postgres:
        pytest.skip("a file has no rows to lose")
    boundaries = write_stream(store, ["a", "b", "c"])
    admin = store.admin()
    admin.execute("DELETE FROM ddl_log_records WHERE pos = %s", (boundaries[1],))
    with pytest.raises(CorruptLogError, match="record missing") as raised:
        reopen_stream(store)
    assert raised.value.offset == boundaries[1]


def test_a_file_of_a_newer_format_version_is_refused(tmp_path):
    path = tmp_path / "f"
    header = bytearray(encode_header(MAGIC))
    struct.pack_into("<I", header, 8, 99)
    import crc32c

    struct.pack_into("<I", header, 12, crc32c.crc32c(bytes(header[:12])))
    path.write_bytes(bytes(header))
    with pytest.raises(UnsupportedFormatError, match="version 99"):
        RecordFile.open(str(path), MAGIC)


def test_a_garbage_file_is_refused(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(os.urandom(200))
    with pytest.raises((CorruptLogError, UnsupportedFormatError)):
        RecordFile.open(str(path), MAGIC)


def test_read_records_does_not_write(tmp_path):
    path = str(tmp_path / "f")
    write_file(path, [1, 2])
    with open(path, "ab") as handle:
        handle.write(b"\x05\x00")
    before = Path(path).read_bytes()
    records, valid_end, size = read_records(path, MAGIC)
    assert [r for _, r in records] == [1, 2]
    assert valid_end == size - 2
    assert Path(path).read_bytes() == before


record_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20) | st.binary(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=10,
)


_homes = itertools.count()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(record_values, min_size=1, max_size=4), min_size=1, max_size=5), cut=st.floats(0, 1))
def test_property_any_cut_reads_back_a_prefix_of_whole_records(store, batches, cut):
    home = f"prop{next(_homes)}"
    stream, _ = store.log_store(home).open("f", MAGIC)
    flat: list[object] = []
    ends = [stream.size]
    for batch in batches:
        stream.append_batch(batch)
        flat.extend(batch)
        ends.append(stream.size)
    stream.close()
    size = HEADER_SIZE + int((ends[-1] - HEADER_SIZE) * cut)
    store.cut(store.log_store(home), "f", size)
    got = reopen_stream(store, home)
    assert got == flat[: len(got)]
    # every batch that was entirely before the cut survives
    assert len(got) >= sum(len(batch) for batch, end in zip(batches, ends[1:], strict=True) if end <= size)
    assert store.end(store.log_store(home), "f") <= size
