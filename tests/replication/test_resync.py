"""A replica catalog changed by hand under the applier: a table or view dropped, replaced or made there stops the
applier before the next source event that names it, for every kind of statement, with the object and the event named;
``resync`` copies the table again (one atomic replace) at a recorded source position, after which the applier skips
the events on it up to there and applies the rest: nothing twice, nothing lost. A resync killed anywhere restarts
cleanly (the applier waits for it). In-memory catalog; on Spark with data and readers: test_bootstrap_spark.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import ApplyFailedError, AtomicDDL, SyncIncompleteError
from ddl_log.engine.alter_ops import AddColumns, SetProperties
from ddl_log.replication.position import ReplicaPosition
from storage.catalogs.interface import ViewDefinition
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit
from tests.replication.ops_support import Home, clone, database_state, origin, source_home

T, V = TableName.of("d2.t"), TableName.of("d2.w")
ROWS = MemoryTable("", ("z",), [(5,), (6,)])


def replica_of(tmp_path: Any, source: Home, name: str = "replica") -> Home:
    replica = Home(tmp_path / name, memory_catalog())
    ddl = replica.open()
    ddl.replica_bootstrap(source.path, databases=["d2"], source_catalog=source.catalog)
    ddl.close()
    return replica


def dropped(catalog: Catalog, name: TableName) -> None:
    catalog.backend.tables.pop(name, None) or catalog.backend.views.pop(name)


def replaced(catalog: Catalog, name: TableName) -> None:
    if name in catalog.backend.tables:
        del catalog.backend.tables[name]
        catalog.backend.add_user_table(name, ("z",), [(99,)])  # plain Spark's DROP and CREATE: another table
    else:
        catalog.backend.views[name] = ViewDefinition("SELECT 99 AS z")
        catalog.backend.view_ids[name] = "by-hand"


HAND = {"dropped": dropped, "replaced": replaced}
EVENTS: dict[str, tuple[TableName, Callable[[AtomicDDL], Any]]] = {
    "alter": (T, lambda d: d.alter_table(T, SetProperties({"k": "v"}))),
    "add columns": (T, lambda d: d.alter_table(T, AddColumns("y INT"))),
    "truncate": (T, lambda d: d.truncate_table(T)),
    "overwrite": (T, lambda d: d.insert_overwrite(T, df=ROWS)),
    "replace": (T, lambda d: d.create_or_replace_table(T, df=ROWS)),
    "rename": (T, lambda d: d.rename_tables([(T, TableName.of("d2.t9"))])),
    "drop": (T, lambda d: d.drop_tables([T])),
    "alter view": (V, lambda d: d.alter_view(V, as_select="SELECT 3 AS z")),
    "replace view": (V, lambda d: d.create_view(V, as_select="SELECT 4 AS z", or_replace=True)),
    "drop view": (V, lambda d: d.drop_views([V])),
}


@pytest.mark.parametrize("hand", sorted(HAND))
@pytest.mark.parametrize("kind", sorted(EVENTS))
def test_an_object_changed_by_hand_stops_the_applier_before_the_event_that_names_it(tmp_path, hand, kind):
    source = source_home(tmp_path)
    replica = replica_of(tmp_path, source)
    name, statement = EVENTS[kind]
    HAND[hand](replica.catalog, name)
    writer = source.open()
    statement(writer)
    seq = writer.binlog_events()[-1].seq
    writer.close()
    ddl = replica.open()
    expected = rf"source event {seq}.*{re.escape(str(name))} was {hand} on the replica"
    with pytest.raises(ApplyFailedError, match=expected) as stopped:
        ddl.replica_of(source.path).apply_available()
    assert stopped.value.seq == seq and "replica resync" in str(stopped.value)
    ddl.close()


def test_resync_is_the_way_out_the_events_on_the_table_up_to_its_position_are_skipped_and_the_rest_applied(
        tmp_path):
    source = source_home(tmp_path)
    replica = replica_of(tmp_path, source)
    del replica.catalog.backend.tables[T]
    writer = source.open()
    writer.alter_table(T, SetProperties({"k": "1"}))
    writer.create_table("d2.n", like="d2.c")
    writer.alter_table(T, AddColumns("y INT"))
    writer.close()
    ddl = replica.open()
    with pytest.raises(ApplyFailedError, match=r"d2\.t was dropped"):
        ddl.replica_of(source.path).apply_available()
    report = ddl.replica_resync(T, source_catalog=source.catalog)
    assert report.position == 6 and report.statements == 1
    applied = ddl.replica_of(source.path).apply_available()
    assert (applied.applied, applied.skipped, applied.position) == (1, 2, 6)  # d2.n applied, both ALTERs skipped
    writer = source.open()
    writer.alter_table(T, SetProperties({"k": "2"}))  # after the resync's position: applied
    writer.rename_tables([(T, TableName.of("d2.u"))])
    writer.close()
    assert ddl.replica_of(source.path).apply_available().applied == 2
    ddl.close()
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")


def test_an_event_on_a_resynced_table_and_another_before_the_resyncs_position_stops_the_applier(tmp_path):
    source = source_home(tmp_path)
    replica = replica_of(tmp_path, source)
    del replica.catalog.backend.tables[T]
    writer = source.open()
    writer.rename_tables([(T, TableName.of("d2.t2")), (TableName.of("d2.c"), T)])
    writer.close()
    ddl = replica.open()
    ddl.replica_resync(T, source_catalog=source.catalog)
    with pytest.raises(ApplyFailedError, match="resync those too"):
        ddl.replica_of(source.path).apply_available()
    ddl.replica_resync("d2.t2", source_catalog=source.catalog)
    ddl.replica_resync("d2.c", source_catalog=source.catalog)  # gone on the source: dropped on the replica
    assert ddl.replica_of(source.path).apply_available().skipped == 1
    ddl.close()
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")


def test_a_resync_killed_anywhere_restarts_cleanly_and_the_applier_waits_for_it(tmp_path):
    source = source_home(tmp_path)
    template = replica_of(tmp_path, source, "template")
    template.catalog.backend.tables[T].rows.append((1000,))  # written by hand (check would find it)
    writer = source.open()
    writer.alter_table(T, SetProperties({"k": "1"}))
    writer.create_table("d2.n", like="d2.c")
    writer.close()
    wanted = database_state(source.catalog, "d2")

    def resync(ddl: AtomicDDL) -> Any:
        return ddl.replica_resync(T, source_catalog=source.catalog)

    points = crashkit.trace(clone(template, tmp_path / "trace").open, resync)
    assert {"replica.resync.begun", "replica.copy.files_copied", "replica.resync.done"} <= {p for p, _ in points}
    for index, (point, nth) in enumerate(points):
        replica = clone(template, tmp_path / f"r{index}")
        assert crashkit.crash_at(replica.open, resync, point, nth), (point, nth)
        ddl = replica.open()
        if T in ReplicaPosition.read(ddl.binlog_events(), origin(source)).resyncing:
            with pytest.raises(SyncIncompleteError, match=r"replica resync d2\.t"):
                ddl.replica_of(source.path)
        resync(ddl)
        report = ddl.replica_of(source.path).apply_available()
        assert (report.applied, report.skipped) == (1, 1), (point, nth)
        ddl.close()
        assert database_state(replica.catalog, "d2") == wanted, (point, nth)
