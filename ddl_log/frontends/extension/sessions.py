"""The sessions of an attached Spark, each with what runs its statements: the one engine of the home, this
session's Spark (current catalog and database, SQL settings, temporary views) and a catalog on it. A context carries
several sessions (``spark.newSession()``; a Thrift or Connect server makes one per client)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from actions.errors import TransactionStateError
from actions.results import StatementResult
from chains.binlog import BinlogEvent
from ddl_log.cluster.driver_session import close_catalog
from ddl_log.engine.transactions import EngineTransaction
from ddl_log.engine.typed import Statement
from ddl_log.frontends.extension.attached_engine import AttachedEngine
from ddl_log.frontends.extension.jvm_handles import python_session
from storage.catalogs.ports import Catalog

KEPT_SESSIONS = 64
"""Sessions whose catalog is kept between statements; beyond, the least recently used idle one is closed (its
metastore client) and made again on its next statement."""


class SessionRunner:
    """What runs one session's statements (:class:`~ddl_log.frontends.sql.execute.StatementRunner`): the engine,
    on this session's Spark and catalog (None: the attaching session's, the engine's own)."""

    def __init__(self, engine: AttachedEngine, spark: Any, catalog: Catalog | None) -> None:
        self.engine = engine
        self._spark = spark
        self.catalog = catalog
        self.busy = 0

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
        with self.engine.on_session(self.catalog):
            return self.engine.run(statement)

    def binlog_events(self) -> list[BinlogEvent]:
        return self.engine.binlog_events()

    @property
    def home_origin(self) -> str:
        return self.engine.home_origin

    def begin_transaction(self, statements: Iterable[Statement] = ()) -> EngineTransaction:
        """Refused: an attached session's statements arrive one by one from Spark, which has no transaction
        statements (docs/transactions.md, limits)."""
        raise TransactionStateError("START TRANSACTION", "DDL transactions are not available on an attached session "
                                    "(run the script with ddl-log sql, or use ddl.transaction() in Python)")


class SessionTable:
    """One :class:`SessionRunner` per JVM session (by its id), made on the session's first statement."""

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
            return SessionRunner(self._engine, self._owner, None)
        from storage.catalogs.spark.catalog import spark_catalog

        spark = python_session(self._owner, jsession)
        return SessionRunner(self._engine, spark, spark_catalog(spark))

    def _evict(self) -> None:
        idle = [key for key, runner in self._runners.items() if not runner.busy and key != self._owner_id]
        while len(self._runners) > KEPT_SESSIONS and idle:
            close_catalog(self._runners.pop(idle.pop(0)).catalog)

    def close(self) -> None:
        with self._lock:
            while self._runners:
                close_catalog(self._runners.popitem()[1].catalog)
