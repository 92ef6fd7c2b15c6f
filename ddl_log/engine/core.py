"""A home's statement engine (:class:`DDLEngine`): it opens the home's log and binlog, runs recovery first (as a
database server does at start), then runs typed statements (:mod:`ddl_log.engine.typed`) one path for all: the
current-catalog check, the metadata locks the statement names, the takeover check, the statement itself, and the
deletions that have come due. :class:`ddl_log.AtomicDDL` is this engine with the Python API's and SQL's ways in."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

import attrs

from actions.context import ActionContext
from actions.deletions import PendingDeletion, due_deletions, is_waiting, pending_deletions
from actions.errors import TransactionStateError
from actions.locking import chain_keys
from actions.recovery import ChainOutcome, RecoveryReport, recover, run_due_deletions
from actions.results import StatementResult
from chains.binlog import BinlogEvent, BinlogLike
from chains.catalog_binlog import home_binlog
from chains.entries import ActionEntry, ExecuteEntry
from chains.lock_keys import LockKeys
from chains.log import DDLLog
from ddl_log.cluster.driver_session import SessionChoice, close_catalog, driver_session
from ddl_log.cluster.locks import metadata_locks
from ddl_log.cluster.takeover import (
    TakeoverReport,
    check_objects,
    note_takeover,
    start_takeover,
    stop_takeover,
    take_over_dead,
)
from ddl_log.engine.release_name import explain_holds
from ddl_log.engine.transactions import EngineTransaction, Transactions, closing, union_keys
from ddl_log.engine.typed import Statement
from ddl_log.settings import Settings
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.records.fileops import REAL_FILE_OPS, FileOps
from storage.records.home import open_home


class WriteGate(Protocol):
    """What a home refuses by its role, decided when the home opens (and when its role changes), not per statement
    (a replica home: :class:`ddl_log.replication.promote.ReadOnlyReplica`)."""

    def check(self, statement: Statement) -> None:
        """Raise when the home refuses ``statement``; nothing has happened then."""


class DDLEngine:
    """Atomic, crash-safe DDL for one home (log, binlog and, by default, an embedded Spark + Derby metastore).

    ``spark``: a SparkSession (classic or Connect) to use; default: the embedded session under ``home``, or one on
    ``settings.metastore_uri``. ``catalog``: any :class:`Catalog` instead of Spark (unit tests of the log).
    ``settings``: every setting (:class:`~ddl_log.settings.Settings`: defaults, then ``DDL_LOG_*`` variables);
    ``keywords`` override single settings (``grace_seconds=600``, ``binlog=False`` ...).
    """

    write_gate: WriteGate | None
    """What the home refuses by its role (None: nothing); set by whoever gives the home a role."""

    def __init__(self, spark: Any = None, home: str | os.PathLike[str] | None = None, *,
                 settings: Settings | None = None, catalog: Catalog | None = None, file_ops: FileOps = REAL_FILE_OPS,
                 **keywords: Any) -> None:
        self.settings = (settings or Settings.from_env()).evolve(**keywords)
        s = self.settings
        self._session_choice = SessionChoice.of(spark, s.metastore_uri, s.warehouse, s.spark_master)
        self.home = open_home(home, wait_seconds=s.wait_seconds, lease_seconds=s.lease_seconds)
        try:
            self.log = DDLLog(self.home.log_store(file_ops), compact_bytes=s.compact_bytes)
            segment = {} if s.binlog_segment_bytes is None else {"segment_bytes": s.binlog_segment_bytes}
            self.binlog_file = home_binlog(self.home, self.log.allocate_id, file_ops, **segment)
            self.log.reserve_ids(self.binlog_file.max_xid + 1)
        except BaseException:
            self.home.release()
            raise
        self._spark = spark
        self._spark_given = spark is not None
        self._catalog = catalog
        self._owns_catalog = catalog is None
        self.locks = metadata_locks(self.home, s.lock_wait_seconds)
        self.transactions = Transactions()
        self.write_gate = None
        try:
            self.last_recovery = note_takeover(self.home, self.recover())
        except BaseException:
            self.close()  # a dying process lets go of its files and lock too
            raise
        self.takeover = start_takeover(self.home, lambda: self.catalog, self._lock_chain, s.binlog,
                                       s.takeover_interval, s.grace_seconds)

    # ------------------------------------------------------------------ parts

    @property
    def binlog_enabled(self) -> bool:
        return self.settings.binlog

    @property
    def grace_seconds(self) -> float:
        return self.settings.grace_seconds

    @property
    def binlog(self) -> BinlogLike | None:
        """The binlog statements write to; None when the binlog is off."""
        return self.binlog_file if self.settings.binlog else None

    @property
    def spark(self) -> Any:
        """The Spark session, started (or joined) on first use."""
        self._spark = self._spark if self._spark is not None else driver_session(self.home, self._session_choice)
        return self._spark

    @property
    def spark_started(self) -> bool:
        """Whether a Spark session is in use yet (a custom catalog never starts one)."""
        return self._spark is not None

    @property
    def uses_custom_catalog(self) -> bool:
        """A catalog was given instead of Spark's: the statements run on it, and nothing starts Spark for them."""
        return not self._owns_catalog

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            from storage.catalogs.spark.catalog import spark_catalog

            self._catalog = spark_catalog(self.spark)
        return self._catalog

    def context(self) -> ActionContext:
        """What statements and replays run against: catalog, log, binlog (None when off), grace period, retention,
        orphan window, whether events record the versions queries made."""
        return ActionContext(self.catalog, self.log, self.binlog, grace_seconds=self.settings.grace_seconds,
                             retention_seconds=self.settings.retention_seconds,
                             orphan_seconds=self.settings.orphan_seconds,
                             record_versions=self.settings.binlog_versions)

    # ------------------------------------------------------------------ statements

    def run(self, statement: Statement) -> StatementResult:
        """Run a typed statement: the one path of every statement, whoever made it. A directory it left at a table
        name's default directory (:mod:`ddl_log.engine.release_name`) gets its note and is in the result's
        ``holds``. Inside this thread's open transaction, it joins it (:mod:`ddl_log.engine.transactions`). A
        statement the home refuses by its role (:attr:`write_gate`) fails first."""
        if self.write_gate is not None:
            self.write_gate.check(statement)
        transaction = self.transactions.current
        if transaction is not None:
            return transaction.run(statement)
        with self._statement(statement.lock_keys()):
            result = statement.run(self.context())
            holds = explain_holds(self.context(), self.log.chains_of_this_statement(), self.home.location)
        return attrs.evolve(result, holds=holds) if holds else result

    @contextmanager
    def _statement(self, keys: LockKeys) -> Iterator[None]:
        """Its metadata locks held, and the chains it creates marked as its own, so that a recover() on another
        thread never replays them under it. Refused (nothing written) while the session's current catalog is not
        the one the statement's ``db.name`` objects live in. The deletions that have come due run after it."""
        self.catalog.names.check_current_catalog()
        wait = self.settings.lock_wait_seconds if self.transactions.any_open else None
        with self.locks.hold(keys.exclusive, shared=keys.shared, wait=wait), self.log.owning():
            check_objects(self.takeover, list(keys.exclusive))  # a dead driver's half-changed object waits
            yield
        self.run_due_deletions()

    @contextmanager
    def transaction(self, *, publish_to_read: bool = False) -> Iterator[EngineTransaction]:
        """A DDL transaction: every statement run in the block (on this thread) commits at one commit point when it
        ends, or none does (an error in the block, a failing statement: everything undone). Locks are taken as the
        statements arrive and held to the end; see docs/transactions.md. ``publish_to_read``: a statement reading
        what an earlier one changed publishes them first instead of being refused (replaying an earlier source's
        group; other sessions then see them before the commit)."""
        transaction = self.transactions.begin(self, publish_to_read=publish_to_read)
        try:
            yield transaction
        except BaseException as error:
            closing(transaction, error)
            raise
        closing(transaction, None)

    def begin_transaction(self, statements: Iterable[Statement] = (), *,
                          publish_to_read: bool = False) -> EngineTransaction:
        """START TRANSACTION of a script whose ``statements`` are known: their locks all taken now, in one order
        (``publish_to_read``: as for :meth:`transaction`; a replayed binlog group)."""
        return self.transactions.begin(self, union_keys(statements), publish_to_read=publish_to_read)

    # ------------------------------------------------------------------ recovery and inspection

    def recover(self, *, retry_abandoned: bool = False) -> RecoveryReport:
        """Undo or finish every interrupted statement. Starts Spark only if some chain has to run.

        Safe beside running statements: a chain that a statement of this process is running is left to it, and
        every other chain is replayed under the metadata locks of its objects. ``retry_abandoned``: give abandoned
        chains new tries (after the cause is fixed)."""
        self.last_recovery = recover(self.log, self.binlog_file, lambda: self.catalog,
                                     write_binlog=self.settings.binlog, lock_chain=self._lock_chain,
                                     retry_abandoned=retry_abandoned, grace_seconds=self.settings.grace_seconds)
        return self.last_recovery

    def take_over_dead(self) -> TakeoverReport:
        """Recover the interrupted statements of every dead driver's database home now (:mod:`ddl_log.cluster`)."""
        return take_over_dead(self.takeover)

    def _lock_chain(self, actions: list[ActionEntry]) -> AbstractContextManager[None]:
        keys = chain_keys(actions)
        return self.locks.hold(keys.exclusive, shared=keys.shared)

    def active_chains(self) -> list[ExecuteEntry]:
        """Chains of statements in flight or interrupted; not-yet-due deletions are :meth:`pending_deletions`."""
        return [chain for chain in self.log.active_chains() if not is_waiting(self.log, chain, time.time())]

    def pending_deletions(self) -> list[PendingDeletion]:
        """Old table directories kept for readers until their grace period is over, soonest first."""
        return pending_deletions(self.log)

    def run_due_deletions(self, dropped: Iterable[TableName] = ()) -> list[ChainOutcome]:
        """Delete old table directories whose grace period is over (each statement does), and those of ``dropped``."""
        dropped = frozenset(dropped)
        if not due_deletions(self.log, time.time(), dropped):
            return []
        return run_due_deletions(self.context(), self._lock_chain, dropped)

    def abandoned_chains(self) -> list[ExecuteEntry]:
        return self.log.abandoned_chains()

    def binlog_events(self, since_seq: int = 0) -> list[BinlogEvent]:
        return list(self.binlog_file.events(since_seq))

    def current_database(self) -> str:
        """The session's current database (unqualified names in SQL resolve against it)."""
        return str(self.spark.catalog.currentDatabase())

    # ------------------------------------------------------------------ life cycle

    def close(self) -> None:
        """Release files and the home lock; close what this engine opened beside a session (the catalog's own
        metastore client), never a session or catalog it was given."""
        open_transaction = self.transactions.current
        if open_transaction is not None:  # left open: nothing of it stays
            closing(open_transaction, TransactionStateError("close", "the engine closed with the transaction open"))
        stop_takeover(self)
        self.log.close_file()
        self.binlog_file.close()
        self.home.release()
        if self._owns_catalog:
            close_catalog(self._catalog)

    def stop_spark(self) -> None:
        """Stop the Spark session if this engine started it (the CLI does at exit); a given session is the
        caller's."""
        if self._spark is not None and not self._spark_given:
            self._spark.stop()

    def abandon(self) -> None:
        """Drop every file handle without writing anything: what the kernel does when the process dies.
        Used by in-process crash tests before they re-open the home (an open transaction is dropped, not rolled
        back: recovery decides)."""
        open_transaction = self.transactions.current
        if open_transaction is not None:
            open_transaction.end(crashed=True)
        self.close()

    def __enter__(self) -> DDLEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
