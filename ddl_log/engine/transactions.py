"""DDL transactions on the engine (issue 39): ``with ddl.transaction():`` and the SQL scripts' ``START TRANSACTION``
... ``COMMIT`` / ``ROLLBACK``, on :class:`replace_table.transaction.Transaction` (one XID, one binlog write, one
commit point for every statement inside).

What the engine adds: which statements may be inside (:attr:`Statement.transactional`: the table-building ones,
RENAME, DROP TABLE, views; any other is refused by name), the rule that a transaction changes each object once
(:class:`TransactionConflictError`) and reads nothing it changed before COMMIT publishes it
(:mod:`ddl_log.engine.transaction_reads`), the metadata locks held until the transaction ends (a script's all taken up
front in one sorted order, so two scripts never wait on each other in a cycle; a Python block's as its statements
arrive, each wait bounded by the lock wait setting), the log's ownership of its chains for the whole transaction (a
``recover()`` beside it leaves them alone), and PostgreSQL's rule at an error: the whole transaction rolls back, and
later statements are refused until it is ended.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterable
from contextlib import AbstractContextManager, ExitStack
from typing import NoReturn, Protocol

from actions.context import ActionContext
from actions.errors import (
    CommittedWithPendingWorkWarning,
    NotTransactionalError,
    TransactionConflictError,
    TransactionStateError,
    UnpublishedReadError,
)
from actions.results import StatementResult
from chains.lock_keys import LockKeys
from ddl_log.cluster.locks import MetadataLocks
from ddl_log.cluster.takeover import Takeover, check_objects
from ddl_log.engine.transaction_reads import unpublished_read
from ddl_log.engine.typed import Statement
from ddl_log.settings import Settings
from replace_table.transaction import Committed, Transaction
from storage import crashpoints
from storage.catalogs.ports import Catalog
from storage.errors import NotAtomicError


class ChainOwner(Protocol):
    def owning(self) -> AbstractContextManager[None]:
        """The chains this thread creates belong to a running statement (:meth:`chains.log.DDLLog.owning`)."""


class DDLEngine(Protocol):
    """What a transaction needs of its engine (:class:`ddl_log.engine.core.DDLEngine`)."""

    @property
    def log(self) -> ChainOwner: ...

    @property
    def locks(self) -> MetadataLocks: ...

    @property
    def takeover(self) -> Takeover | None: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def transactions(self) -> Transactions: ...

    @property
    def catalog(self) -> Catalog: ...

    def context(self) -> ActionContext: ...

    def run_due_deletions(self) -> object: ...


ALLOWED = ("only CREATE [OR REPLACE] TABLE, CTAS, INSERT OVERWRITE, TRUNCATE, RENAME TABLE, ALTER TABLE SWAP WITH, "
           "DROP TABLE and views can be")
"""What a refused statement's error says may be inside a transaction (:attr:`Statement.transactional`)."""


class EngineTransaction:
    """An open transaction of ``engine`` on this thread; ``keys``: the locks of every statement it will run, taken
    now in one order (a script), or None (taken as statements arrive)."""

    def __init__(self, engine: DDLEngine, keys: LockKeys | None = None, *, publish_to_read: bool = False) -> None:
        self.engine = engine
        self.stack = ExitStack()
        self.upfront = keys is not None
        self.publish_to_read = publish_to_read
        """A statement reading what an earlier one changed publishes the transaction's built statements first, where
        it would be refused (:class:`UnpublishedReadError`): a replica applying a group of an earlier source."""
        self.results: list[StatementResult] = []
        self.committed: Committed | None = None
        """What COMMIT did (its events, its publish window), once it did."""
        try:
            engine.catalog.names.check_current_catalog()
            self.stack.enter_context(engine.log.owning())
            if keys is not None:
                self.stack.enter_context(engine.locks.hold(keys.exclusive, shared=keys.shared))
                check_objects(engine.takeover, list(keys.exclusive))
            self.transaction = Transaction(engine.context())
        except BaseException:
            self.stack.close()
            raise

    @property
    def state(self) -> str:
        return self.transaction.state

    def run(self, statement: Statement) -> StatementResult:
        """Run ``statement`` inside the transaction (prepared; COMMIT publishes it). An error rolls the whole
        transaction back and is raised."""
        transaction = self.transaction
        transaction.check_open(statement.label or type(statement).__name__)
        label = statement.label or type(statement).__name__
        if not statement.transactional:
            transaction.abort(NotTransactionalError(label, ALLOWED))
        keys = statement.lock_keys()
        changes = statement.changed_keys()
        again = next((key for key in changes if key in transaction.changed), None)
        if again is not None:
            transaction.abort(TransactionConflictError(label, key_text(again)))
        try:
            if not self.upfront:
                self.stack.enter_context(self.engine.locks.hold(keys.exclusive, shared=keys.shared,
                                                                wait=self.engine.settings.lock_wait_seconds))
                check_objects(self.engine.takeover, list(keys.exclusive))
            read = unpublished_read(statement, transaction.changed, self.engine.catalog)
            if read is not None:
                if not self.publish_to_read:
                    raise UnpublishedReadError(label, str(read[0]), read[1])
                transaction.publish_built()
            ctx = self.engine.context()
            ctx.transaction = transaction
            result = statement.run(ctx)
        except NotAtomicError as exc:  # a form only Spark's own statement runs: it cannot be inside, nor run beside
            refusal = NotTransactionalError(label, f"it cannot be made atomic: {exc}")
            if transaction.state == "open":
                transaction.abort(refusal)
            raise refusal from exc
        except Exception as exc:  # PostgreSQL's rule: the whole transaction rolls back
            if transaction.state == "open":
                transaction.abort(exc)
            raise
        transaction.changed.update(dict.fromkeys(changes, label))
        self.results.append(result)
        return result

    def refuse(self, what: str, error: BaseException) -> NoReturn:
        """A statement the front end refused before it ran (``what`` names it): as for a failing one, the whole
        transaction rolls back and ``error`` is raised (:class:`TransactionAbortedError` if it was rolled back)."""
        self.transaction.check_open(what)
        self.transaction.abort(error)

    def commit(self) -> Committed:
        """COMMIT: every statement published at one commit point (then the locks let go)."""
        try:
            committed = self.transaction.commit()
        except BaseException as error:
            self.end(crashed=isinstance(error, crashpoints.SimulatedCrash))
            raise
        self.committed = committed
        self.end()
        for pending in committed.retire_errors:  # committed: recovery (the next open, recover()) finishes it
            warnings.warn(CommittedWithPendingWorkWarning(f"the transaction committed; {pending}: recovery finishes "
                                                          "it"), stacklevel=3)
        return committed

    def rollback(self) -> None:
        """ROLLBACK: every statement undone (an aborted transaction: already undone; this ends it)."""
        try:
            self.transaction.rollback()
        except BaseException as error:
            self.end(crashed=isinstance(error, crashpoints.SimulatedCrash))
            raise
        self.end()

    def end(self, *, crashed: bool = False) -> None:
        """Let go of the locks and the chains' ownership; the engine's transaction is over. ``crashed``: a simulated
        crash (the process "died": nothing more runs)."""
        self.engine.transactions.ended(self)
        self.stack.close()
        if not crashed:
            self.engine.run_due_deletions()


class Transactions:
    """The engine's open transaction of each thread (transactions do not nest; another thread's statements run on
    their own, waiting for the transaction's locks)."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._guard = threading.Lock()
        self._open: set[EngineTransaction] = set()

    @property
    def current(self) -> EngineTransaction | None:
        current: EngineTransaction | None = getattr(self._local, "open", None)
        return current

    @property
    def any_open(self) -> bool:
        """Whether a transaction is open on any thread: a statement then waits for a lock at most the settings'
        ``lock_wait_seconds`` (a transaction holds its locks until it ends, and its own thread may be waiting on
        the statement: a ``spark.sql`` call on an attached session inside a ``with ddl.transaction():`` block)."""
        return bool(self._open)

    def begin(self, engine: DDLEngine, keys: LockKeys | None = None, *,
              publish_to_read: bool = False) -> EngineTransaction:
        if self.current is not None:
            raise TransactionStateError("START TRANSACTION", "a transaction is open already (transactions do not "
                                        "nest); COMMIT or ROLLBACK it first")
        transaction = EngineTransaction(engine, keys, publish_to_read=publish_to_read)
        self._local.open = transaction
        with self._guard:
            self._open.add(transaction)
        return transaction

    def ended(self, transaction: EngineTransaction) -> None:
        with self._guard:
            self._open.discard(transaction)
        if self.current is transaction:
            self._local.open = None


def key_text(key: str) -> str:
    """A lock key as the object it names (``db.name``)."""
    return key.replace("\x00", ".")


def union_keys(statements: Iterable[Statement]) -> LockKeys:
    """Every lock of ``statements`` (a key both shared and exclusive: exclusive)."""
    exclusive: dict[str, None] = {}
    shared: dict[str, None] = {}
    for statement in statements:
        keys = statement.lock_keys()
        exclusive.update(dict.fromkeys(keys.exclusive))
        shared.update(dict.fromkeys(keys.shared))
    return LockKeys(tuple(exclusive), tuple(key for key in shared if key not in exclusive))


def closing(transaction: EngineTransaction, error: BaseException | None) -> None:
    """End a ``with`` block's transaction: COMMIT when it ended normally; else ROLLBACK (a simulated crash: nothing,
    as a killed process does nothing; recovery decides)."""
    if error is None:
        transaction.commit()
    elif isinstance(error, crashpoints.SimulatedCrash):
        transaction.end(crashed=True)
    elif transaction.state in ("open", "aborted"):
        transaction.rollback()
    else:
        transaction.end()
