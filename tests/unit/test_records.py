"""The record file: durable appends, torn tails cut, corruption reported with file and offset, never skipped."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.errors import CorruptLogError, UnsafePathError, UnsupportedFormatError
from storage.records.files import RecordFile, read_records
from storage.records.format import HEADER_SIZE, encode_header

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


def test_records_come_back_in_order_after_reopen(tmp_path):
    path = str(tmp_path / "f")
    write_file(path, [{"a": 1}, [1, 2, 3], "text", b"bytes"])
    assert reopen(path) == [{"a": 1}, [1, 2, 3], "text", b"bytes"]


def test_appends_after_reopen_continue_the_file(tmp_path):
    path = str(tmp_path / "f")
    write_file(path, [1])
    write_file(path, [2, 3])
    assert reopen(path) == [1, 2, 3]


def test_a_batch_costs_one_fsync(tmp_path):
    file, _ = RecordFile.open(str(tmp_path / "f"), MAGIC)
    with file:
        file.append_batch(list(range(100)))
        file.append(100)
        assert file.syncs == 2
        assert file.records_written == 101


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


@pytest.mark.parametrize("cut", ["every"])
def test_a_cut_at_any_byte_keeps_exactly_the_complete_records(tmp_path, cut):
    path = str(tmp_path / "f")
    records = [{"n": n, "pad": "x" * n} for n in range(6)]
    boundaries = write_file(path, records)
    data = Path(path).read_bytes()
    for size in range(HEADER_SIZE, len(data) + 1):
        trial = str(tmp_path / f"cut{size}")
        with open(trial, "wb") as handle:
            handle.write(data[:size])
        complete = sum(1 for end in boundaries[1:] if end <= size)
        assert reopen(trial) == records[:complete], size
        # the torn tail was cut durably: the file now ends on a record boundary
        assert os.path.getsize(trial) == ([HEADER_SIZE, *boundaries[1:]])[complete]


def test_a_flipped_bit_before_valid_records_is_corruption_with_file_and_offset(tmp_path):
    path = str(tmp_path / "f")
    boundaries = write_file(path, [{"n": n} for n in range(5)])
    data = bytearray(Path(path).read_bytes())
    victim = boundaries[2] + 9  # inside the payload of the third record
    data[victim] ^= 0x10
    Path(path).write_bytes(bytes(data))
    with pytest.raises(CorruptLogError) as raised:
        reopen(path)
    assert raised.value.path == path
    assert raised.value.offset == boundaries[2]
    assert f"offset {boundaries[2]}" in str(raised.value)


def test_every_single_bit_flip_is_detected_never_silently_skipped(tmp_path):
    path = str(tmp_path / "f")
    records = [{"n": n} for n in range(4)]
    write_file(path, records)
    data = Path(path).read_bytes()
    for position in range(HEADER_SIZE, len(data)):
        for bit in (0x01, 0x80):
            damaged = bytearray(data)
            damaged[position] ^= bit
            trial = str(tmp_path / "flip")
            Path(trial).write_bytes(bytes(damaged))
            try:
                got = reopen(trial)
            except CorruptLogError:
                continue
            # Only damage to the very last record may read as a torn tail, losing that record alone.
            assert got == records[:-1], (position, bit)


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


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(st.lists(record_values, min_size=1, max_size=4), min_size=1, max_size=5), cut=st.floats(0, 1))
def test_property_any_cut_reads_back_a_prefix_of_whole_records(tmp_path_factory, batches, cut):
    directory = tmp_path_factory.mktemp("prop")
    path = str(directory / "f")
    file, _ = RecordFile.open(path, MAGIC)
    ends = []
    flat: list[object] = []
    with file:
        for batch in batches:
            file.append_batch(batch)
            for record in batch:
                flat.append(record)
            ends.append(file.size)
    data = Path(path).read_bytes()
    size = HEADER_SIZE + int((len(data) - HEADER_SIZE) * cut)
    Path(path).write_bytes(data[:size])
    got = reopen(path)
    assert got == flat[: len(got)]
    # every record that was entirely before the cut survives
    _, boundaries, _ = read_records(path, MAGIC)
    assert boundaries <= size
