"""Append-only files of length-prefixed, CRC32C-checksummed msgpack records.

Layout: a 16-byte header (8-byte magic naming the file kind, u32 format version, u32 CRC32C of the first 12
bytes), then records ``<u32 length><u32 crc32c(length bytes + payload)><payload>``, little endian.

Durability: :meth:`RecordFile.append_batch` writes all records of a batch with one ``write`` and one ``fsync``
(group commit) and returns only when they are on disk. Creating a file fsyncs its directory.

Opening tolerates exactly one kind of damage, the torn tail of a crash mid-write: a last record that is short or
fails its checksum *with no valid record after it* is cut off. A bad record followed by any valid record is
corruption, reported as :class:`CorruptLogError` with file and offset; committed records are never skipped.
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Iterable, Sequence
from typing import Any

import crc32c
import msgpack

from storage import crashpoints
from storage.errors import CorruptLogError, StorageError, UnsafePathError, UnsupportedFormatError
from storage.fileops import REAL_FILE_OPS, FileOps

FORMAT_VERSION = 1
HEADER = struct.Struct("<8sII")
HEADER_SIZE = HEADER.size
RECORD_HEAD = struct.Struct("<II")
RECORD_HEAD_SIZE = RECORD_HEAD.size
MAX_RECORD_SIZE = 16 * 1024 * 1024
FILE_MODE = 0o600

BEFORE_WRITE = crashpoints.declare("record.before_write", "a batch of records is about to be written")
TORN_WRITE = crashpoints.declare("record.torn_write", "half of a batch reached the file, then the process died")
BEFORE_SYNC = crashpoints.declare("record.before_sync", "a batch is written but not yet fsynced")
AFTER_SYNC = crashpoints.declare("record.after_sync", "a batch is durable")


def encode_record(obj: Any) -> bytes:
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    length = struct.pack("<I", len(payload))
    return length + struct.pack("<I", crc32c.crc32c(length + payload)) + payload


def encode_header(magic: bytes) -> bytes:
    head = magic.ljust(8, b"\0")[:8] + struct.pack("<I", FORMAT_VERSION)
    return head + struct.pack("<I", crc32c.crc32c(head))


def _valid_record_at(data: bytes | memoryview, offset: int) -> int:
    """Length of the valid record at ``offset``, or -1."""
    end = len(data)
    if end - offset < RECORD_HEAD_SIZE:
        return -1
    length: int
    crc: int
    length, crc = RECORD_HEAD.unpack_from(data, offset)
    if length == 0 or length > MAX_RECORD_SIZE or offset + RECORD_HEAD_SIZE + length > end:
        return -1
    body = bytes(data[offset : offset + RECORD_HEAD_SIZE + length])
    if crc32c.crc32c(body[:4] + body[RECORD_HEAD_SIZE:]) != crc:
        return -1
    return length


def _first_valid_record_after(data: bytes | memoryview, bad: int) -> int | None:
    for offset in range(bad + 1, len(data) - RECORD_HEAD_SIZE + 1):
        if _valid_record_at(data, offset) >= 0:
            return offset
    return None


def check_header(path: str, data: bytes | memoryview, magic: bytes) -> None:
    if len(data) < HEADER_SIZE:
        raise UnsupportedFormatError(path, f"file too short for a header ({len(data)} bytes)")
    got_magic, version, crc = HEADER.unpack_from(data, 0)
    if crc32c.crc32c(bytes(data[:12])) != crc:
        raise CorruptLogError(path, 0, "bad header checksum (not a file of this project, or damaged)")
    if got_magic != magic.ljust(8, b"\0")[:8]:
        raise UnsupportedFormatError(path, f"wrong file kind {got_magic!r}, expected {magic!r}")
    if version != FORMAT_VERSION:
        raise UnsupportedFormatError(
            path, f"format version {version} is not supported (this build reads version {FORMAT_VERSION})"
        )


def scan_records(path: str, data: bytes, start: int = HEADER_SIZE) -> tuple[list[tuple[int, Any]], int]:
    """Decode records from ``start``; return ``(offset, record)`` pairs and the end of the valid prefix.

    Raises :class:`CorruptLogError` when a damaged record is followed by a valid one.
    """
    records: list[tuple[int, Any]] = []
    view = memoryview(data)
    offset = start
    end = len(data)
    while offset < end:
        length = _valid_record_at(view, offset)
        if length < 0:
            following = _first_valid_record_after(view, offset)
            if following is not None:
                raise CorruptLogError(path, offset, f"damaged record followed by a valid record at offset {following}")
            break
        payload = bytes(view[offset + RECORD_HEAD_SIZE : offset + RECORD_HEAD_SIZE + length])
        try:
            record = msgpack.unpackb(payload, raw=False, strict_map_key=False)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
            raise CorruptLogError(path, offset, f"checksum matches but payload does not decode: {exc}") from exc
        records.append((offset, record))
        offset += RECORD_HEAD_SIZE + length
    return records, offset


def open_private(path: str, flags: int) -> int:
    """Open a file refusing symlinks (O_NOFOLLOW), creating it 0600."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafePathError(path, "is a symlink; refusing to use it") from exc
        raise StorageError(f"{path}: cannot open: {exc.strerror}") from exc


def _check_owner(path: str, fd: int) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePathError(path, "is not a regular file")
    if info.st_uid != os.getuid():
        raise UnsafePathError(path, f"is owned by uid {info.st_uid}, not by this user")


class RecordFile:
    """One open append-only record file. Not thread-safe on its own; owners serialise appends."""

    def __init__(self, path: str, magic: bytes, fd: int, size: int, ops: FileOps) -> None:
        self.path = path
        self.magic = magic
        self._fd = fd
        self._size = size
        self._ops = ops
        self.records_written = 0
        self.syncs = 0

    @classmethod
    def open(
        cls, path: str, magic: bytes, *, ops: FileOps = REAL_FILE_OPS, read_from: int | None = None
    ) -> tuple[RecordFile, list[tuple[int, Any]]]:
        """Open or create ``path``; return the file and its records (from ``read_from`` when given).

        A torn tail is cut off durably so the next append starts on a record boundary.
        """
        created = not os.path.lexists(path)
        fd = open_private(path, os.O_RDWR | os.O_CREAT)
        try:
            _check_owner(path, fd)
            if created or os.fstat(fd).st_size == 0:
                ops.write(fd, encode_header(magic))
                ops.fsync(fd)
                ops.fsync_dir(os.path.dirname(os.path.abspath(path)))
                return cls(path, magic, fd, HEADER_SIZE, ops), []
            data = _read_all(fd)
            check_header(path, data, magic)
            start = HEADER_SIZE if read_from is None else max(read_from, HEADER_SIZE)
            records, valid_end = scan_records(path, data, start)
            if valid_end < len(data):
                ops.truncate(fd, valid_end)
                ops.fsync(fd)
            os.lseek(fd, valid_end, os.SEEK_SET)
            return cls(path, magic, fd, valid_end, ops), records
        except BaseException:
            os.close(fd)
            raise

    @property
    def size(self) -> int:
        """Offset where the next record goes."""
        return self._size

    def append(self, record: Any) -> int:
        return self.append_batch([record])[0]

    def append_batch(self, records: Sequence[Any]) -> list[int]:
        """Write ``records`` with one write and one fsync; return their offsets. Durable on return.

        On an I/O error the file is cut back to where it was, so a failed append leaves nothing behind.
        """
        return self.append_encoded([encode_record(record) for record in records])

    def append_encoded(self, encoded: Sequence[bytes]) -> list[int]:
        """:meth:`append_batch` for records already passed through :func:`encode_record`."""
        if not encoded:
            return []
        offsets: list[int] = []
        position = self._size
        for chunk in encoded:
            offsets.append(position)
            position += len(chunk)
        blob = b"".join(encoded)
        BEFORE_WRITE()
        try:
            os.lseek(self._fd, self._size, os.SEEK_SET)
            if crashpoints.fires_next(TORN_WRITE.name):
                self._ops.write(self._fd, blob[: max(1, len(blob) // 2)])
                os.fsync(self._fd)  # make the torn half really reach the disk before dying
            TORN_WRITE()
            self._ops.write(self._fd, blob)
            BEFORE_SYNC()
            self._ops.fsync(self._fd)
        except OSError as exc:
            self._rollback_to(self._size)
            raise StorageError(f"{self.path}: append failed: {exc.strerror or exc}") from exc
        self._size = position
        self.records_written += len(encoded)
        self.syncs += 1
        AFTER_SYNC()
        return offsets

    def truncate_to(self, offset: int) -> None:
        """Durably cut the file at a record boundary (an owner found an incomplete group of records there)."""
        if not HEADER_SIZE <= offset <= self._size:
            raise StorageError(f"{self.path}: cannot truncate to {offset}")
        self._ops.truncate(self._fd, offset)
        self._ops.fsync(self._fd)
        os.lseek(self._fd, offset, os.SEEK_SET)
        self._size = offset

    def _rollback_to(self, size: int) -> None:
        try:
            os.ftruncate(self._fd, size)
            os.lseek(self._fd, size, os.SEEK_SET)
        except OSError:
            pass  # the next open cuts the torn tail anyway

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> RecordFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def read_records(path: str, magic: bytes, start: int = HEADER_SIZE) -> tuple[list[tuple[int, Any]], int, int]:
    """Read-only scan (for dump/status): records, end of the valid prefix, file size. Writes nothing."""
    fd = open_private(path, os.O_RDONLY)
    try:
        data = _read_all(fd)
    finally:
        os.close(fd)
    check_header(path, data, magic)
    records, valid_end = scan_records(path, data, max(start, HEADER_SIZE))
    return records, valid_end, len(data)


def replace_file(
    path: str, magic: bytes, records: Iterable[Any], *, ops: FileOps = REAL_FILE_OPS, backup_path: str | None = None
) -> None:
    """Atomically replace ``path`` with a file holding ``records``: write new, fsync, rename, fsync dir.

    When ``backup_path`` is given the previous file is kept there (hard link, swapped in atomically first).
    """
    directory = os.path.dirname(os.path.abspath(path))
    tmp = path + ".new"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    fd = open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        ops.write(fd, encode_header(magic) + b"".join(encode_record(record) for record in records))
        ops.fsync(fd)
    except OSError as exc:
        os.close(fd)
        os.unlink(tmp)
        raise StorageError(f"{tmp}: write failed: {exc.strerror or exc}") from exc
    os.close(fd)
    if backup_path is not None and os.path.exists(path):
        link_tmp = backup_path + ".new"
        if os.path.lexists(link_tmp):
            os.unlink(link_tmp)
        os.link(path, link_tmp)
        os.replace(link_tmp, backup_path)
    os.replace(tmp, path)
    ops.fsync_dir(directory)
