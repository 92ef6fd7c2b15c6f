"""``replica check``: every replicated object of the source compared with the replica's: databases, tables (their
definitions normalised, so that where the files live does not count, and a checksum of their rows computed by each
side's engine), views and functions.

When it compares: at the replica's applied position, after catching up as far as the applier can (a stopped applier
does not stop the check). The source can only be read as it is now, so an object that a source event after that
position touches (or that a source statement in flight or interrupted touches) is *pending*: listed with the event,
not compared. Every other object has not changed on the source since the position, so its source state now is its
state at the position, and any difference is real: a write made outside the project on either side, a catalog
changed by hand, an object bootstrap could not copy.
"""

from __future__ import annotations

import json
import time
from typing import Any

import attrs

from ddl_log.engine.core import DDLEngine
from ddl_log.replication.apply import Applier
from ddl_log.replication.errors import ReplicationError
from ddl_log.replication.follow import Filters
from ddl_log.replication.rewrite import rewrite_statement
from ddl_log.replication.snapshot import DatabaseSnapshot, SourceCatalog
from ddl_log.replication.sync import Key, interrupted, keys_of, touched
from storage.catalogs.copying import INTERNAL_PROPERTY_PREFIXES
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog


@attrs.frozen
class Difference:
    object: str
    """The replica's name of the object (a database's name for a database)."""
    kind: str
    what: str
    """``missing on the replica``, ``only on the replica``, ``not copied``, ``definition``, ``rows``."""
    detail: str = ""


@attrs.frozen
class CheckReport:
    position: int
    source_head: int
    compared: int
    differences: tuple[Difference, ...] = ()
    pending: tuple[str, ...] = ()
    """Objects not compared: source events after the position touch them (or a source statement is on them)."""
    stopped: str | None = None
    """Why catching up stopped before the source's head (the applier's error), if it did."""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.differences

    def as_dict(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "ok": self.ok}


def differing(first: str | None, second: str | None) -> str:
    """Which parts of two normalised definitions differ, in words."""
    try:
        left, right = json.loads(first or "{}"), json.loads(second or "{}")
    except ValueError:
        return "definition"
    parts = []
    for key in sorted(set(left) | set(right)):
        a, b = left.get(key), right.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            parts += [f"{key}.{inner}" for inner in sorted(set(a) | set(b)) if a.get(inner) != b.get(inner)]
        elif a != b:
            parts.append(key)
    return ", ".join(parts) or "definition"


class Check:
    """One comparison of the replica of ``applier`` with the source catalog ``reader``."""

    def __init__(self, ddl: DDLEngine, applier: Applier, reader: SourceCatalog) -> None:
        self.ddl = ddl
        self.applier = applier
        self.reader = reader
        self.filters: Filters = applier.follow.filters
        self.differences: list[Difference] = []
        self.compared = 0
        self.pending: set[Key] = set()

    @property
    def catalog(self) -> Catalog:
        return self.ddl.catalog

    def run(self, *, catch_up: bool = True) -> CheckReport:
        started = time.monotonic()
        stopped = None
        if catch_up:
            try:
                self.applier.apply_available()
            except ReplicationError as error:
                stopped = str(error)
        position = self.applier.position
        source = self.applier.source
        busy = interrupted(source)
        databases = sorted(self.filters.databases) if self.filters.databases is not None else \
            self.reader.databases()
        snapshots = {db: self.reader.read_database(db) for db in databases}
        busy |= interrupted(source)
        head = source.head().seq
        window = [event for event in source.events_after(position) if event.seq <= head]
        self.pending = touched(window, lambda item: True)
        self.pending |= {key for item in busy for key in (keys_of([item]) if isinstance(item, TableName)
                                                         else {("database", item)})}
        for db, snapshot in snapshots.items():
            self.compare_database(db, snapshot)
        names = sorted({f"database {name}" if isinstance(name, str) else str(name) for _, name in self.pending
                        if (name if isinstance(name, str) else name.db) in databases})
        return CheckReport(position, head, self.compared, tuple(self.differences), tuple(names), stopped,
                           round(time.monotonic() - started, 3))

    def is_pending(self, key: Key) -> bool:
        name = key[1]
        return key in self.pending or ("database", name if isinstance(name, str) else name.db) in self.pending

    def differ(self, name: str, kind: str, what: str, detail: str = "") -> None:
        self.differences.append(Difference(name, kind, what, detail))

    def compare_database(self, db: str, snapshot: DatabaseSnapshot | None) -> None:
        target = self.filters.target_db(db)
        if self.is_pending(("database", db)):
            return
        present = self.catalog.copies.database_definition(target)
        self.compared += 1
        if snapshot is None or present is None:
            if snapshot is not None or present is not None:
                self.differ(target, "database", "missing on the replica" if present is None else
                            "only on the replica")
            return
        if present != snapshot.definition:
            self.differ(target, "database", "definition", f"source {snapshot.definition}, replica {present}")
        objects = self.catalog.databases.list_objects(target)
        tables = {table.name: table for table in snapshot.tables}
        self.compare_names("table", db, tables, [n for n in objects.tables if not n.is_reserved], self.compare_table)
        views = dict(snapshot.views)
        self.compare_names("view", db, views, list(objects.views), self.compare_view)
        functions = dict(snapshot.functions)
        self.compare_names("function", db, functions, list(objects.functions), self.compare_function)

    def compare_names(self, kind: str, db: str, source: dict[TableName, Any], replica: list[TableName],
                      compare: Any) -> None:
        back = {self.filters.target(name): name for name in source}
        for target in sorted(set(back) | set(replica)):
            name = back.get(target, self.filters.source_of(target))
            if self.is_pending((kind, name)):
                continue
            self.compared += 1
            if target not in replica:
                refusal = getattr(source[name], "refusal", None)
                self.differ(str(target), kind, "not copied" if refusal else "missing on the replica", refusal or "")
            elif name not in source:
                self.differ(str(target), kind, "only on the replica")
            else:
                compare(name, target, source[name])

    def compare_table(self, name: TableName, target: TableName, _: object) -> None:
        first, second = self.reader.digest(name), self.catalog.copies.definition_digest(target)
        if first is not None and second is not None and first != second:
            self.differ(str(target), "table", "definition", differing(first, second))
        source_rows, replica_rows = self.reader.checksum(name), self.catalog.copies.row_checksum(target)
        if source_rows != replica_rows:
            self.differ(str(target), "table", "rows", f"source {source_rows}, replica {replica_rows} (rows:hash)")

    def compare_view(self, name: TableName, target: TableName, view: Any) -> None:
        wanted = rewrite_statement(view, self.filters.mapping, self.applier.finder())
        present = self.catalog.views.view_definition(target)
        if present is not None:
            present = attrs.evolve(present, properties=tuple(
                (k, v) for k, v in present.properties if not k.startswith(INTERNAL_PROPERTY_PREFIXES)))
        if present != wanted:
            self.differ(str(target), "view", "definition", f"source {wanted}, replica {present}")

    def compare_function(self, name: TableName, target: TableName, function: Any) -> None:
        wanted = rewrite_statement(function, self.filters.mapping, self.applier.finder())
        present = self.catalog.functions.function_definition(target)
        if present != wanted:
            self.differ(str(target), "function", "definition", f"source {wanted}, replica {present}")
