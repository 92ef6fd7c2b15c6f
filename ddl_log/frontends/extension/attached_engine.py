"""The engine of a home attached to this driver's Spark (:class:`AttachedEngine`): :class:`~ddl_log.AtomicDDL`,
whose statements run on the catalog of the session that issued them, and whose own Spark statements run as Spark
runs them (never routed back into the engine)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from actions.recovery import ChainOutcome, RecoveryReport
from actions.results import StatementResult
from ddl_log.cluster.takeover import TakeoverReport
from ddl_log.engine.typed import Statement
from ddl_log.frontends.extension.jvm_handles import Handles
from ddl_log.frontends.python import AtomicDDL
from ddl_log.frontends.sql import SqlResult
from ddl_log.settings import Settings
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog

ENGINE_THREADS = "ddl-log-"
"""The engine's own background threads (takeover of dead drivers' homes) are named so: their statements are the
engine's, whatever entry point they came through."""


class AttachedEngine(AtomicDDL):
    """A home's engine serving the sessions of an attached Spark. Its Spark statements are marked as the engine's in
    the JVM on the thread that runs them (:meth:`internal`): the extension lets them through as Spark runs them. A
    statement of a session runs with that session's catalog (:meth:`on_session`): its current database, its
    settings and temporary views are the ones Spark would use."""

    def __init__(self, spark: Any, home: str | os.PathLike[str], *, handles: Handles, settings: Settings) -> None:
        self._handles = handles
        self._scope = threading.local()
        self._closing: list[Callable[[], None]] = []
        super().__init__(spark=spark, home=home, settings=settings)

    @property
    def handles(self) -> Handles:
        """The JVM handles of the attached Spark."""
        return self._handles

    # ------------------------------------------------------------------ scopes

    @property
    def catalog(self) -> Catalog:
        scoped = getattr(self._scope, "catalog", None)
        if scoped is not None:
            return scoped  # type: ignore[no-any-return]
        if threading.current_thread().name.startswith(ENGINE_THREADS) and not getattr(self._scope, "marked", False):
            self._handles.bridge.enterInternal()  # the thread is the engine's for good
            self._scope.marked = True
        return super().catalog

    @contextmanager
    def on_session(self, catalog: Catalog | None) -> Iterator[None]:
        """Statements of this thread run on ``catalog`` (None: the attaching session's) inside the block."""
        previous = getattr(self._scope, "catalog", None)
        self._scope.catalog = catalog
        try:
            yield
        finally:
            self._scope.catalog = previous

    @contextmanager
    def internal(self, *, marked_in_jvm: bool = False) -> Iterator[None]:
        """The thread works for the engine inside the block: its statements run as Spark runs them. The JVM is told
        once per outermost block (``marked_in_jvm``: it knows already, the block is a callback from it)."""
        depth = getattr(self._scope, "depth", 0)
        tell = depth == 0 and not marked_in_jvm
        if tell:
            self._handles.bridge.enterInternal()
        self._scope.depth = depth + 1
        try:
            yield
        finally:
            self._scope.depth = depth
            if tell:
                self._handles.bridge.exitInternal()

    def on_close(self, action: Callable[[], None]) -> None:
        """Run ``action`` when the engine closes (the attachment lets go of the JVM first)."""
        self._closing.append(action)

    # ------------------------------------------------------------------ every way into the engine, marked

    def run(self, statement: Statement) -> StatementResult:
        with self.internal():
            return super().run(statement)

    def recover(self, *, retry_abandoned: bool = False) -> RecoveryReport:
        with self.internal():
            return super().recover(retry_abandoned=retry_abandoned)

    def sql(self, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
        with self.internal():
            return super().sql(text, allow_non_atomic=allow_non_atomic)

    def statements_of(self, text: str) -> list[Statement]:
        with self.internal():
            return super().statements_of(text)

    def run_due_deletions(self, dropped: Iterable[TableName] = ()) -> list[ChainOutcome]:
        with self.internal():
            return super().run_due_deletions(dropped)

    def take_over_dead(self) -> TakeoverReport:
        with self.internal():
            return super().take_over_dead()

    def close(self) -> None:
        while self._closing:
            self._closing.pop()()
        super().close()
