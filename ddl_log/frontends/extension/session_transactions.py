"""The DDL transaction of one session of an attached Spark (``spark.sql("START TRANSACTION")`` ... ``COMMIT`` /
``ROLLBACK``): a ``with ddl.transaction():`` block whose statements arrive one ``spark.sql`` call at a time.

The transaction belongs to the JVM session, not to a thread: a Thrift server runs one connection's statements on
whichever of its threads is free, while the engine's transaction state (its metadata locks, the log's ownership of
its chains, the engine's open transaction) is per thread. So each open transaction has a Python thread of its own
(:class:`SessionTransaction`) on which it begins, runs every statement of the session and ends; the thread that
asked waits for it. Two sessions' transactions are two threads, each holding its own locks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, TypeVar

from actions.results import StatementResult
from ddl_log.engine.transactions import EngineTransaction
from ddl_log.engine.typed import Statement
from ddl_log.frontends.extension.attached_engine import AttachedEngine
from replace_table.transaction import Committed
from storage.catalogs.ports import Catalog

T = TypeVar("T")


class _Job:
    """One call for the transaction's thread, and its outcome for the caller (who may not wait: a lost session's
    rollback)."""

    def __init__(self, call: Callable[[], Any], *, last: bool = False) -> None:
        self.call = call
        self.last = last
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.call()
        except BaseException as error:  # noqa: BLE001 - raised again on the caller's thread
            self.error = error
        self.done.set()

    def outcome(self) -> Any:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


class SessionTransaction:
    """An open transaction of one session: begun on a thread of its own (named for the engine, ``ddl-log-``: its
    Spark statements are the engine's), which runs the session's statements until COMMIT or ROLLBACK. The
    statements run on ``catalog`` (the session's; None: the attaching session's)."""

    def __init__(self, engine: AttachedEngine, catalog: Catalog | None, session_id: str) -> None:
        self.engine = engine
        self._jobs: SimpleQueue[_Job] = SimpleQueue()
        self._begun = _Job(lambda: engine.transactions.begin(engine))
        self._thread = threading.Thread(target=self._serve, args=(catalog,), daemon=True,
                                        name=f"ddl-log-transaction-{session_id[:12]}")
        self._thread.start()
        self.transaction: EngineTransaction = self._begun.outcome()

    def _serve(self, catalog: Catalog | None) -> None:
        """The thread: begin (a failure ends it, raised at START), then run jobs until the last one."""
        engine = self.engine
        with engine.internal(), engine.on_session(catalog):
            self._begun.run()
            if self._begun.error is not None:
                return
            while True:
                job = self._jobs.get()
                job.run()
                if job.last:
                    return

    def _call(self, call: Callable[[], T], *, last: bool = False, wait: bool = True) -> T:
        job = _Job(call, last=last)
        self._jobs.put(job)
        return job.outcome() if wait else None  # type: ignore[return-value]

    @property
    def state(self) -> str:
        return self.transaction.state

    def run(self, statement: Statement) -> StatementResult:
        """A statement of the session, joining the transaction (on its thread, the engine's open transaction)."""
        return self._call(lambda: self.engine.run(statement))

    def refuse(self, what: str, error: BaseException) -> None:
        """A statement refused before it ran: the transaction rolled back, ``error`` raised."""
        self._call(lambda: self.transaction.refuse(what, error))

    def commit(self) -> Committed:
        """COMMIT: the group commit; the transaction ends either way (an aborted one: TransactionAbortedError)."""
        return self._call(self.transaction.commit, last=True)

    def rollback(self, *, wait: bool = True, then: Callable[[], None] | None = None) -> None:
        """ROLLBACK: every statement undone, the transaction ended, then ``then()`` on its thread (``wait`` False: a
        lost session's, left to run behind the statement the session may still be running)."""
        self._call(lambda: self._rollback(then), last=True, wait=wait)

    def _rollback(self, then: Callable[[], None] | None) -> None:
        try:
            if self.transaction.state in ("open", "aborted"):
                self.transaction.rollback()
            else:
                self.transaction.end()
        finally:
            if then is not None:
                then()
