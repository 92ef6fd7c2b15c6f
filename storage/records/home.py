"""The DDL log home: one private directory holding log, binlog, and (embedded default) metastore and warehouse.

Opening it takes an exclusive lock so two processes never interleave writes to one log; it refuses a home that
is a symlink or belongs to another user.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

import attrs

from storage.errors import HomeLockedError, StorageError, UnsafePathError

DEFAULT_HOME = "./ddl_home"
HOME_ENV = "DDL_LOG_HOME"
LOCK_FILE = "home.lock"
LOG_DIR = "ddl_log"


def default_home() -> str:
    return os.environ.get(HOME_ENV) or DEFAULT_HOME


def check_private_dir(path: str) -> None:
    """Create ``path`` 0700 if missing; refuse a symlink or a directory owned by someone else."""
    if os.path.islink(path):
        raise UnsafePathError(path, "is a symlink; refusing to use it as a DDL log directory")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"{path}: cannot create: {exc.strerror}") from exc
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePathError(path, "is not a directory")
    if info.st_uid != os.getuid():
        raise UnsafePathError(path, f"is owned by uid {info.st_uid}, not by this user")


@attrs.define
class Home:
    path: str
    lock_fd: int = -1

    @property
    def log_dir(self) -> str:
        return os.path.join(self.path, LOG_DIR)

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, wait_seconds: float = 0.0) -> Home:
        """Prepare and lock the home; waits up to ``wait_seconds`` for another process to let go."""
        resolved = os.path.abspath(os.fspath(path) if path is not None else default_home())
        check_private_dir(resolved)
        check_private_dir(os.path.join(resolved, LOG_DIR))
        lock_path = os.path.join(resolved, LOCK_FILE)
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            if os.path.islink(lock_path):
                raise UnsafePathError(lock_path, "is a symlink") from exc
            raise StorageError(f"{lock_path}: cannot open: {exc.strerror}") from exc
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or time.monotonic() >= deadline:
                    os.close(fd)
                    raise HomeLockedError(resolved) from exc
                time.sleep(0.05)
        return cls(resolved, fd)

    def release(self) -> None:
        if self.lock_fd >= 0:
            os.close(self.lock_fd)  # closing the descriptor drops the flock
            self.lock_fd = -1
