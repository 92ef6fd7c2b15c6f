"""The DDL log home: one private directory holding log, binlog, and (embedded default) metastore and warehouse;
or a PostgreSQL database URL naming a home id (:mod:`storage.records.pg_home`), where many drivers keep their logs.

Opening it takes an exclusive lock so two processes never interleave writes to one log; it refuses a home that
is a symlink or belongs to another user. A home gives the record stores of its log and its binlog.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from typing import Protocol

import attrs

from storage.errors import HomeLockedError, InvalidHomeError, StorageError, UnsafePathError
from storage.records.file_store import FileRecordStore
from storage.records.fileops import REAL_FILE_OPS, FileOps
from storage.records.home_places import local_home_path
from storage.records.store import RecordStore

DEFAULT_HOME = "./ddl_home"
HOME_ENV = "DDL_LOG_HOME"
LOCK_FILE = "home.lock"
LOG_DIR = "ddl_log"
BINLOG_DIR = "binlog"
DATABASE_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(location: object) -> bool:
    """Whether a home location names a database (psycopg is imported only for those)."""
    return isinstance(location, str) and location.startswith(DATABASE_SCHEMES)


class AnyHome(Protocol):
    """What the DDL log needs of a home, wherever it is."""

    @property
    def location(self) -> str:
        """Where the home is, for messages (a path, or a database URL with the home id, no password)."""

    def log_store(self, ops: FileOps = REAL_FILE_OPS) -> RecordStore: ...

    def binlog_store(self, ops: FileOps = REAL_FILE_OPS) -> RecordStore: ...

    def spark_directory(self) -> str:
        """The directory of the embedded Spark session and metastore (raises for a database home)."""

    def release(self) -> None: ...


def open_home(location: str | os.PathLike[str] | None = None, *, home_id: str | None = None,
              wait_seconds: float = 0.0, lease_seconds: float | None = None) -> AnyHome:
    """Open and lock the home at ``location``: a directory (default :func:`default_home`), or a database URL
    ``postgresql://.../db?home=ID`` (``home_id`` may name the id instead; a directory has none). ``lease_seconds``:
    a database home's lease (default 30 s); a directory's lock needs none."""
    resolved = default_home() if location is None else os.fspath(location)
    if is_database_url(resolved):
        from storage.records.pg_home import DatabaseHome

        lease = {} if lease_seconds is None else {"lease_seconds": lease_seconds}
        return DatabaseHome.open(resolved, home_id=home_id, wait_seconds=wait_seconds, **lease)
    if home_id is not None:
        raise InvalidHomeError(resolved, "a home id names a log in a database; a directory home has none")
    return Home.open(resolved, wait_seconds=wait_seconds)


def home_stores(location: str) -> tuple[RecordStore, RecordStore]:
    """The log and binlog stores of a home, read without its lock (``ddl-log status``, ``dump``, ``binlog``)."""
    if is_database_url(location):
        from storage.records.pg_home import read_only_stores

        return read_only_stores(location)
    path = local_home_path(location)
    return FileRecordStore(os.path.join(path, LOG_DIR)), FileRecordStore(os.path.join(path, BINLOG_DIR))


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

    @property
    def location(self) -> str:
        return self.path

    def log_store(self, ops: FileOps = REAL_FILE_OPS) -> FileRecordStore:
        return FileRecordStore(self.log_dir, ops=ops)

    def binlog_store(self, ops: FileOps = REAL_FILE_OPS) -> FileRecordStore:
        return FileRecordStore(os.path.join(self.path, BINLOG_DIR), ops=ops)

    def spark_directory(self) -> str:
        return self.path

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, wait_seconds: float = 0.0) -> Home:
        """Prepare and lock the home; waits up to ``wait_seconds`` for another process to let go. A place that
        cannot fsync the log is refused first (:mod:`storage.records.home_places`), nothing created."""
        resolved = local_home_path(os.fspath(path) if path is not None else default_home())
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
