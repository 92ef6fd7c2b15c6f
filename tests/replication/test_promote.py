"""Failover: ``promote`` stops a replica at a consistent point and makes it a source whose binlog goes on; the old
source can then follow it, applying only what it lacks and skipping what originated on it (like GTIDs), and is
refused, with the events named, when it committed something the new source lacks. A promotion killed anywhere is
whole or not done. In-memory catalog."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL, DivergedSourceError, ReplicaConfigError, ReplicaPromotedError, ReplicaReadOnlyError
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.replication.position import ReplicaPosition
from storage.catalogs.memory import memory_catalog
from tests import crashkit
from tests.replication.ops_support import Home, catalog_state, origin, source_home

EVERYTHING = ["d2", "default"]


def promoted_pair(tmp_path: Any) -> tuple[Home, Home]:
    """S and its replica R, which applied S's events and was promoted, then committed statements of its own."""
    source = source_home(tmp_path)
    replica = Home(tmp_path / "replica", memory_catalog())
    ddl = replica.open()
    ddl.replica_bootstrap(source.path, databases=EVERYTHING, source_catalog=source.catalog)
    ddl.close()
    writer = source.open()
    writer.alter_table("d2.t", SetProperties({"k": "before the failover"}))
    writer.close()
    ddl = replica.open()
    ddl.replica_of(source.path).apply_available()
    report = ddl.replica_promote()
    assert (report.position, report.already) == (4, False)
    ddl.create_database("d3")
    ddl.create_table("d3.n", like="d2.t")
    ddl.alter_table("d2.t", SetProperties({"k": "after the failover"}))
    ddl.close()
    return source, replica


def test_the_old_source_follows_the_promoted_replica_applying_only_what_it_lacks(tmp_path):
    source, replica = promoted_pair(tmp_path)
    ddl = source.open()
    report = ddl.replica_of(replica.path).apply_available()
    assert report.applied == 3  # R's own three statements; everything R had from S is skipped and recorded
    notes = [e.statement for e in ddl.binlog_events() if "skipped" in e.statement]
    assert any("originated here" in note for note in notes)
    with pytest.raises(ReplicaReadOnlyError):
        ddl.create_database("d4")  # the old source is a replica now
    ddl.close()
    assert catalog_state(source.catalog) == catalog_state(replica.catalog)
    ddl = replica.open()
    with pytest.raises(ReplicaPromotedError, match="promoted at seq 4"):
        ddl.replica_of(source.path)  # the new source no longer follows the old one
    with pytest.raises(ReplicaPromotedError):
        ddl.replica_resync("d2.t", source_catalog=source.catalog)
    ddl.close()
    alone = Home(tmp_path / "alone", memory_catalog()).open()
    with pytest.raises(ReplicaConfigError, match="cannot follow its own binlog"):
        alone.replica_of(str(tmp_path / "alone"))
    alone.close()


def test_an_old_source_that_committed_what_the_new_one_lacks_is_refused_with_those_events_named(tmp_path):
    source, replica = promoted_pair(tmp_path)
    writer = source.open()
    writer.alter_table("d2.c", SetProperties({"lost": "on the failover"}))  # committed after R stopped reading S
    writer.close()
    ddl = source.open()
    with pytest.raises(DivergedSourceError, match=r"#5 .*lost") as refused:
        ddl.replica_of(replica.path)
    assert [seq for seq, _ in refused.value.events] == [5]
    ddl.close()


def test_a_promotion_killed_anywhere_is_whole_or_not_done(tmp_path):
    source = source_home(tmp_path)
    writer = source.open()
    writer.alter_table("d2.t", SetProperties({"k": "1"}))
    writer.close()

    def fresh(name: str) -> Home:
        replica = Home(tmp_path / name, memory_catalog())
        ddl = replica.open()
        ddl.replica_bootstrap(source.path, databases=EVERYTHING, source_catalog=source.catalog, attempts=1)
        ddl.close()
        return replica

    def promote(ddl: AtomicDDL) -> Any:
        return ddl.replica_promote(catch_up=True)

    points = crashkit.trace(fresh("trace").open, promote)
    assert "replica.promote.noted" in {point for point, _ in points}
    for index, (point, nth) in enumerate(points):
        replica = fresh(f"r{index}")
        writer = source.open()  # something to catch up with
        writer.create_table(f"d2.n{index}", like="d2.t")
        writer.close()
        assert crashkit.crash_at(replica.open, promote, point, nth), (point, nth)
        ddl = replica.open()
        position = ReplicaPosition.read(ddl.binlog_events(), origin(source))
        if position.promoted_at is None:
            with pytest.raises(ReplicaReadOnlyError):
                ddl.create_database("mine")
        else:
            ddl.create_database("mine")  # the note is the promotion, whatever the state file says
        report = ddl.replica_promote()
        assert report.already == (position.promoted_at is not None), (point, nth)
        ddl.close()
