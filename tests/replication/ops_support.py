"""What the tests of the replica's operations share (bootstrap, filters, resync, check, promote) on the in-memory
catalog: a source home with data in two databases, replicas over catalogs of their own, and one database's state
without its name (a database kept under another name compares equal)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.replication.origin import origin_of
from ddl_log.replication.position import ReplicaPosition
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests.replication.test_apply_exactly_once import applied_seqs
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog, untagged

__all__ = ["applied_seqs", "catalog_state"]


class Home:
    """A home over a catalog, opened as often as a test needs."""

    def __init__(self, path: Path | str, catalog: Catalog) -> None:
        self.path, self.catalog = str(path), catalog

    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.path, catalog=self.catalog, compact_bytes=0)

    def position(self, origin: str) -> ReplicaPosition:
        ddl = self.open()
        try:
            return ReplicaPosition.read(ddl.binlog_events(), origin)
        finally:
            ddl.close()


def clone(home: Home, path: Path) -> Home:
    """A copy of a closed home and its catalog: many replicas in the same state."""
    shutil.copytree(home.path, path)
    return Home(path, copy.deepcopy(home.catalog))


def source_home(tmp_path: Path) -> Home:
    """The source: the populated catalog and a few statements of its own in ``d2`` (a table, a view reading it, a
    function)."""
    source = Home(tmp_path / "source", populated_catalog())
    ddl = source.open()
    ddl.create_table("d2.c", like="d2.t")
    ddl.create_view("d2.w", as_select="SELECT * FROM d2.t")
    ddl.create_function("d2.g", class_name="com.example.G")
    ddl.close()
    return source


def stale_replica(path: Path) -> Home:
    """A replica catalog that already holds a ``d2`` with an object the source lacks and one it has, stale."""
    catalog = memory_catalog()
    catalog.backend.databases.add("d2")
    catalog.backend.add_user_table(TableName.of("d2.only_here"), ("z",), [(0,)])
    catalog.backend.add_user_table(TableName.of("d2.t"), ("z",), [(42,), (43,)])
    return Home(path, catalog)


def bootstrapped(tmp_path: Path, databases: tuple[str, ...] = ("d2",)) -> tuple[Home, Home]:
    """The source of :func:`source_home` and a replica of ``databases`` bootstrapped from it."""
    source = source_home(tmp_path)
    replica = Home(tmp_path / "replica", memory_catalog())
    ddl = replica.open()
    ddl.replica_bootstrap(source.path, databases=list(databases), source_catalog=source.catalog)
    ddl.close()
    return source, replica


def database_state(catalog: Catalog, db: str) -> Any:
    """``db``'s tables (rows, columns, types, properties, partitions), views and functions, by name without the
    database."""
    state = catalog.backend
    tables = {n.name: (t.columns, sorted(map(repr, t.rows)), sorted(t.types.items()), sorted(t.properties.items()),
                       [sorted(p.items()) for p in t.partitions]) for n, t in state.tables.items() if n.db == db}
    views = {n.name: untagged(v) for n, v in catalog.backend.views.items() if n.db == db}
    functions = {n.name: f for n, f in catalog.backend.functions.items() if n.db == db}
    return db in catalog.backend.databases, tables, views, functions


def origin(home: Home) -> str:
    return origin_of(home.path)
