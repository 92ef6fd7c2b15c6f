"""ALTER SCHEMA a SWAP WITH b on a replica and in a replayed binlog script (in-memory catalogs): the replica applies
the swap's one event once (its position moves by one; applying again does nothing), and a crash of the applier at
any point leaves it before the swap (position unchanged) or after it (moved by one), never between; ``ddl-log
binlog --sql`` prints the swap, and ``ddl-log sql -f`` replays it once however often it runs; ``--rewrite-db``
renames the swapped databases."""

from __future__ import annotations

from ddl_log import AtomicDDL
from ddl_log.engine.schema_swap import SwapSchemas
from ddl_log.replication.rewrite import rewrite_statement
from storage.catalogs.ports import Catalog
from tests import crashkit
from tests.replication.test_binlog_replay import script_of
from tests.unit.test_schema_swap import swapped, two_schemas
from tests.unit.test_statement_sweeps import catalog_state


def swapped_source(tmp_path) -> str:
    home = str(tmp_path / "source")
    with AtomicDDL(home=home, catalog=two_schemas(), compact_bytes=0) as ddl:
        ddl.sql("ALTER SCHEMA blue SWAP WITH green")
    return home


def test_a_replica_applies_a_schema_swap_once(tmp_path):
    source = swapped_source(tmp_path)
    catalog = two_schemas()
    before = catalog_state(catalog)
    with AtomicDDL(home=str(tmp_path / "replica"), catalog=catalog, compact_bytes=0) as ddl:
        report = ddl.replica_of(source).apply_available()
        assert (report.applied, report.position) == (1, 1)
        assert ddl.replica_of(source).apply_available().applied == 0
        assert [e.statement.endswith("ALTER SCHEMA blue SWAP WITH green") for e in ddl.binlog_events()] == [True]
    assert catalog_state(catalog) == swapped(before)


def test_a_crash_of_the_applier_anywhere_leaves_the_replica_before_or_after_the_swap(tmp_path):
    source = swapped_source(tmp_path)
    before = catalog_state(two_schemas())

    def apply(ddl: AtomicDDL) -> object:
        return ddl.replica_of(source).apply_available()

    points = crashkit.trace(lambda: AtomicDDL(home=str(tmp_path / "trace"), catalog=two_schemas()), apply)
    assert len(points) >= 20
    for index, (point, nth) in enumerate(points):
        catalog, home = two_schemas(), str(tmp_path / f"r{index}")

        def opener(home: str = home, catalog: Catalog = catalog) -> AtomicDDL:
            return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

        assert crashkit.crash_at(opener, apply, point, nth), (point, nth)
        with opener() as ddl:
            position = ddl.replica_of(source).position
            assert (position, catalog_state(catalog)) in ((0, before), (1, swapped(before))), (point, nth)
            ddl.replica_of(source).apply_available()
            assert ddl.replica_of(source).position == 1
        assert catalog_state(catalog) == swapped(before)


def test_binlog_sql_replays_a_schema_swap_once(tmp_path):
    script = script_of(swapped_source(tmp_path))
    assert "ALTER SCHEMA blue SWAP WITH green" in script
    catalog = two_schemas()
    before = catalog_state(catalog)
    with AtomicDDL(home=str(tmp_path / "replay"), catalog=catalog) as ddl:
        assert [r.kind for r in ddl.sql(script)] == ["ddl"]
        assert [r.kind for r in ddl.sql(script)] == ["skipped"]
    assert catalog_state(catalog) == swapped(before)


def test_rewrite_db_renames_both_swapped_databases():
    statement = SwapSchemas.of("blue", "green")
    assert rewrite_statement(statement, {"blue": "b2", "green": "g2"}) == SwapSchemas.of("b2", "g2")
