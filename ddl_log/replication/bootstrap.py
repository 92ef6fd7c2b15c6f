"""Bootstrap: a replica made from an existing source, as MySQL's clone or a dump taken at a known binlog position.

Each replicated database of the replica is made equal to the source's at one source position ``P``
(:mod:`~ddl_log.replication.sync` finds it on a live source), one atomic replica statement per object: databases
created, tables copied with their whole definition and their files (:class:`~ddl_log.replication.copy_table
.CopyTable`), functions and views created or replaced, objects only the replica has dropped. Then a note with the
origin marker of ``P`` sets the applied position, and the applier goes on from there.

Crash safety: a *begin* note is durable before the first copy; while it has no *done* note the applier refuses to run
(the catalog is part copied). Running bootstrap again resumes: every copy statement's binlog event names the object,
the fingerprint of the definition it copied and the round's source position, so what is still as the source has it
(no source event touched it since) stays, and the rest is copied again. Every statement is the replica's own atomic
statement, so a kill inside one is undone or finished by the next open of the home.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

import attrs

from chains.binlog import BinlogEvent
from ddl_log.engine.core import DDLEngine
from ddl_log.engine.tables import CreateDatabase, DropTables
from ddl_log.engine.typed import Statement
from ddl_log.engine.views import CreateFunction, CreateView, DropFunction, DropViews
from ddl_log.replication.copy_table import CopyTable
from ddl_log.replication.errors import (
    FollowsAnotherSourceError,
    ReplicaConfigError,
    ReplicaPromotedError,
    SourceCatalogError,
)
from ddl_log.replication.follow import Filters
from ddl_log.replication.ledger import Ledger, names_of
from ddl_log.replication.origin import AppliedPosition
from ddl_log.replication.position import (
    BOOTSTRAP_AT,
    BOOTSTRAP_BEGIN,
    ReplicaPosition,
    bootstrap_begin,
    bootstrap_done,
    bootstrap_statement,
)
from ddl_log.replication.promote import give_role
from ddl_log.replication.replica_state import REPLICATION_DIR, read_state, write_state
from ddl_log.replication.rewrite import Finder, rewrite_statement, session_finder
from ddl_log.replication.snapshot import DatabaseSnapshot, SourceCatalog, fingerprint
from ddl_log.replication.source import Source
from ddl_log.replication.source_identity import source_ident
from ddl_log.replication.sync import Copied, Key, rounds, stale, target_key
from storage import crashpoints
from storage.catalogs.interface import ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import DDLLogError

BEGUN = crashpoints.declare("replica.bootstrap.begun", "a bootstrap's begin note is durable; nothing copied yet")
DONE = crashpoints.declare("replica.bootstrap.done", "a bootstrap's done note (the applied position) is durable")


@attrs.frozen
class SyncReport:
    """What a bootstrap or resync did: ``position`` (the source seq its copy is consistent with), ``rounds``,
    ``statements`` (replica statements run), ``kept`` (objects a restarted bootstrap found copied already),
    ``dropped`` (objects only the replica had), ``not_copied`` (objects it cannot copy, and why), ``seconds``."""

    position: int
    rounds: int
    statements: int
    kept: int = 0
    dropped: int = 0
    not_copied: tuple[str, ...] = ()
    seconds: float = 0.0


def resumed(events: list[BinlogEvent], origin: str) -> dict[Key, Copied]:
    """What the unfinished bootstrap of ``origin`` copied before it stopped (the events after its last begin)."""
    begun = max((index for index, event in enumerate(events)
                 if (m := BOOTSTRAP_BEGIN.match(event.statement)) is not None and m.group(1) == origin), default=None)
    copied: dict[Key, Copied] = {}
    for event in events[(begun or 0):] if begun is not None else []:
        match = BOOTSTRAP_AT.match(event.statement)
        if match is None or match.group(1) != origin or match.group(3) is None:
            continue
        kind, print_, at = match.group(3), match.group(4), int(match.group(2))
        for item in event.objects:
            db, dot, name = item.partition(".")
            key: Key = (kind, TableName(db, name)) if dot else ("database", db)
            if kind == "drop":
                for dropped in ("table", "view", "function"):
                    copied.pop((dropped, key[1]), None)
            else:
                copied[key] = Copied(print_, at)
    return copied


class Bootstrap:
    """One bootstrap of ``filters.databases`` from ``source`` (its binlog) and ``reader`` (its catalog)."""

    def __init__(self, ddl: DDLEngine, source: Source, reader: SourceCatalog, filters: Filters, *,
                 attempts: int = 5, source_catalog: str | None = None, same_catalog: bool = False) -> None:
        if not filters.databases:
            raise ReplicaConfigError(ddl.home.location, "a bootstrap names the databases it copies (--databases)")
        if same_catalog and any(filters.target_db(db) in filters.databases for db in filters.databases):
            raise SourceCatalogError(source.path, "the replica would read and write the source's own databases (one "
                                     "metastore): give --rewrite-db src=dst for each database, or the source's "
                                     "metastore (--source-metastore) when the replica has a catalog of its own")
        self.ddl = ddl
        self.source = source
        self.reader = reader
        self.filters = filters
        self.attempts = attempts
        self.source_catalog = source_catalog
        self.origin = source.origin
        self.copied: dict[Key, Copied] = {}
        self.snapshot: dict[str, DatabaseSnapshot] = {}
        self.statements = self.dropped = self.round = 0
        self.not_copied: dict[str, str] = {}
        self.ledger = Ledger(os.path.join(ddl.home.spark_directory(), REPLICATION_DIR))

    @property
    def catalog(self) -> Catalog:
        return self.ddl.catalog

    def in_scope(self, item: TableName | str) -> bool:
        return self.filters.replicated(item if isinstance(item, str) else item.db)

    def prepare(self, events: list[BinlogEvent]) -> ReplicaPosition:
        """Check the replica may take this bootstrap and note its source and filters."""
        home = self.ddl.home.location
        home_dir = self.ddl.home.spark_directory()
        state = read_state(home_dir)
        others = sorted(set(AppliedPosition.read(events).seqs) - {self.origin})
        followed = state.origin if state.origin not in (None, self.origin) else (others[0] if others else None)
        if followed is not None:
            raise FollowsAnotherSourceError(home, followed, self.origin)
        position = ReplicaPosition.read(events, self.origin)
        if position.promoted_at is not None:
            raise ReplicaPromotedError(home, self.origin, position.promoted_at)
        write_state(home_dir, attrs.evolve(state, source=self.source.path, origin=self.origin,
                                           source_catalog=self.source_catalog, **self.filters.as_state()))
        give_role(self.ddl)
        return position

    def run(self) -> SyncReport:
        started = time.monotonic()
        events = list(self.ddl.binlog_file.events())
        position = self.prepare(events)
        if position.bootstrapping:
            self.copied = resumed(events, self.origin)
        else:
            self.ddl.binlog_file.append(bootstrap_begin(self.origin, self.filters.describe()), xid=None)
            BEGUN()
        kept = len(self.copied)
        what = f"bootstrap of {self.filters.describe()} from {self.source.path}"
        at = rounds(self.source, self.read, self.copy, self.in_scope, what=what, attempts=self.attempts,
                    forget=self.forget)
        self.ddl.binlog_file.append(bootstrap_done(self.origin, at, self.describe(), source_ident(self.source, at)),
                                    xid=None)
        DONE()
        for db in sorted(self.filters.databases or ()):
            objects = self.catalog.databases.list_objects(self.filters.target_db(db))
            self.ledger.note(self.catalog, [*objects.tables, *objects.views])
        return SyncReport(at, self.round, self.statements, kept, self.dropped,
                          tuple(f"{name}: {why}" for name, why in sorted(self.not_copied.items())),
                          round(time.monotonic() - started, 3))

    def describe(self) -> str:
        skipped = f"; not copied: {', '.join(sorted(self.not_copied))}" if self.not_copied else ""
        return f"{self.filters.describe()}{skipped}"

    # ------------------------------------------------------------------ reading and copying

    def read(self) -> dict[Key, str]:
        found: dict[Key, str] = {}
        for db in sorted(self.filters.databases or ()):
            snapshot = self.reader.read_database(db)
            if snapshot is None:
                raise SourceCatalogError(self.source.path, f"database {db} does not exist on the source")
            self.snapshot[db] = snapshot
            found |= snapshot.fingerprints()
        return found

    def forget(self, changed: set[Key]) -> None:
        target = target_key(self.filters)
        for key in changed:
            mapped = target(key)
            self.copied.pop(mapped, None)
            if key[0] == "database":
                self.copied = {k: v for k, v in self.copied.items()
                               if (k[1] if isinstance(k[1], str) else k[1].db) != mapped[1]}

    def copy(self, at: int) -> None:
        self.round += 1
        if self.copied:
            since = min(entry.at for entry in self.copied.values())
            window = [event for event in self.source.events_after(since) if event.seq <= at]
            for key in stale(self.copied, window, target_key(self.filters)):
                self.copied.pop(key, None)
        for snapshot in self.snapshot.values():
            self.install(snapshot, at)

    def run_statement(self, statement: Statement, at: int, kind: str, print_: str, key: Key | None) -> None:
        text = bootstrap_statement(self.origin, at, kind, print_, statement.canonical_text())
        result = self.ddl.run(attrs.evolve(statement, text=text))
        self.ledger.note(self.catalog, names_of(result.objects))
        self.statements += 1
        if key is not None:
            self.copied[key] = Copied(print_, at)

    def install(self, snapshot: DatabaseSnapshot, at: int) -> None:
        db = self.filters.target_db(snapshot.name)
        catalog = self.catalog
        if not catalog.databases.database_exists(db):
            definition = snapshot.definition
            self.run_statement(CreateDatabase(name=db, comment=definition.comment,
                                              properties=definition.properties), at, "database",
                               fingerprint(definition), ("database", db))
        target = self.filters.target
        tables = {target(table.name): table for table in snapshot.tables}
        views = {target(name): view for name, view in snapshot.views}
        functions = {target(name): function for name, function in snapshot.functions}
        present = catalog.databases.list_objects(db)
        self.drop([name for name in present.tables if not name.is_reserved and name not in tables],
                  lambda names: DropTables(names=names), at)
        self.drop([name for name in present.views if name not in views], lambda names: DropViews(names=names), at)
        for name in present.functions:
            if name not in functions:
                self.drop([name], lambda names: DropFunction(name=names[0]), at)
        for name, table in tables.items():
            if table.refusal is not None or table.definition is None or table.location is None:
                self.not_copied[str(table.name)] = table.refusal or "no definition"
                continue
            if self.kept(("table", name), table.fingerprint):
                continue
            self.run_statement(CopyTable(name=name, definition=table.definition, location=table.location,
                                         source=self.reader.files), at, "table", table.fingerprint,
                               ("table", name))
        mapping = self.filters.mapping
        for name, function in functions.items():
            if not self.kept(("function", name), fingerprint(function)):
                statement = rewrite_statement(CreateFunction(name=name, definition=function, or_replace=True),
                                              mapping, self.finder())
                self.run_statement(statement, at, "function", fingerprint(function), ("function", name))
        self.create_views(views, at)

    def finder(self) -> Finder | None:
        """The parser ``--rewrite-db`` reads SQL texts with (:func:`session_finder`)."""
        return None if self.ddl.uses_custom_catalog else session_finder(self.ddl.spark)

    def kept(self, key: Key, print_: str) -> bool:
        entry = self.copied.get(key)
        return entry is not None and entry.fingerprint == print_

    def drop(self, names: list[TableName], kind: Callable[[tuple[TableName, ...]], Statement], at: int) -> None:
        if not names:
            return
        statement = kind(tuple(names))
        self.run_statement(statement, at, "drop", "0", None)
        self.dropped += len(names)
        for name in names:
            for dropped in ("table", "view", "function"):
                self.copied.pop((dropped, name), None)

    def create_views(self, views: Mapping[TableName, ViewDefinition], at: int) -> None:
        """Views in dependency order, found by trying: a view that reads a view not made yet waits for it."""
        pending = {name: view for name, view in views.items() if not self.kept(("view", name), fingerprint(view))}
        while pending:
            failures: dict[TableName, DDLLogError] = {}
            for name, view in pending.items():
                statement = rewrite_statement(CreateView(name=name, definition=view, or_replace=True),
                                              self.filters.mapping, self.finder())
                try:
                    self.run_statement(statement, at, "view", fingerprint(view), ("view", name))
                except DDLLogError as error:
                    failures[name] = error
            if len(failures) == len(pending):
                raise next(iter(failures.values()))
            pending = {name: pending[name] for name in failures}
