"""Regression tests for three defects of the durable record layer found by an outside review.

7. A crash while the binlog opened a new segment left one with a header only; the next open restarted the sequence
   numbers at 1. New files (segments, the DDL log) now appear complete or not at all, and an open tolerates the
   header-only or empty files older versions could leave.
8. A torn tail whose payload held record-shaped bytes was reported as mid-file corruption, locking the home.
9. After a failed fsync the record file kept accepting writes, and a record reported as failed could come back.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actions.kinds.create_table import CreateTablePayload
from chains.binlog import (
    BINLOG_DIR,
    BINLOG_MAGIC,
    Binlog,
    binlog_store,
    list_segments,
    open_binlog,
    read_events,
    segment_name,
)
from chains.entries import ActionType, ChainKind
from chains.log import open_log
from storage import crashpoints
from storage import errors as storage_errors
from storage.catalogs.names import TableName
from storage.crashpoints import SimulatedCrash
from storage.errors import CorruptLogError, StorageError
from storage.records.fileops import FileOps
from storage.records.files import RecordFile, read_records
from storage.records.format import HEADER_SIZE, RECORD_HEAD_SIZE, encode_header, encode_record
from tests.stores import StoreKit

MAGIC = b"TESTREC"
SEGMENT_BYTES = 200


def events_of(home: str) -> list[int]:
    return [event.seq for event in read_events(home)]


# ------------------------------------------------------------------ defect 7: a new segment appears only complete


def fill_first_segment(store: StoreKit, home: str) -> Binlog:
    """A binlog whose next append starts a new segment."""
    binlog = store.open_binlog(home, segment_bytes=SEGMENT_BYTES)
    xid = 100
    while binlog._file.size < SEGMENT_BYTES:
        binlog.append(f"statement {xid}", xid=xid)
        xid += 1
    return binlog


def rotation_instants(store: StoreKit) -> list[tuple[str, int]]:
    binlog = fill_first_segment(store, "probe")
    with crashpoints.recording() as passed:
        binlog.append("first of the new segment", xid=999)
    binlog.close()
    return crashpoints.occurrences(passed)


def test_defect7_a_crash_at_any_instant_of_a_segment_rotation_never_repeats_a_sequence_number(store):
    instants = rotation_instants(store)
    assert ("binlog.before_rotate", 1) in instants
    for point, nth in instants:
        home = f"{point}-{nth}"
        binlog = fill_first_segment(store, home)
        before = [e.seq for e in store.events(home)]
        noted = binlog.position()
        crashpoints.arm(point, nth)
        try:
            binlog.append("first of the new segment", xid=999)
        except SimulatedCrash:
            pass
        finally:
            crashpoints.disarm_all()
            binlog.close()
        reopened = store.open_binlog(home, segment_bytes=SEGMENT_BYTES)
        assert reopened.last_seq >= before[-1], (point, nth)
        assert reopened.max_xid >= 100 + len(before) - 1, (point, nth)
        later = reopened.append("after the crash", xid=1000)
        reopened.append("and one more", xid=1001)
        reopened.close()
        seqs = [e.seq for e in store.events(home)]
        assert seqs == sorted(set(seqs)) and seqs[: len(before)] == before, (point, nth, seqs)
        assert later.seq == seqs[-2]
        for since in range(len(seqs) + 1):
            assert [e.seq for e in store.events(home, since)] == [s for s in seqs if s > since], since
        assert {1000, 1001} <= reopened.xids_since(noted)


def test_defect7_a_rotation_publishes_the_new_segment_with_its_start_record_or_not_at_all(store):
    for point in ("binlog.rotate_before_rename", "binlog.rotate_after_rename"):
        binlog = fill_first_segment(store, point)
        with crashpoints.armed(point), pytest.raises(SimulatedCrash):
            binlog.append("first of the new segment", xid=999)
        binlog.close()
        segments = store.binlog_store(point)
        for number in list_segments(segments):
            records, _, _ = segments.read(segment_name(number), BINLOG_MAGIC)
            assert number == 1 or records[0][1]["op"] == "start", (point, number)
        assert len(list_segments(segments)) == (1 if point == "binlog.rotate_before_rename" else 2)


@pytest.mark.parametrize("leftover", ["header only", "empty", "torn header"])
def test_defect7_a_header_only_or_empty_newest_segment_of_an_older_version_is_not_there(tmp_path, leftover):
    home = str(tmp_path)
    binlog = fill_first_segment(StoreKit("file", tmp_path, None), "")
    last_seq, max_xid = binlog.last_seq, binlog.max_xid
    binlog.close()
    stub = {"header only": encode_header(BINLOG_MAGIC), "empty": b"", "torn header": encode_header(BINLOG_MAGIC)[:7]}
    Path(home, BINLOG_DIR, segment_name(2)).write_bytes(stub[leftover])
    assert events_of(home) == list(range(1, last_seq + 1))  # the read-only reader copes too
    reopened = open_binlog(home, segment_bytes=SEGMENT_BYTES)
    assert (reopened.last_seq, reopened.max_xid) == (last_seq, max_xid)
    assert reopened.append("next", xid=max_xid + 1).seq == last_seq + 1
    reopened.close()
    assert events_of(home) == list(range(1, last_seq + 2))
    records, _, _ = read_records(os.path.join(home, BINLOG_DIR, segment_name(2)), BINLOG_MAGIC)
    assert records[0][1] == {"op": "start", "seq": last_seq, "max_xid": max_xid}


@pytest.mark.parametrize("size", range(1, HEADER_SIZE))
def test_defect7_a_log_file_with_a_torn_header_of_an_older_version_opens_as_empty(tmp_path, size):
    log = open_log(str(tmp_path))
    log.close_file()
    Path(log.location).write_bytes(encode_header(b"SDDLLOG")[:size])
    reopened = open_log(str(tmp_path))
    assert reopened.chains() == []
    position = reopened.new_chain(ChainKind.UNDO)
    reopened.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "t"), payload=CreateTablePayload())
    reopened.close_file()
    assert [c.position for c in open_log(str(tmp_path)).chains()] == [position]


class FlakyDisk(FileOps):
    """Fails chosen calls with EIO: ``fsync`` / ``truncate`` / ``write`` / ``fsync_dir`` once each time it is set."""

    def __init__(self) -> None:
        self.fail: set[str] = set()
        self.always: set[str] = set()

    def _check(self, call: str) -> None:
        if call in self.always:
            raise OSError(errno.EIO, f"Input/output error ({call})")
        if call in self.fail:
            self.fail.discard(call)
            raise OSError(errno.EIO, f"Input/output error ({call})")

    def write(self, fd: int, data: bytes) -> None:
        self._check("write")
        super().write(fd, data)

    def fsync(self, fd: int) -> None:
        self._check("fsync")
        super().fsync(fd)

    def fsync_dir(self, path: str) -> None:
        self._check("fsync_dir")
        super().fsync_dir(path)

    def truncate(self, fd: int, size: int) -> None:
        self._check("truncate")
        super().truncate(fd, size)


def test_defect7_a_new_record_file_whose_creation_fails_is_not_left_behind(tmp_path):
    path = str(tmp_path / "f")
    disk = FlakyDisk()
    disk.fail.add("fsync")
    with pytest.raises(StorageError):
        RecordFile.open(path, MAGIC, ops=disk)
    assert os.listdir(tmp_path) == []
    file, records = RecordFile.open(path, MAGIC, ops=disk)
    with file:
        assert records == []
        file.append("works")


def test_defect7_a_compaction_whose_directory_fsync_fails_keeps_writing_to_the_live_log(tmp_path):
    disk = FlakyDisk()
    log = open_log(str(tmp_path), ops=disk)
    done = log.new_chain(ChainKind.UNDO)
    log.add_action(done, ActionType.CREATE_TABLE, name=TableName("default", "a"), payload=CreateTablePayload())
    log.close(done)
    disk.fail.add("fsync_dir")
    with pytest.raises(StorageError):
        log.compact()
    position = log.new_chain(ChainKind.UNDO)
    log.add_action(position, ActionType.CREATE_TABLE, name=TableName("default", "b"), payload=CreateTablePayload())
    log.close_file()
    assert [c.position for c in open_log(str(tmp_path)).active_chains()] == [position]


# ------------------------------------------------------------------ defect 8: torn tail with record-shaped payload


def utf8_record() -> bytes:
    """An encoded record that is valid UTF-8, so a statement string can hold it verbatim."""
    for value in range(128):
        encoded = encode_record(value)
        try:
            encoded.decode("utf-8")
        except UnicodeDecodeError:
            continue
        return encoded
    raise AssertionError("no UTF-8 record found")


def test_defect8_a_torn_record_whose_payload_holds_a_valid_record_is_cut_as_a_torn_tail(tmp_path):
    path = str(tmp_path / "f")
    file, _ = RecordFile.open(path, MAGIC)
    with file:
        file.append_batch(["one", "two"])
        good_end = file.size
    inner = utf8_record()
    statement = "INSERT INTO t VALUES ('" + inner.decode("utf-8") + "')" + " -- padding" * 10
    torn = encode_record({"op": "event", "stmt": statement})
    cut = torn.index(inner) + len(inner) + 5
    with open(path, "ab") as handle:
        handle.write(torn[:cut])
    file, records = RecordFile.open(path, MAGIC)
    with file:
        assert [record for _, record in records] == ["one", "two"]
        assert os.path.getsize(path) == good_end
        file.append("three")
    file, records = RecordFile.open(path, MAGIC)
    file.close()
    assert [record for _, record in records] == ["one", "two", "three"]


def test_defect8_a_torn_binlog_event_whose_statement_embeds_a_record_does_not_lock_the_home(tmp_path):
    home = str(tmp_path)
    binlog = open_binlog(home)
    binlog.append("CREATE TABLE a (x INT)", xid=1)
    inner = utf8_record()
    statement = "CREATE VIEW v AS SELECT '" + inner.decode("utf-8") + "' AS s FROM a"
    binlog.append(statement, xid=2)
    path = binlog._file.path
    binlog.close()
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[: data.rindex(inner) + len(inner) + 3])  # the crash tore the second event
    reopened = open_binlog(home)
    assert [e.statement for e in reopened.events()] == ["CREATE TABLE a (x INT)"]
    assert reopened.append("DROP TABLE a", xid=3).seq == 2
    reopened.close()
    assert [e.statement for e in read_events(home)] == ["CREATE TABLE a (x INT)", "DROP TABLE a"]


embedded_records = st.lists(st.integers(0, 127) | st.text(max_size=8), min_size=1, max_size=3).map(
    lambda values: b"".join(encode_record(value) for value in values)
)
record_shaped_payloads = st.lists(
    st.tuples(st.binary(max_size=6), embedded_records, st.binary(max_size=6)).map(lambda parts: b"".join(parts)),
    min_size=1,
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3),
    payload=record_shaped_payloads,
    cut=st.floats(0, 1, exclude_max=True),
)
def test_defect8_property_a_torn_tail_is_never_corruption_whatever_records_its_payload_embeds(
    tmp_path_factory, before, payload, cut
):
    path = str(tmp_path_factory.mktemp("torn") / "f")
    file, _ = RecordFile.open(path, MAGIC)
    with file:
        if before:
            file.append_batch(before)
        good_end = file.size
    torn = encode_record({"op": "event", "stmt": payload})
    with open(path, "ab") as handle:
        handle.write(torn[: int(len(torn) * cut)])
    file, records = RecordFile.open(path, MAGIC)
    file.close()
    assert [record for _, record in records] == before
    assert os.path.getsize(path) == good_end


def records_file(tmp_path: Path, values: list[object]) -> tuple[str, list[int], bytes]:
    path = str(tmp_path / "f")
    file, _ = RecordFile.open(path, MAGIC)
    with file:
        offsets = file.append_batch(values)
    return path, offsets, Path(path).read_bytes()


@pytest.mark.parametrize("length", [0, 1, 3, 5, 40, 200, 1 << 20, (1 << 24) + 1, (1 << 32) - 1])
def test_defect8_a_damaged_length_field_in_the_middle_is_still_corruption(tmp_path, length):
    path, offsets, data = records_file(tmp_path, [{"n": n, "text": "x" * 20} for n in range(4)])
    damaged = bytearray(data)
    damaged[offsets[1] : offsets[1] + 4] = length.to_bytes(4, "little")
    Path(path).write_bytes(bytes(damaged))
    with pytest.raises(CorruptLogError) as raised:
        RecordFile.open(path, MAGIC)
    assert raised.value.offset == offsets[1]


def test_defect8_a_record_that_fits_but_fails_its_checksum_before_valid_records_is_corruption(tmp_path):
    inner = utf8_record()
    path, offsets, data = records_file(tmp_path, ["a", "b" + inner.decode("utf-8") + "b", "c"])
    damaged = bytearray(data)
    damaged[offsets[1] + RECORD_HEAD_SIZE + 1] ^= 0x01  # "b" -> "c": the embedded record stays intact
    Path(path).write_bytes(bytes(damaged))
    with pytest.raises(CorruptLogError, match=f"valid record at offset {offsets[2]}"):
        RecordFile.open(path, MAGIC)


# ------------------------------------------------------------------ defect 9: refuse writes after a failed fsync


def test_defect9_after_a_failed_fsync_every_later_write_is_refused_until_reopen(tmp_path):
    path = str(tmp_path / "f")
    disk = FlakyDisk()
    file, _ = RecordFile.open(path, MAGIC, ops=disk)
    file.append("durable")
    disk.fail.add("fsync")
    with pytest.raises(storage_errors.LogWriteFailedError) as first:
        file.append("lost")
    assert first.value.path == path and not first.value.fate_unknown
    assert "append failed" in str(first.value)
    for attempt in (lambda: file.append("refused"), lambda: file.truncate_to(HEADER_SIZE)):
        with pytest.raises(storage_errors.LogWriteFailedError, match="reopen") as later:
            attempt()
        assert later.value.path == path
    file.close()
    file, records = RecordFile.open(path, MAGIC, ops=disk)
    with file:
        assert [record for _, record in records] == ["durable"]  # told "failed": it is not there
        file.append("after reopen")
    assert [r for _, r in read_records(path, MAGIC)[0]] == ["durable", "after reopen"]


def test_defect9_when_the_rollback_also_fails_the_error_says_the_records_fate_is_unknown(tmp_path):
    path = str(tmp_path / "f")
    disk = FlakyDisk()
    file, _ = RecordFile.open(path, MAGIC, ops=disk)
    file.append("durable")
    disk.fail.update({"fsync", "truncate"})
    with pytest.raises(storage_errors.LogWriteFailedError) as raised:
        file.append("maybe")
    assert raised.value.fate_unknown and "unknown" in str(raised.value)
    with pytest.raises(storage_errors.LogWriteFailedError):
        file.append("refused")
    file.close()
    # what the next open finds is what counts: here the record reached the file
    file, records = RecordFile.open(path, MAGIC, ops=disk)
    file.close()
    assert [record for _, record in records] == ["durable", "maybe"]


def test_defect9_a_failed_fsync_after_a_successful_rollback_still_leaves_the_fate_unknown(tmp_path):
    path = str(tmp_path / "f")
    disk = FlakyDisk()
    file, _ = RecordFile.open(path, MAGIC, ops=disk)
    disk.always.add("fsync")
    with pytest.raises(storage_errors.LogWriteFailedError) as raised:
        file.append("maybe")
    assert raised.value.fate_unknown  # the cut itself could not be made durable
    file.close()


def test_defect9_a_failed_write_poisons_the_file_too(tmp_path):
    path = str(tmp_path / "f")
    disk = FlakyDisk()
    file, _ = RecordFile.open(path, MAGIC, ops=disk)
    disk.fail.add("write")
    with pytest.raises(storage_errors.LogWriteFailedError, match="Input/output error"):
        file.append_batch(["a", "b"])
    with pytest.raises(storage_errors.LogWriteFailedError, match="reopen"):
        file.append("c")
    file.close()


def test_defect9_a_binlog_append_that_failed_refuses_later_events_until_the_home_is_reopened(tmp_path):
    home = str(tmp_path)
    disk = FlakyDisk()
    binlog = open_binlog(home, ops=disk)
    binlog.append("committed", xid=1)
    disk.fail.add("fsync")
    with pytest.raises(storage_errors.LogWriteFailedError):
        binlog.append("failed", xid=2)
    with pytest.raises(storage_errors.LogWriteFailedError, match="reopen"):
        binlog.append("refused", xid=3)
    binlog.close()
    reopened = open_binlog(home, ops=disk)
    assert reopened.append("after reopen", xid=4).seq == 2
    reopened.close()
    assert [(e.seq, e.statement) for e in read_events(home)] == [(1, "committed"), (2, "after reopen")]


def test_defect9_the_ddl_log_reloads_after_a_failed_write_and_keeps_only_what_the_file_holds(tmp_path):
    disk = FlakyDisk()
    log = open_log(str(tmp_path), ops=disk)
    kept = log.new_chain(ChainKind.UNDO)
    log.add_action(kept, ActionType.CREATE_TABLE, name=TableName("default", "a"), payload=CreateTablePayload())
    failed = log.new_chain(ChainKind.UNDO)
    disk.fail.add("fsync")
    with pytest.raises(storage_errors.LogWriteFailedError):
        log.add_action(failed, ActionType.CREATE_TABLE, name=TableName("default", "b"), payload=CreateTablePayload())
    assert [c.position for c in log.chains()] == [kept]
    log.close(kept)  # the log reopened its file: writes go on
    log.close_file()
    assert [c.position for c in open_log(str(tmp_path)).chains() if c.active] == []


def test_defect7_a_rotation_that_fails_refuses_later_events_until_reopen_and_never_repeats_a_number(tmp_path):
    home = str(tmp_path)
    disk = FlakyDisk()
    binlog = open_binlog(home, ops=disk, segment_bytes=SEGMENT_BYTES)
    while binlog._file.size < SEGMENT_BYTES:
        binlog.append("filler", xid=binlog.last_seq + 1)
    last = binlog.last_seq
    disk.fail.add("fsync_dir")  # the new segment is in place, its directory entry maybe not durable
    with pytest.raises(storage_errors.LogWriteFailedError):
        binlog.append("first of the new segment", xid=500)
    with pytest.raises(storage_errors.LogWriteFailedError, match="reopen"):
        binlog.append("refused", xid=501)
    binlog.close()
    reopened = open_binlog(home, ops=disk, segment_bytes=SEGMENT_BYTES)
    assert reopened.append("after reopen", xid=502).seq == last + 1
    reopened.close()
    assert events_of(home) == list(range(1, last + 2))


def test_defect9_an_open_fsyncs_what_it_read_before_anything_builds_on_it(tmp_path):
    path = str(tmp_path / "f")
    file, _ = RecordFile.open(path, MAGIC)
    file.close()
    with open(path, "ab") as handle:  # a record a crashed process wrote but never fsynced
        handle.write(encode_record("unsynced"))
    disk = FlakyDisk()
    disk.fail.add("fsync")
    with pytest.raises(storage_errors.LogWriteFailedError, match="durable"):
        RecordFile.open(path, MAGIC, ops=disk)
    assert "fsync" not in disk.fail


def test_defect9_a_poisoned_binlog_does_not_escape_by_starting_a_new_segment(tmp_path):
    home = str(tmp_path)
    disk = FlakyDisk()
    binlog = open_binlog(home, ops=disk)
    binlog.append("committed", xid=1)
    disk.fail.add("fsync")
    with pytest.raises(storage_errors.LogWriteFailedError):
        binlog.append("failed", xid=2)
    binlog.segment_bytes = 0  # the next event would rotate into a fresh, healthy file
    with pytest.raises(storage_errors.LogWriteFailedError, match="reopen"):
        binlog.append("refused", xid=3)
    with pytest.raises(storage_errors.LogWriteFailedError, match="reopen"):
        binlog.append_many([("refused too", 4, ())])
    binlog.close()
    assert list_segments(binlog_store(home)) == [1]


def test_defect8_every_bit_flip_in_records_that_embed_records_is_still_detected(tmp_path):
    inner = utf8_record()
    values = [{"stmt": f"s{n} " + inner.decode("utf-8") * n} for n in range(4)]
    path, _, data = records_file(tmp_path, values)
    for position in range(HEADER_SIZE, len(data)):
        for bit in (0x01, 0x10, 0x80):
            damaged = bytearray(data)
            damaged[position] ^= bit
            Path(path).write_bytes(bytes(damaged))
            try:
                file, records = RecordFile.open(path, MAGIC)
            except CorruptLogError:
                continue
            file.close()
            # only damage to the very last record may read as a torn tail, losing that record alone
            assert [record for _, record in records] == values[:-1], (position, bit)
