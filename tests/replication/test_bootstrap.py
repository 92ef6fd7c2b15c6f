"""Bootstrap: a replica made from an existing source copies the chosen databases as they were at one source position,
records that position, and the applier goes on from it; a bootstrap killed anywhere restarts cleanly and the replica
never claims a position its catalog does not match; a source that changes during the copy costs another round, one
that never settles (or has an interrupted statement) is refused with a typed error. On the in-memory catalog (the
same on Spark with data and a real SIGKILL: test_bootstrap_spark.py)."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL, SnapshotNotConsistentError, SourceCatalogError, SyncIncompleteError
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.replication.origin import mark_of
from ddl_log.replication.position import ReplicaPosition
from ddl_log.replication.snapshot import CatalogReader
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from tests import crashkit
from tests.replication.ops_support import Home, database_state, origin, source_home, stale_replica

DATABASES = ["d2"]


def bootstrap(source: Home, **keywords: Any) -> Any:
    return lambda ddl: ddl.replica_bootstrap(source.path, databases=DATABASES, source_catalog=source.catalog,
                                             **keywords)


def head_of(home: Home) -> int:
    ddl = home.open()
    try:
        return ddl.binlog_events()[-1].seq
    finally:
        ddl.close()


def test_a_bootstrap_copies_the_chosen_databases_at_a_known_position_and_the_applier_goes_on_from_it(tmp_path):
    source = source_home(tmp_path)
    replica = stale_replica(tmp_path / "replica")
    ddl = replica.open()
    report = bootstrap(source)(ddl)
    assert (report.position, report.rounds, report.dropped) == (head_of(source), 1, 1)  # d2.only_here dropped
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")
    assert "default" not in {n.db for n in replica.catalog.backend.tables}  # not chosen: not copied
    events = ddl.binlog_events()
    assert events[0].statement.startswith(f"/* ddl-log bootstrap {origin(source)} begin */")
    assert mark_of(events[-1].statement).seq == report.position and "bootstrap done" in events[-1].statement
    ddl.close()
    writer = source.open()
    writer.alter_table("d2.c", SetProperties({"k": "v"}))
    writer.create_table("default.x", like="default.a")  # another database: skipped, and recorded
    writer.close()
    ddl = replica.open()
    applied = ddl.replica_of(source.path).apply_available()
    assert (applied.applied, applied.skipped, applied.position) == (1, 1, head_of(source))
    assert "skipped" in ddl.binlog_events()[-1].statement and "not in --databases" in ddl.binlog_events()[-1].statement
    ddl.close()
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")


def test_a_bootstrap_killed_anywhere_restarts_cleanly_and_never_claims_a_position_it_does_not_match(tmp_path):
    source = source_home(tmp_path)
    wanted = database_state(source.catalog, "d2")
    head = head_of(source)
    points = crashkit.trace(stale_replica(tmp_path / "trace").open, bootstrap(source))
    assert {"replica.bootstrap.begun", "replica.copy.files_copied", "replica.bootstrap.done",
            "replace.exchange.before"} <= {point for point, _ in points}
    for index, (point, nth) in enumerate(points):
        replica = stale_replica(tmp_path / f"r{index}")
        assert crashkit.crash_at(replica.open, bootstrap(source), point, nth), (point, nth)
        ddl = replica.open()  # recovery of whatever statement the kill cut
        position = ReplicaPosition.read(ddl.binlog_events(), origin(source))
        if position.bootstrapping:
            with pytest.raises(SyncIncompleteError, match="replica bootstrap"):
                ddl.replica_of(source.path)  # a part-copied catalog is at no position: the applier waits
        elif position.applied:
            assert (position.applied, database_state(replica.catalog, "d2")) == (head, wanted), (point, nth)
        report = bootstrap(source)(ddl)  # again: it restarts, keeping what it copied already
        assert report.position == head, (point, nth)
        assert ddl.replica_of(source.path).position == head
        ddl.close()
        assert database_state(replica.catalog, "d2") == wanted, (point, nth)


def test_a_restarted_bootstrap_keeps_what_it_had_copied(tmp_path):
    source = source_home(tmp_path)
    replica = stale_replica(tmp_path / "replica")
    assert crashkit.crash_at(replica.open, bootstrap(source), "replace.commit.after", 2)  # the second table is in
    ddl = replica.open()
    report = bootstrap(source)(ddl)
    ddl.close()
    assert report.kept >= 2 and report.statements < len(database_state(source.catalog, "d2")[1]) + 3


class ChangingSource:
    """The source's catalog read by bootstrap, with a source statement committed after the first read of each of the
    first ``times`` rounds (while the copy runs)."""

    def __init__(self, source: Home, times: int) -> None:
        self.reader = CatalogReader(source.catalog, source.catalog)
        self.files = source.catalog
        self.source, self.times, self.reads = source, times, 0

    def read_database(self, db: str) -> Any:
        found = self.reader.read_database(db)
        self.reads += 1
        if self.reads % 2 == 1 and self.reads // 2 < self.times:
            writer = self.source.open()
            writer.alter_table("d2.t", SetProperties({"round": str(self.reads)}))
            writer.close()
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self.reader, name)


def run_with(replica: Home, source: Home, reader: Any, attempts: int = 5) -> Any:
    from ddl_log.replication.bootstrap import Bootstrap
    from ddl_log.replication.follow import Filters
    from ddl_log.replication.source import open_source

    ddl = replica.open()
    try:
        return Bootstrap(ddl, open_source(source.path), reader, Filters.of(DATABASES), attempts=attempts).run()
    finally:
        ddl.close()


def test_a_statement_the_source_commits_during_the_copy_costs_another_round_and_the_copy_is_at_one_position(
        tmp_path):
    source = source_home(tmp_path)
    replica = stale_replica(tmp_path / "replica")
    report = run_with(replica, source, ChangingSource(source, times=1))
    assert report.rounds == 2 and report.position == head_of(source)
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")
    tables = replica.catalog.backend.tables
    assert tables[next(n for n in tables if n.name == "t")].properties["round"] == "1"


def test_a_source_that_never_settles_or_has_an_interrupted_statement_is_refused_and_nothing_is_claimed(tmp_path):
    source = source_home(tmp_path)
    replica = stale_replica(tmp_path / "replica")
    with pytest.raises(SnapshotNotConsistentError, match=r"d2\.t") as refused:
        run_with(replica, source, ChangingSource(source, times=9), attempts=2)
    assert refused.value.changed == ["d2.t"]
    assert replica.position(origin(source)).bootstrapping  # begun, never done: the applier waits
    assert crashkit.crash_at(source.open, lambda d: d.alter_table("d2.c", SetProperties({"x": "1"})),
                             "alter_table.do.after", 1)  # a source statement interrupted, its catalog change made
    with pytest.raises(SnapshotNotConsistentError, match=r"d2\.c"):
        run_with(replica, source, CatalogReader(source.catalog, source.catalog), attempts=1)
    source.open().close()  # the source's recovery undoes it
    assert run_with(replica, source, CatalogReader(source.catalog, source.catalog)).position == head_of(source)
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")


def test_a_replica_in_the_sources_own_catalog_must_rename_every_database(tmp_path):
    source = source_home(tmp_path)
    ddl = AtomicDDL(home=str(tmp_path / "replica"), catalog=source.catalog)
    with pytest.raises(SourceCatalogError, match="--rewrite-db"):
        ddl.replica_bootstrap(source.path, databases=["d2"], source_catalog=source.catalog)
    with pytest.raises(SourceCatalogError, match="--rewrite-db"):  # a swap would write into the other source db
        ddl.replica_bootstrap(source.path, databases=["d2", "default"], rewrite_db={"d2": "default", "default": "d2"},
                              source_catalog=source.catalog)
    report = ddl.replica_bootstrap(source.path, databases=["d2"], rewrite_db={"d2": "r2"},
                                   source_catalog=source.catalog)
    ddl.close()
    assert report.position == head_of(source)
    replica_d2 = database_state(source.catalog, "r2")
    source_d2 = database_state(source.catalog, "d2")
    assert replica_d2[:2] == source_d2[:2] and replica_d2[3] == source_d2[3]
    views = source.catalog.backend.views
    assert views[next(n for n in views if n.db == "r2" and n.name == "w")].query \
        == "SELECT * FROM `r2`.t"  # the view reads the replica's table, not the source's


def test_a_replica_home_refuses_statements_by_hand_until_promoted(tmp_path):
    from ddl_log import ReplicaReadOnlyError

    source = source_home(tmp_path)
    replica = Home(tmp_path / "replica", memory_catalog())
    ddl = replica.open()
    bootstrap(source)(ddl)
    with pytest.raises(ReplicaReadOnlyError, match="read-only"):
        ddl.create_database("mine")
    assert [row.current for row in ddl.describe_history("d2.t").rows] == [True]  # reads are allowed
    ddl.close()
    assert "mine" not in replica.catalog.backend.databases


def test_the_read_only_rule_is_the_homes_role_read_when_it_opens_never_on_a_statements_path(tmp_path, monkeypatch):
    from ddl_log import ReplicaReadOnlyError
    from ddl_log.replication import promote
    from ddl_log.replication.promote import ReadOnlyReplica

    source = source_home(tmp_path)
    replica = Home(tmp_path / "replica", memory_catalog())
    ddl = replica.open()
    bootstrap(source)(ddl)
    ddl.close()
    ddl = replica.open()  # reopened: the role comes from the state the bootstrap left
    assert isinstance(ddl.write_gate, ReadOnlyReplica)

    def no_reads(*_: object) -> None:
        raise AssertionError("the replication state was read on a statement's path")

    monkeypatch.setattr(promote, "read_state", no_reads)
    for _ in range(3):
        with pytest.raises(ReplicaReadOnlyError, match="read-only"):
            ddl.create_database("mine")
    assert [row.current for row in ddl.describe_history("d2.t").rows] == [True]
    monkeypatch.undo()
    ddl.replica_promote()
    assert ddl.write_gate is None  # promoted in this process: the role changes at once
    ddl.create_database("mine")
    ddl.close()
    assert "mine" in replica.catalog.backend.databases
    reopened = replica.open()
    assert reopened.write_gate is None
    reopened.close()


def test_a_definitions_fingerprint_does_not_depend_on_the_order_the_metastore_lists_its_maps_in():
    from ddl_log.replication.snapshot import TableCopy

    first = '{"table": "{\\"9\\": {\\"map\\": [\\"str\\", \\"str\\", 2, {\\"a\\": \\"1\\", \\"b\\": \\"2\\"}]}}"}'
    second = '{"table": "{\\"9\\": {\\"map\\": [\\"str\\", \\"str\\", 2, {\\"b\\": \\"2\\", \\"a\\": \\"1\\"}]}}"}'
    changed = first.replace('\\"2\\"}', '\\"3\\"}')
    name = TableName.of("d2.t")
    assert TableCopy(name, first, "/x").fingerprint == TableCopy(name, second, "/x").fingerprint
    assert TableCopy(name, first, "/x").fingerprint != TableCopy(name, changed, "/x").fingerprint
