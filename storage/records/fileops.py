"""The thin file layer under every durable write, replaceable so tests can inject I/O errors and full disks."""

from __future__ import annotations

import os


class FileOps:
    """Real POSIX calls. Subclass and override to simulate a failing disk."""

    def write(self, fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def fsync_dir(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def truncate(self, fd: int, size: int) -> None:
        os.ftruncate(fd, size)


REAL_FILE_OPS = FileOps()
