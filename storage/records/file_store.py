"""The file record store, the embedded default: one directory, one record file per stream.

Streams are files named after them; the directory is created (0700, owner checked by the files themselves) on
the first write, so reading a store that was never written creates nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from storage.errors import StorageError
from storage.records.fileops import REAL_FILE_OPS, FileOps
from storage.records.files import RecordFile, create_file, read_records, replace_file
from storage.records.store import Records

DIRECTORY_MODE = 0o700


class FileRecordStore:
    """A :class:`~storage.records.store.RecordStore` on a directory of record files."""

    def __init__(self, directory: str, *, ops: FileOps = REAL_FILE_OPS) -> None:
        self.directory = directory
        self.ops = ops

    @property
    def location(self) -> str:
        return self.directory

    def location_of(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def names(self) -> list[str]:
        if not os.path.isdir(self.directory):
            return []
        return [name for name in os.listdir(self.directory) if not name.endswith(".new")]

    def exists(self, name: str) -> bool:
        return os.path.lexists(self.location_of(name))

    def open(self, name: str, magic: bytes) -> tuple[RecordFile, Records]:
        self._ensure_directory()
        return RecordFile.open(self.location_of(name), magic, ops=self.ops)

    def read(self, name: str, magic: bytes, start: int | None = None) -> tuple[Records, int, int]:
        if start is None:
            return read_records(self.location_of(name), magic)
        return read_records(self.location_of(name), magic, start)

    def create(self, name: str, magic: bytes, records: Iterable[Any] = (), *,
               before_publish: Callable[[], None] | None = None) -> None:
        self._ensure_directory()
        create_file(self.location_of(name), magic, records, ops=self.ops, before_publish=before_publish)

    def replace(self, name: str, magic: bytes, records: Iterable[Any], *, keep_previous_as: str | None = None) -> None:
        self._ensure_directory()
        backup = None if keep_previous_as is None else self.location_of(keep_previous_as)
        replace_file(self.location_of(name), magic, records, ops=self.ops, backup_path=backup)

    def remove(self, name: str) -> None:
        path = self.location_of(name)
        os.unlink(path)
        try:
            self.ops.fsync_dir(self.directory)
        except OSError as exc:
            raise StorageError(f"{path}: removed, but the directory could not be fsynced: {exc}") from exc

    def _ensure_directory(self) -> None:
        os.makedirs(self.directory, mode=DIRECTORY_MODE, exist_ok=True)
