"""``replica resync TABLE``: one table of the replica copied again from the source, as the way out when the replica's
table was changed by hand (the applier stopped on it) or written with plain Spark (``check`` found it).

The copy is one atomic replace of the replica (:class:`~ddl_log.replication.copy_table.CopyTable`: readers see the old
table or the copy; a DROP when the source has no such table), taken at a known source position ``Q`` on a live
source (:mod:`~ddl_log.replication.sync`). Its *done* note records ``Q`` for the table: the applier then skips the
source events up to ``Q`` that touch it (their effect is in the copy) and applies the later ones; nothing twice,
nothing lost. A *begin* note is durable first: until the done note, the applier refuses to run (run resync again).
"""

from __future__ import annotations

import os
import time

import attrs

from ddl_log.engine.core import DDLEngine
from ddl_log.engine.tables import DropTables
from ddl_log.engine.typed import Statement
from ddl_log.replication.bootstrap import SyncReport
from ddl_log.replication.copy_table import CopyTable
from ddl_log.replication.errors import ReplicaConfigError, ReplicaPromotedError, SyncIncompleteError
from ddl_log.replication.follow import Filters
from ddl_log.replication.ledger import Ledger
from ddl_log.replication.position import ReplicaPosition, resync_begin, resync_done, resync_statement
from ddl_log.replication.replica_state import REPLICATION_DIR, read_state
from ddl_log.replication.snapshot import SourceCatalog, TableCopy
from ddl_log.replication.source import Source
from ddl_log.replication.sync import Key, rounds
from storage import crashpoints
from storage.catalogs.names import TableName

BEGUN = crashpoints.declare("replica.resync.begun", "a resync's begin note is durable; the table not copied yet")
DONE = crashpoints.declare("replica.resync.done", "a resync's done note (the table's fence) is durable")
ABSENT = "absent"


class Resync:
    """Copy the replica's table ``table`` again from ``source`` (binlog) and ``reader`` (catalog)."""

    def __init__(self, ddl: DDLEngine, source: Source, reader: SourceCatalog, table: TableName, *,
                 attempts: int = 5) -> None:
        self.ddl = ddl
        self.source = source
        self.reader = reader
        self.table = table
        state = read_state(ddl.home.spark_directory())
        if state.origin is None:
            raise ReplicaConfigError(ddl.home.location, "it follows no source yet (bootstrap it, or run the applier)")
        if state.origin != source.origin:
            raise ReplicaConfigError(ddl.home.location, f"it follows {state.origin}, not {source.origin}")
        self.filters = Filters.of_state(state)
        self.source_table = self.filters.source_of(table)
        if not self.filters.replicated(self.source_table.db):
            raise ReplicaConfigError(ddl.home.location, f"{table} is not in a replicated database")
        self.attempts = attempts
        self.origin = source.origin
        self.current: TableCopy | None = None
        self.copied: str | None = None
        self.statements = self.round = 0
        self.ledger = Ledger(os.path.join(ddl.home.spark_directory(), REPLICATION_DIR))

    def in_scope(self, item: TableName | str) -> bool:
        return item == self.source_table or item == self.source_table.db

    def read(self) -> dict[Key, str]:
        self.current = self.reader.read_table(self.source_table)
        if self.current is not None and self.current.refusal is not None:
            raise ReplicaConfigError(self.ddl.home.location, f"{self.source_table} cannot be copied: "
                                     f"{self.current.refusal}")
        return {("table", self.source_table): ABSENT if self.current is None else self.current.fingerprint}

    def forget(self, changed: set[Key]) -> None:
        self.copied = None

    def copy(self, at: int) -> None:
        self.round += 1
        wanted = ABSENT if self.current is None else self.current.fingerprint
        if self.copied == wanted:
            return
        statement: Statement
        if self.current is None:
            if not self.ddl.catalog.names.exists(self.table):
                self.copied = wanted
                return
            statement = DropTables(names=(self.table,))
        else:
            assert self.current.definition is not None and self.current.location is not None
            statement = CopyTable(name=self.table, definition=self.current.definition,
                                  location=self.current.location, source=self.reader.files)
        text = resync_statement(self.origin, at, statement.canonical_text())
        self.ddl.run(attrs.evolve(statement, text=text))
        self.ledger.note(self.ddl.catalog, [self.table])
        self.statements += 1
        self.copied = wanted

    def run(self) -> SyncReport:
        started = time.monotonic()
        position = ReplicaPosition.read(self.ddl.binlog_file.events(), self.origin)
        if position.promoted_at is not None:
            raise ReplicaPromotedError(self.ddl.home.location, self.origin, position.promoted_at)
        if position.bootstrapping:
            raise SyncIncompleteError(self.ddl.home.location, "a bootstrap", "ddl-log replica bootstrap")
        if self.table not in position.resyncing:
            self.ddl.binlog_file.append(resync_begin(self.origin, self.table), xid=None)
            BEGUN()
        at = rounds(self.source, self.read, self.copy, self.in_scope, what=f"resync of {self.table}",
                    attempts=self.attempts, forget=self.forget)
        self.ddl.binlog_file.append(resync_done(self.origin, self.table, at), xid=None)
        DONE()
        self.ledger.note(self.ddl.catalog, [self.table])
        return SyncReport(at, self.round, self.statements, seconds=round(time.monotonic() - started, 3))
