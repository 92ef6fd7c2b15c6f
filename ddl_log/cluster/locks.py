"""Metadata locks: statements on overlapping names run one at a time within a process.

A statement locks every name it touches (tables, views, functions) exclusively and their databases shared (DROP
DATABASE takes its database exclusively), before it reads the catalog, in one global order (sorted keys), so two
statements can never wait on each other in a cycle. Locks are re-entrant per thread.

On a database home every driver of the catalog shares the locks (:mod:`storage.records.pg_locks`): after the
in-process lock of a key, a thread's outermost hold of it takes the cluster lock too (the same order everywhere, so
no cycle across processes either), released before the in-process one. A file home has one driver: in-process
locks are enough.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Protocol

from storage.errors import MetadataLockTimeoutError
from storage.records.home import AnyHome, Home

DEFAULT_LOCK_WAIT_SECONDS = 60.0
"""How long a statement waits for another driver's metadata lock before it fails (nothing written)."""


class ClusterLockBackend(Protocol):
    """Locks on key strings shared with other processes (:class:`storage.records.pg_locks.ClusterLocks`)."""

    def acquire(self, key: str, exclusive: bool) -> None: ...

    def release(self, key: str, exclusive: bool) -> None: ...


class SharedExclusiveLock:
    """Many shared holders or one exclusive holder; the exclusive holder may re-enter in either mode."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._owner: int | None = None
        self._depth = 0

    def acquire(self, exclusive: bool, wait: float | None = None) -> bool:
        """Wait for the lock (at most ``wait`` seconds when given, then :class:`TimeoutError`); False when this
        thread already held it exclusively (a re-entry, not a new hold)."""
        me = threading.get_ident()
        deadline = None if wait is None else time.monotonic() + wait
        with self._cond:
            if self._owner == me:
                self._depth += 1
                return False
            while self._owner is not None or (exclusive and self._shared):
                if deadline is None:
                    self._cond.wait()
                elif not self._cond.wait(max(0.0, deadline - time.monotonic())) and time.monotonic() >= deadline:
                    raise TimeoutError(wait)
            if exclusive:
                self._owner, self._depth = me, 1
            else:
                self._shared += 1
            return True

    def release(self, exclusive: bool) -> None:
        me = threading.get_ident()
        with self._cond:
            if self._owner == me:
                self._depth -= 1
                if self._depth == 0:
                    self._owner = None
                    self._cond.notify_all()
                return
            self._shared -= 1
            if self._shared == 0:
                self._cond.notify_all()


class MetadataLocks:
    def __init__(self, cluster: ClusterLockBackend | None = None) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, SharedExclusiveLock] = {}
        self.cluster = cluster

    def _lock_for(self, key: str) -> SharedExclusiveLock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = SharedExclusiveLock()
            return lock

    @contextmanager
    def hold(self, exclusive: Iterable[str], shared: Iterable[str] = (), *,
             wait: float | None = None) -> Iterator[None]:
        """Hold ``exclusive`` keys exclusively and ``shared`` keys shared for the block, acquiring in sorted order.

        A key in both sets is taken exclusively. ``wait``: how long to wait for a lock of this process (a statement
        joining a transaction that holds locks already: taken as statements arrive, they are not in one order, so
        the wait is bounded) before :class:`MetadataLockTimeoutError`; None: as long as it takes.
        """
        modes = {key: False for key in shared}
        modes.update({key: True for key in exclusive})
        with ExitStack() as stack:
            for key in sorted(modes):
                lock = self._lock_for(key)
                try:
                    outermost = lock.acquire(modes[key], wait)
                except TimeoutError:
                    raise MetadataLockTimeoutError(key, "another statement or transaction of this process",
                                                   wait or 0.0) from None
                stack.callback(lock.release, modes[key])
                if outermost and self.cluster is not None:
                    self.cluster.acquire(key, modes[key])
                    stack.callback(self.cluster.release, key, modes[key])
            yield


def metadata_locks(home: AnyHome, wait_seconds: float = DEFAULT_LOCK_WAIT_SECONDS) -> MetadataLocks:
    """The metadata locks of a driver on ``home``: shared with every driver of the catalog on a database home."""
    if isinstance(home, Home):
        return MetadataLocks()
    from storage.records.pg_home import DatabaseHome  # a database home: psycopg is loaded already

    assert isinstance(home, DatabaseHome), type(home)
    return MetadataLocks(home.cluster_locks(wait_seconds))
