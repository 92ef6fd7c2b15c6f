"""Append-only record files (the record format of :mod:`storage.records.format`) on a POSIX file system.

Durability: :meth:`RecordFile.append_batch` writes all records of a batch with one ``write`` and one ``fsync``
(group commit) and returns only when they are on disk. Creating a file fsyncs its directory.

Creating a file is atomic: header and first records go to a temporary file, which is fsynced and then linked into
place, so a file never appears with only part of what it was created with. Opening cuts a torn tail off durably.

A failed write, fsync or truncate poisons the open file: every later write raises :class:`LogWriteFailedError`
until the file is reopened, and the error says whether the failed records are surely gone or their fate is unknown.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from storage import crashpoints
from storage.errors import LogWriteFailedError, StorageError, UnsafePathError
from storage.records.fileops import REAL_FILE_OPS, FileOps
from storage.records.format import (
    HEADER_SIZE,
    check_header,
    encode_header,
    encode_record,
    is_unwritten,
    scan_records,
)

FILE_MODE = 0o600

BEFORE_WRITE = crashpoints.declare("record.before_write", "a batch of records is about to be written")
TORN_WRITE = crashpoints.declare("record.torn_write", "half of a batch reached the file, then the process died")
BEFORE_SYNC = crashpoints.declare("record.before_sync", "a batch is written but not yet fsynced")
AFTER_SYNC = crashpoints.declare("record.after_sync", "a batch is durable")


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
        self._poisoned: LogWriteFailedError | None = None
        self.records_written = 0
        self.syncs = 0

    @classmethod
    def open(
        cls, path: str, magic: bytes, *, ops: FileOps = REAL_FILE_OPS, read_from: int | None = None
    ) -> tuple[RecordFile, list[tuple[int, Any]]]:
        """Open or create ``path``; return the file and its records (from ``read_from`` when given).

        A new file appears complete or not at all (:func:`create_file`). A torn tail is cut off durably so the next
        append starts on a record boundary, and what was read is fsynced before anything builds on it (a crash
        before an fsync leaves records that only the page cache holds).
        """
        if not os.path.lexists(path):
            create_file(path, magic, ops=ops)
        fd = open_private(path, os.O_RDWR)
        try:
            _check_owner(path, fd)
            data = _read_all(fd)
            if not is_unwritten(data, magic):
                return cls._resume(path, magic, fd, data, ops, read_from)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        replace_file(path, magic, (), ops=ops)
        return cls.open(path, magic, ops=ops, read_from=read_from)

    @classmethod
    def _resume(
        cls, path: str, magic: bytes, fd: int, data: bytes, ops: FileOps, read_from: int | None
    ) -> tuple[RecordFile, list[tuple[int, Any]]]:
        check_header(path, data, magic)
        start = HEADER_SIZE if read_from is None else max(read_from, HEADER_SIZE)
        records, valid_end = scan_records(path, data, start)
        try:
            if valid_end < len(data):
                ops.truncate(fd, valid_end)
            ops.fsync(fd)
        except OSError as exc:
            raise LogWriteFailedError(path, f"cannot make the file durable on open: {exc.strerror or exc}") from exc
        os.lseek(fd, valid_end, os.SEEK_SET)
        return cls(path, magic, fd, valid_end, ops), records

    @property
    def location(self) -> str:
        return self.path

    @property
    def size(self) -> int:
        """Offset where the next record goes."""
        return self._size

    @property
    def failed(self) -> LogWriteFailedError | None:
        """The error that poisoned this file (every write is refused until it is reopened), or None."""
        return self._poisoned

    def append(self, record: Any) -> int:
        return self.append_batch([record])[0]

    def append_batch(self, records: Sequence[Any]) -> list[int]:
        """Write ``records`` with one write and one fsync; return their offsets. Durable on return.

        On an I/O error the file is cut back to where it was and poisoned; see :meth:`append_encoded`.
        """
        return self.append_encoded([encode_record(record) for record in records])

    def append_encoded(self, encoded: Sequence[bytes]) -> list[int]:
        """:meth:`append_batch` for records already passed through :func:`encode_record`.

        Raises :class:`LogWriteFailedError` on an I/O error, after which every write is refused until the file is
        reopened. ``fate_unknown`` False: the records were durably cut off, they are not in the file. True: they
        could not be, so the next open may or may not find them; only that open says whether they count.
        """
        self._check_writable()
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
            raise self._fail_append(exc) from exc
        self._size = position
        self.records_written += len(encoded)
        self.syncs += 1
        AFTER_SYNC()
        return offsets

    def truncate_to(self, offset: int) -> None:
        """Durably cut the file at a record boundary (an owner found an incomplete group of records there)."""
        self._check_writable()
        if not HEADER_SIZE <= offset <= self._size:
            raise StorageError(f"{self.path}: cannot truncate to {offset}")
        try:
            self._ops.truncate(self._fd, offset)
            self._ops.fsync(self._fd)
            os.lseek(self._fd, offset, os.SEEK_SET)
        except OSError as exc:
            self._poisoned = LogWriteFailedError(
                self.path, f"truncate failed: {exc.strerror or exc}; the next open cuts the same records again"
            )
            raise self._poisoned from exc
        self._size = offset

    def _check_writable(self) -> None:
        if self._fd < 0:
            raise StorageError(f"{self.path}: the file is closed")
        if self._poisoned is not None:
            raise LogWriteFailedError(
                self.path, f"refusing to write after a failed write ({self._poisoned.reason}); reopen to go on"
            )

    def _fail_append(self, exc: OSError) -> LogWriteFailedError:
        """Cut the failed records off again, durably if the disk lets us, and poison the file.

        No retry and no further write: after a failed fsync the kernel may have dropped the unwritten pages and
        reported the error once, so a later fsync could succeed without them (PostgreSQL, 2018). Only the cut and
        its fsync are tried, because only they make "failed" true; if either fails the fate stays unknown.
        """
        cause = exc.strerror or str(exc)
        try:
            self._ops.truncate(self._fd, self._size)
            self._ops.fsync(self._fd)
        except OSError as cut_exc:
            error = LogWriteFailedError(
                self.path,
                f"append failed: {cause}; cutting it off again failed too ({cut_exc.strerror or cut_exc}), so "
                "whether its records are on disk is unknown: the next open decides",
                fate_unknown=True,
            )
        else:
            error = LogWriteFailedError(self.path, f"append failed: {cause}; nothing of it was kept")
        self._poisoned = error
        return error

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
    """Read-only scan (for dump/status): records, end of the valid prefix, file size. Writes nothing.

    A file left empty or with a torn header by an older version (:func:`is_unwritten`) reads as holding nothing.
    """
    fd = open_private(path, os.O_RDONLY)
    try:
        data = _read_all(fd)
    finally:
        os.close(fd)
    if is_unwritten(data, magic):
        return [], len(data), len(data)
    check_header(path, data, magic)
    records, valid_end = scan_records(path, data, max(start, HEADER_SIZE))
    return records, valid_end, len(data)


def _write_temp(path: str, magic: bytes, records: Iterable[Any], ops: FileOps) -> str:
    """Write header and records to ``<path>.new`` (replacing a leftover one) and fsync it; return its path."""
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
    return tmp


def _fsync_dir(directory: str, ops: FileOps, path: str) -> None:
    try:
        ops.fsync_dir(directory)
    except OSError as exc:
        reason = exc.strerror or exc
        raise StorageError(f"{path}: is in place but its directory could not be fsynced: {reason}") from exc


def create_file(
    path: str,
    magic: bytes,
    records: Iterable[Any] = (),
    *,
    ops: FileOps = REAL_FILE_OPS,
    before_publish: Callable[[], None] | None = None,
) -> None:
    """Create ``path`` holding the header and ``records`` so that it appears complete or not at all.

    Written and fsynced under a temporary name, then hard-linked into place (never over an existing file), then the
    directory is fsynced. ``before_publish`` runs between the two (a crash point of the caller).
    """
    directory = os.path.dirname(os.path.abspath(path))
    tmp = _write_temp(path, magic, records, ops)
    if before_publish is not None:
        before_publish()
    try:
        os.link(tmp, path)
    except OSError as exc:
        os.unlink(tmp)
        if isinstance(exc, FileExistsError):
            raise StorageError(f"{path}: already exists; a new file is never written over one") from exc
        raise StorageError(f"{path}: cannot create: {exc.strerror or exc}") from exc
    os.unlink(tmp)
    _fsync_dir(directory, ops, path)


def replace_file(
    path: str, magic: bytes, records: Iterable[Any], *, ops: FileOps = REAL_FILE_OPS, backup_path: str | None = None
) -> None:
    """Atomically replace ``path`` with a file holding ``records``: write new, fsync, rename, fsync dir.

    When ``backup_path`` is given the previous file is kept there (hard link, swapped in atomically first).
    Raises :class:`StorageError`; when it does after the rename, ``path`` already holds the new file.
    """
    directory = os.path.dirname(os.path.abspath(path))
    tmp = _write_temp(path, magic, records, ops)
    try:
        if backup_path is not None and os.path.exists(path):
            link_tmp = backup_path + ".new"
            if os.path.lexists(link_tmp):
                os.unlink(link_tmp)
            os.link(path, link_tmp)
            os.replace(link_tmp, backup_path)
        os.replace(tmp, path)
    except OSError as exc:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise StorageError(f"{path}: cannot replace: {exc.strerror or exc}") from exc
    _fsync_dir(directory, ops, path)
