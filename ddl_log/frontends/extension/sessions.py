"""The sessions of an attached Spark, each with what runs its statements: the one engine of the home, this
session's Spark (current catalog and database, SQL settings, temporary views) and a catalog on it. A context carries
several sessions (``spark.newSession()``; a Thrift or Connect server makes one per client)."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from actions.errors import TransactionStateError
from actions.results import StatementResult
from chains.binlog import BinlogEvent
from ddl_log.cluster.driver_session import close_catalog
from ddl_log.engine.transactions import EngineTransaction
from ddl_log.engine.typed import Statement
from ddl_log.frontends.extension.attached_engine import AttachedEngine
from ddl_log.frontends.extension.jvm_handles import python_session
from ddl_log.frontends.extension.session_transactions import SessionTransaction
from ddl_log.frontends.sql import PlannedStatement, SqlResult
from ddl_log.frontends.sql.execute import run_planned
from replace_table.transaction import Committed
from storage.catalogs.ports import Catalog

KEPT_SESSIONS = 64
"""Sessions whose catalog is kept between statements; beyond, the least recently used idle one is closed (its
metastore client) and made again on its next statement."""


class SessionRunner:
    """What runs one session's statements (:class:`~ddl_log.frontends.sql.execute.StatementRunner`): the engine,
    on this session's Spark and catalog (None: the attaching session's, the engine's own), and the session's open
    DDL transaction (:attr:`transaction`), whose thread then runs them."""

    def __init__(self, engine: AttachedEngine, spark: Any, catalog: Catalog | None, session_id: str = "") -> None:
        self.engine = engine
        self._spark = spark
        self.catalog = catalog
        self.session_id = session_id
        self.busy = 0
        self.transaction: SessionTransaction | None = None
        self._control = threading.Lock()

    @property
    def spark(self) -> Any:
        return self._spark

    @property
    def spark_started(self) -> bool:
        return True

    @property
    def uses_custom_catalog(self) -> bool:
        return False

    def run(self, statement: Statement) -> StatementResult:
        transaction = self.transaction
        if transaction is not None:
            return transaction.run(statement)
        with self.engine.on_session(self.catalog):
            return self.engine.run(statement)

    def run_planned(self, plan: PlannedStatement, statement: Statement) -> SqlResult:
        """A routed statement: inside the session's transaction never Spark's own instead (a form the log cannot
        make atomic rolls the transaction back, ``allowNonAtomic`` or not)."""
        if self.transaction is None:
            return run_planned(self, plan, statement)
        return SqlResult(plan.text, "ddl", self.run(statement))

    def refuse(self, what: str, error: BaseException) -> NoReturn:
        """Raise a refusal of a statement; inside the session's transaction it rolls the transaction back first."""
        transaction = self.transaction
        if transaction is not None:
            transaction.refuse(what, error)
        raise error

    def control(self, label: str) -> Committed | None:
        """START TRANSACTION, COMMIT or ROLLBACK of this session (``label``: the front end's). Out of place (a
        nested START, an end with none open): :class:`TransactionStateError`, nothing run."""
        with self._control:
            ending = self.transaction
            if label == "START TRANSACTION":
                if ending is not None:
                    raise TransactionStateError(label, "a transaction is open already on this session "
                                                "(transactions do not nest); COMMIT or ROLLBACK it first")
                self.transaction = SessionTransaction(self.engine, self.catalog, self.session_id)
                return None
            if ending is None:
                raise TransactionStateError(label, "no transaction is open on this session (START TRANSACTION "
                                            "first); nothing was run")
            self.transaction = None
        if label == "COMMIT":
            return ending.commit()
        ending.rollback()
        return None

    def lost(self, *, wait: bool = True, then: Callable[[], None] | None = None) -> None:
        """The session is gone (its client disconnected, the engine closes): its open transaction rolled back,
        then ``then()`` (on the transaction's thread when there is one; ``wait`` False: not waited for)."""
        with self._control:
            ending, self.transaction = self.transaction, None
        if ending is None:
            if then is not None:
                then()
            return
        ending.rollback(wait=wait, then=then)

    def binlog_events(self) -> list[BinlogEvent]:
        return self.engine.binlog_events()

    @property
    def home_origin(self) -> str:
        return self.engine.home_origin

    def begin_transaction(self, statements: Iterable[Statement] = (), *,
                          publish_to_read: bool = False) -> EngineTransaction:
        """Refused: a script of several statements in one ``spark.sql`` call is Spark's to refuse; a session's
        transaction is opened by ``spark.sql("START TRANSACTION")`` (:meth:`control`)."""
        raise TransactionStateError("START TRANSACTION", "a transaction on an attached session is opened by its "
                                    "own statement (spark.sql('START TRANSACTION')), one statement per call")


class SessionTable:
    """One :class:`SessionRunner` per JVM session (by its id), made on the session's first statement; a session
    with an open transaction is kept until it ends (or the session is gone: :meth:`closed`)."""

    def __init__(self, engine: AttachedEngine, owner: Any, owner_id: str) -> None:
        self._engine = engine
        self._owner = owner
        self._owner_id = owner_id
        self._lock = threading.Lock()
        self._runners: OrderedDict[str, SessionRunner] = OrderedDict()

    @contextmanager
    def runner(self, session_id: str, jsession: Any) -> Iterator[SessionRunner]:
        """The runner of the session ``session_id`` (``jsession`` its JVM object), held for the block."""
        with self._lock:
            found = self._runners.get(session_id)
            if found is None:
                found = self._make(session_id, jsession)
                self._runners[session_id] = found
                self._evict()
            self._runners.move_to_end(session_id)
            found.busy += 1
        try:
            yield found
        finally:
            with self._lock:
                found.busy -= 1

    def spark_of(self, session_id: str) -> Any:
        """The Python session of ``session_id`` if it has issued a statement (else None)."""
        with self._lock:
            found = self._runners.get(session_id)
            return None if found is None else found.spark

    def _make(self, session_id: str, jsession: Any) -> SessionRunner:
        if session_id == self._owner_id:
            return SessionRunner(self._engine, self._owner, None, session_id)
        from storage.catalogs.spark.catalog import spark_catalog

        spark = python_session(self._owner, jsession)
        return SessionRunner(self._engine, spark, spark_catalog(spark), session_id)

    def _evict(self) -> None:
        idle = [key for key, runner in self._runners.items()
                if not runner.busy and runner.transaction is None and key != self._owner_id]
        while len(self._runners) > KEPT_SESSIONS and idle:
            close_catalog(self._runners.pop(idle.pop(0)).catalog)

    def closed(self, session_id: str) -> None:
        """The session ``session_id`` is gone (a Thrift server's client disconnected): its open transaction rolled
        back (not waited for: a statement of it may still be running), its catalog closed after."""
        with self._lock:
            found = self._runners.pop(session_id, None) if session_id != self._owner_id else None
        if found is not None:
            catalog = found.catalog
            found.lost(wait=False, then=None if found.busy else functools.partial(close_catalog, catalog))

    def close(self) -> None:
        """The engine closes: every session's open transaction rolled back (waited for), every catalog closed."""
        with self._lock:
            runners = list(self._runners.values())
            self._runners.clear()
        for runner in runners:
            with contextlib.suppress(Exception):  # a rollback that failed stays logged: recovery finishes it
                runner.lost(then=functools.partial(close_catalog, runner.catalog))
