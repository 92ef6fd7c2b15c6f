"""``replica check`` compares every replicated object with the source's at the replica's position (after catching
up): nothing at a consistent replica, and each object that differs named with what differs; objects that source
events after the position touch are listed as pending, never reported as different. ``replica status`` says where
the replica is, its filters, bootstraps, resyncs and promotion, without Spark and without passwords. In-memory
catalog; on Spark with row checksums computed by Spark: test_bootstrap_spark.py."""

from __future__ import annotations

import json

from ddl_log.engine.alter_ops import SetProperties
from storage.catalogs.interface import ViewDefinition
from storage.catalogs.names import TableName
from tests.replication.ops_support import bootstrapped
from tests.replication.test_apply_exactly_once import ddl_log_cli


def test_a_consistent_replica_has_no_difference_and_each_change_by_hand_is_named(tmp_path):
    source, replica = bootstrapped(tmp_path)
    ddl = replica.open()
    report = ddl.replica_check(source_catalog=source.catalog)
    assert report.ok and report.compared == 7 and report.pending == ()  # d2, 2 tables, 2 views, 2 functions
    catalog = replica.catalog
    catalog.backend.tables[TableName.of("d2.t")].rows.append((7,))  # plain Spark INSERT INTO on the replica
    catalog.backend.tables[TableName.of("d2.c")].properties["owner"] = "someone"
    catalog.backend.views[TableName.of("d2.w")] = ViewDefinition("SELECT 1")
    del catalog.backend.functions[TableName.of("d2.g")]
    catalog.backend.add_user_table(TableName.of("d2.extra"), ("z",), [])
    report = ddl.replica_check(source_catalog=source.catalog)
    ddl.close()
    found = {(d.object, d.kind, d.what) for d in report.differences}
    assert found == {("d2.t", "table", "rows"), ("d2.c", "table", "definition"), ("d2.w", "view", "definition"),
                     ("d2.g", "function", "missing on the replica"), ("d2.extra", "table", "only on the replica")}
    assert next(d.detail for d in report.differences if d.object == "d2.c") == "properties.owner"


def test_objects_the_source_changed_after_the_replicas_position_are_pending_not_different(tmp_path):
    source, replica = bootstrapped(tmp_path)
    del replica.catalog.backend.tables[TableName.of("d2.c")]  # by hand: the applier stops at the next event on it
    writer = source.open()
    writer.alter_table("d2.c", SetProperties({"k": "1"}))
    writer.alter_table("d2.t", SetProperties({"k": "2"}))
    writer.close()
    ddl = replica.open()
    report = ddl.replica_check(source_catalog=source.catalog)
    ddl.close()
    assert report.stopped is not None and "d2.c was dropped" in report.stopped
    assert report.pending == ("d2.c", "d2.t") and report.differences == ()


def test_replica_status_says_where_the_replica_is_its_filters_and_what_is_in_progress(tmp_path):
    _, replica = bootstrapped(tmp_path)
    done = ddl_log_cli("--home", replica.path, "replica", "status", "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert (status["applied"], status["source_head"], status["events_behind"]) == (3, 3, 0)
    assert status["databases"] == ["d2"] and status["rewrite"] == {} and not status["promoted"]
    assert not status["bootstrapping"] and status["resyncing"] == []
    ddl = replica.open()
    ddl.replica_promote()
    ddl.close()
    status = json.loads(ddl_log_cli("--home", replica.path, "replica", "status", "--json").stdout)
    assert status["promoted"] and status["promoted_at"] == 3
