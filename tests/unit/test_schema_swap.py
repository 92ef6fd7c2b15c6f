"""ALTER SCHEMA a SWAP WITH b on the in-memory catalog: every crash point of a swap of two databases holding tables
in both, a table and a view in one only, views in both (2-3 objects a side) is swept: after recovery the catalog is
exactly as before (nothing binlogged) or exactly swapped (one event), and a second recovery changes nothing. Then
what a swap is (each name holds what the other database's name held; a table in one only moves; a view's text is
kept as written; no file moves) and what it refuses with nothing done."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ddl_log import AtomicDDL, InvalidNameError, NoSuchObjectError, NotAtomicError, StatementFailedError
from ddl_log.errors import NotTransactionalError
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit
from tests.unit.test_statement_sweeps import catalog_state


def tn(text: str) -> TableName:
    return TableName.of(text)


def two_schemas() -> Catalog:
    """blue and green: t1 in both (other columns), t2 in both (partitioned by day), v in both (other text); a table
    only in blue (u), a view only in green (w)."""
    catalog = memory_catalog()
    catalog.backend.databases |= {"blue", "green"}
    catalog.backend.add_user_table(tn("blue.t1"), ("x",), [(1,), (2,)])
    catalog.backend.add_user_table(tn("green.t1"), ("x", "y"), [(10, "ten")])
    for db, rows in (("blue", [(1, "d1")]), ("green", [(2, "d2"), (3, "d3")])):
        catalog.backend.add_user_table(tn(f"{db}.t2"), ("v", "day"), rows)
        catalog.backend.tables[tn(f"{db}.t2")].partitioned_by = ("day",)
        catalog.backend.tables[tn(f"{db}.t2")].partitions.extend({"day": day} for _, day in rows)
    catalog.backend.tables[tn("green.t2")].properties["team"] = "green"
    catalog.backend.add_user_table(tn("blue.u"), ("u",), [(7,)])
    catalog.backend.views[tn("blue.v")] = ViewDefinition("SELECT x FROM blue.t1")
    catalog.backend.views[tn("green.v")] = ViewDefinition("SELECT x FROM green.t1")
    catalog.backend.views[tn("green.w")] = ViewDefinition("SELECT 1 AS w")
    return catalog


class World:
    def __init__(self, home: str, binlog: bool = True) -> None:
        self.home, self.binlog = home, binlog
        self.catalog = two_schemas()

    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.home, catalog=self.catalog, binlog=self.binlog, compact_bytes=0)


def swap(ddl: AtomicDDL) -> Any:
    return ddl.sql("ALTER SCHEMA blue SWAP WITH green")


def swapped(state: tuple[Any, ...]) -> tuple[Any, ...]:
    """``state`` with every blue and green object's name exchanged (what the swap must make)."""
    def other(name: str) -> str:
        db, _, rest = name.partition(".")
        return {"blue": "green", "green": "blue"}.get(db, db) + "." + rest
    tables, views, *rest = state
    return (dict(sorted((other(k), v) for k, v in tables.items())),
            dict(sorted((other(k), v) for k, v in views.items())), *rest)


@pytest.mark.parametrize("binlog", [True, False], ids=["binlog", "no-binlog"])
def test_every_crash_point_of_a_schema_swap_recovers_to_before_or_after(tmp_path, binlog):
    before = catalog_state(two_schemas())
    after = swapped(before)
    points = crashkit.trace(World(str(tmp_path / "trace"), binlog).open, swap)
    assert len(points) >= 20
    def check_events(outcome: str, events: list[Any]) -> None:
        assert len(events) == (1 if binlog and outcome == "after" else 0), (outcome, events)

    outcomes = crashkit.sweep_to_before_or_after(
        points, lambda index: World(str(tmp_path / f"w{index}"), binlog), swap, before, after,
        lambda world: catalog_state(world.catalog), check_events)
    assert {"before", "after"} == {outcome for _, outcome in outcomes}


def test_a_schema_swap_exchanges_every_table_and_view_by_record_and_binlogs_one_event(tmp_path):
    world = World(str(tmp_path))
    catalog = world.catalog
    before = catalog_state(catalog)
    locations = {str(n): catalog.definitions.table_location(n) for n in catalog.backend.tables}
    identities = {str(n): catalog.names.identity(n) for n in catalog.backend.tables}
    with world.open() as ddl:
        result = ddl.swap_schemas("blue", "green")
        assert result.detail == "blue <-> green: 5 tables, 3 views"
        assert [(e.statement, e.txn) for e in ddl.binlog_events()] == [("ALTER SCHEMA `blue` SWAP WITH `green`", None)]
    assert catalog_state(catalog) == swapped(before)
    # no file moved: each table reads the directory it was written in, with its identity
    assert catalog.definitions.table_location(tn("green.u")) == locations["blue.u"]
    assert tn("blue.u") not in catalog.backend.tables
    assert catalog.definitions.table_location(tn("blue.t1")) == locations["green.t1"]
    assert catalog.names.identity(tn("blue.t1")) == identities["green.t1"]
    # a view's text is kept as written: blue.v (green's former view) still reads green.t1, now blue's former table
    assert catalog.views.view_definition(tn("blue.v")).query == "SELECT x FROM green.t1"
    assert tn("green.w") not in catalog.backend.views and tn("blue.w") in catalog.backend.views
    with world.open() as ddl:  # and back: the very state before
        ddl.sql("alter database green swap with blue")
    assert catalog_state(catalog) == before


def test_a_swapped_table_is_replaced_and_dropped_as_any_other(tmp_path):
    world = World(str(tmp_path))
    with world.open() as ddl:
        ddl.swap_schemas("blue", "green")
        ddl.create_or_replace_table("blue.t1", df=MemoryTable("", ("x",), [(5,)]))
        ddl.drop_tables(["green.t1"])
        ddl.swap_schemas("blue", "green")
        assert ddl.active_chains() == []
    tables = world.catalog.backend.tables
    assert tables[tn("green.t1")].rows == [(5,)] and tn("blue.t1") not in tables


@pytest.mark.parametrize(("first", "second", "error"), [
    ("blue", "blue", InvalidNameError),
    ("blue", "missing", NoSuchObjectError),
    ("missing", "green", NoSuchObjectError),
])
def test_bad_names_are_refused_with_nothing_done(tmp_path, first, second, error):
    world = World(str(tmp_path))
    before = catalog_state(world.catalog)
    with world.open() as ddl:
        with pytest.raises(error):
            ddl.sql(f"ALTER SCHEMA {first} SWAP WITH {second}")
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert catalog_state(world.catalog) == before


@pytest.mark.parametrize("spoil", ["function", "external", "table_and_view", "partition_columns"])
def test_an_object_the_swap_cannot_carry_refuses_the_whole_swap_with_nothing_done(tmp_path, spoil):
    world = World(str(tmp_path))
    catalog = world.catalog
    if spoil == "function":
        catalog.backend.functions[tn("green.f")] = FunctionDefinition(class_name="com.example.F")
    elif spoil == "external":
        catalog.backend.tables[tn("blue.u")].external = True
    elif spoil == "table_and_view":
        catalog.backend.views[tn("green.u")] = ViewDefinition("SELECT 1 AS u")
    else:
        catalog.backend.tables[tn("green.t2")].partitioned_by = ("v",)
    before = catalog_state(catalog)
    with world.open() as ddl:
        with pytest.raises(NotAtomicError):
            ddl.swap_schemas("blue", "green")
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert catalog_state(catalog) == before


def test_a_failing_catalog_call_mid_swap_undoes_every_exchange(tmp_path):
    world = World(str(tmp_path))
    before = catalog_state(world.catalog)
    world.catalog.backend.fail_on = lambda operation, name: operation == "drop" and name == tn("blue.u")
    with world.open() as ddl:
        with pytest.raises(StatementFailedError):
            ddl.swap_schemas("blue", "green")
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert catalog_state(world.catalog) == before


def test_a_schema_swap_is_a_transaction_of_its_own(tmp_path):
    world = World(str(tmp_path))
    before = catalog_state(world.catalog)
    with world.open() as ddl, pytest.raises(NotTransactionalError):
        ddl.sql("START TRANSACTION; TRUNCATE TABLE blue.t1; ALTER SCHEMA blue SWAP WITH green; COMMIT")
    assert catalog_state(world.catalog) == before


def test_two_drivers_swapping_the_same_schemas_in_opposite_orders_never_deadlock(tmp_path):
    """Both databases are locked in one sorted order, whichever is named first: two threads' swaps take turns."""
    world = World(str(tmp_path))
    before = catalog_state(world.catalog)
    errors: list[BaseException] = []
    with world.open() as ddl:
        def swap_many(first: str, second: str) -> None:
            try:
                for _ in range(5):
                    ddl.swap_schemas(first, second)
            except BaseException as error:  # noqa: BLE001 - reported by the assertion below
                errors.append(error)

        threads = [threading.Thread(target=swap_many, args=pair) for pair in (("blue", "green"), ("green", "blue"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads) and errors == []
        assert len(ddl.binlog_events()) == 10
    assert catalog_state(world.catalog) == before  # an even number of swaps


def test_a_new_table_under_a_name_whose_directory_another_table_reads_after_a_swap_gets_a_directory_of_its_own(
        tmp_path):
    """green.u reads blue.u's default directory after the swap: a new blue.u (which plain Spark refuses with
    LOCATION_ALREADY_EXISTS) is made at a directory of its own, green.u whole and its directory untouched."""
    world = World(str(tmp_path))
    with world.open() as ddl:
        ddl.swap_schemas("blue", "green")
        tables = world.catalog.backend.tables
        rows, location = list(tables[tn("green.u")].rows), world.catalog.definitions.table_location(tn("green.u"))
        ddl.create_or_replace_table("blue.u", df=MemoryTable("", ("u",), [(1,)]))
        assert tables[tn("blue.u")].rows == [(1,)] and tables[tn("green.u")].rows == rows
        assert world.catalog.definitions.table_location(tn("green.u")) == location
        assert world.catalog.definitions.table_location(tn("blue.u")) != location
        ddl.create_or_replace_table("green.t1", df=MemoryTable("", ("x",), [(1,)]))
