"""Every atomic statement, on the in-memory catalog, crashed at every point it passes: after recovery the catalog
is exactly as before the statement (and nothing is binlogged) or exactly as after it (and it is binlogged once,
flagged when recovery wrote the event); no chain is left active; a second recovery changes nothing.

The same sweeps run on real Spark in tests/spark; these cover the log's logic fast and exhaustively."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from ddl_log import (
    AtomicDDL,
    CatalogError,
    InvalidDefinitionError,
    NoSuchObjectError,
    ObjectExistsError,
    StatementFailedError,
)
from ddl_log.engine.alter_ops import (
    AddColumns,
    AddPartition,
    ChangeColumnType,
    ColumnComment,
    DropColumns,
    DropPartition,
    SetProperties,
    UnsetProperties,
)
from storage.catalogs.interface import HIVE_DEFAULT_PARTITION, TAG_PROPERTY, FunctionDefinition, ViewDefinition
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit


def tn(text: str) -> TableName:
    return TableName.of(text)


def populated_catalog() -> Catalog:
    catalog = memory_catalog()
    catalog.backend.add_user_table(tn("a"), ("x",), [(1,), (2,)])
    catalog.backend.add_user_table(tn("b"), ("y",), [(3,)])
    catalog.backend.views[tn("v1")] = ViewDefinition("SELECT 1 AS one")
    catalog.backend.functions[tn("f1")] = FunctionDefinition(class_name="com.example.F1")
    catalog.backend.tables[tn("a")].properties["team"] = "alice"
    catalog.backend.add_user_table(tn("p"), ("v", "w", "day"), [(1, "w1", "x")])
    catalog.backend.tables[tn("p")].partitioned_by = ("day",)
    catalog.backend.tables[tn("p")].partitions.append({"day": "x"})
    catalog.backend.add_user_table(tn("q"), ("v", "k"), [(1, "1"), (2, "2"), (3, None), (4, "1")])
    catalog.backend.tables[tn("q")].partitioned_by = ("k",)
    catalog.backend.tables[tn("q")].partitions.extend({"k": k} for k in ("1", "2", HIVE_DEFAULT_PARTITION, "5"))
    catalog.backend.add_user_table(tn("r"), ("v", "a", "b"), [(1, "1", "x"), (2, "1", "y"), (3, "2", "x")])
    catalog.backend.tables[tn("r")].partitioned_by = ("a", "b")
    catalog.backend.tables[tn("r")].partitions.extend([{"a": "1", "b": "x"}, {"a": "1", "b": "y"}, {"a": "2",
                                                                                                    "b": "x"}])
    catalog.backend.databases.add("d2")
    catalog.backend.add_user_table(tn("d2.t"), ("z",), [(9,)])
    catalog.backend.views[tn("d2.v")] = ViewDefinition("SELECT 2")
    catalog.backend.functions[tn("d2.f")] = FunctionDefinition(class_name="com.example.F")
    return catalog


def catalog_state(catalog: Catalog) -> tuple[Any, ...]:
    tables = {
        str(n): (
            t.columns,
            tuple(t.rows),
            sorted(t.types.items()),
            sorted(t.comments.items()),
            sorted(t.properties.items()),
            [sorted(p.items()) for p in t.partitions],
        )
        for n, t in sorted(catalog.backend.tables.items())
    }
    return (
        tables,
        dict(sorted((str(k), untagged(v)) for k, v in catalog.backend.views.items())),
        dict(sorted((str(k), v) for k, v in catalog.backend.functions.items())),
        sorted(catalog.backend.databases),
        sorted(map(str, catalog.backend.leftovers)),
    )


def untagged(view: ViewDefinition) -> ViewDefinition:
    """A view without its identity tag (a table's tag is not in its compared state either): each run tags anew."""
    return attrs.evolve(view, properties=tuple((k, v) for k, v in view.properties if k != TAG_PROPERTY))


NEW_ROWS = MemoryTable("", ("n",), [(7,), (8,)])


def aside(ddl: AtomicDDL) -> AtomicDDL:
    """``ddl`` on a catalog that cannot name a job's files: INSERT INTO writes aside and moves its files in."""
    ddl.catalog.backend.swap.jobs_named = False  # type: ignore[attr-defined]
    return ddl

STATEMENTS: dict[str, Callable[[AtomicDDL], Any]] = {
    "create_or_replace": lambda d: d.create_or_replace_table("a", df=NEW_ROWS),
    "create_table_as_select": lambda d: d.create_table("c", df=NEW_ROWS),
    "create_table_like": lambda d: d.create_table("c", like="a"),
    "rename_one": lambda d: d.rename_tables([("a", "c")]),
    "rename_swap": lambda d: d.rename_tables([("a", "tmp"), ("b", "a"), ("tmp", "b")]),
    "drop_tables": lambda d: d.drop_tables(["a", "b"]),
    "truncate": lambda d: d.truncate_table("a"),
    "truncate_partition": lambda d: d.truncate_table("p", partition={"day": "x"}),
    "insert_overwrite": lambda d: d.insert_overwrite("a", df=NEW_ROWS),
    "insert_overwrite_dynamic": lambda d: d.insert_overwrite(
        "q", df=MemoryTable("", ("v", "k"), [(10, "1"), (11, None)]), overwrite_mode="dynamic"),
    "insert_overwrite_static_spec": lambda d: d.insert_overwrite(
        "q", df=MemoryTable("", ("v",), [(10,)]), partition={"k": "2"}),
    "insert_overwrite_static_partial_spec": lambda d: d.insert_overwrite(
        "r", df=MemoryTable("", ("v", "b"), [(10, "z")]), partition={"a": "1", "b": None}),
    "insert_overwrite_dynamic_mixed_spec": lambda d: d.insert_overwrite(
        "r", df=MemoryTable("", ("v", "b"), [(10, "x")]), partition={"a": "1", "b": None}, overwrite_mode="dynamic"),
    "insert_into": lambda d: d.insert_into("a", df=NEW_ROWS),
    "insert_into_partitions": lambda d: d.insert_into(
        "q", df=MemoryTable("", ("v", "k"), [(10, "1"), (11, "9"), (12, None)])),
    "insert_into_static_partition": lambda d: d.insert_into("q", df=MemoryTable("", ("v",), []), partition={"k": "8"}),
    "insert_into_aside": lambda d: aside(d).insert_into("a", df=NEW_ROWS),
    "insert_into_partitions_aside": lambda d: aside(d).insert_into(
        "q", df=MemoryTable("", ("v", "k"), [(10, "1"), (11, "9"), (12, None)])),
    "drop_database_cascade": lambda d: d.drop_database("d2", cascade=True),
    "create_database": lambda d: d.create_database("d3"),
    "create_view": lambda d: d.create_view("v2", as_select="SELECT 2"),
    "create_or_replace_view": lambda d: d.create_view("v1", as_select="SELECT 3", or_replace=True),
    "alter_view": lambda d: d.alter_view("v1", as_select="SELECT 4"),
    "rename_view": lambda d: d.rename_view("v1", "v3"),
    "alter_view_set_properties": lambda d: d.alter_view_properties("v1", set={"k": "v"}),
    "drop_views": lambda d: d.drop_views(["v1"]),
    "create_function": lambda d: d.create_function("f2", class_name="com.example.F2"),
    "replace_function": lambda d: d.create_function("f1", class_name="com.example.F1b", or_replace=True),
    "sql_function": lambda d: d.create_sql_function("f3", params="x INT", returns="INT", body="x + 1"),
    "drop_function": lambda d: d.drop_function("f1"),
    "alter_set_properties": lambda d: d.alter_table("a", SetProperties({"team": "bob", "new": "1"})),
    "alter_unset_properties": lambda d: d.alter_table("a", UnsetProperties(("team",))),
    "alter_column_comment": lambda d: d.alter_table("a", ColumnComment("x", "the x")),
    "alter_add_columns": lambda d: d.alter_table("a", AddColumns("c STRING, d INT")),
    "alter_add_partition": lambda d: d.alter_table("p", AddPartition({"day": "y"})),
    "alter_drop_partition": lambda d: d.alter_table("p", DropPartition({"day": "x"})),
    "alter_add_partitions": lambda d: d.alter_table("p", AddPartition([{"day": "y"}, {"day": "z"}])),
    "alter_drop_partitions": lambda d: d.alter_table("p", DropPartition([{"day": "x"}, {"day": "y"}],
                                                                        if_exists=True)),
    "alter_change_type": lambda d: d.alter_table("a", ChangeColumnType("x", "BIGINT")),
    "alter_drop_column": lambda d: d.alter_table("p", DropColumns(("v",))),
    "restore_version": lambda d: d.restore_table("a", version=d.describe_history("a").rows[1].version),
    "restore_partitioned": lambda d: d.restore_table("q", version=d.describe_history("q").rows[1].version),
    "undrop": lambda d: d.undrop_table("b"),
    "create_over_dropped": lambda d: d.create_table("b", like="a"),
    "rename_over_dropped": lambda d: d.rename_tables([("a", "b")]),
    "view_becomes_table": lambda d: d.replace_as_table("v1", df=NEW_ROWS),
    "table_becomes_view": lambda d: d.replace_as_view("a", as_select="SELECT 5 AS five"),
}

PREPARE: dict[str, Callable[[AtomicDDL], Any]] = {
    "restore_version": lambda d: d.create_or_replace_table("a", df=NEW_ROWS),
    "restore_partitioned": lambda d: d.insert_overwrite("q", df=MemoryTable("", ("v", "k"), [(10, "7")])),
    "undrop": lambda d: d.drop_tables(["b"]),
    "create_over_dropped": lambda d: d.drop_tables(["b"]),  # its version holds b's directory: it moves aside
    "rename_over_dropped": lambda d: d.drop_tables(["b"]),
}
"""What the world holds before a statement that needs a kept version (run once, before the sweep's snapshot)."""


class World:
    def __init__(self, home: str, binlog: bool, statement: str | None = None) -> None:
        self.home, self.binlog = home, binlog
        self.catalog = populated_catalog()
        self.prepared = 0
        """Binlog events of the preparation (the sweep counts the statement's own after them)."""
        if statement in PREPARE:
            with self.open() as ddl:
                PREPARE[statement](ddl)
                self.prepared = len(ddl.binlog_events())

    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.home, catalog=self.catalog, binlog=self.binlog, compact_bytes=0)


def expected_states(tmp_path, name: str, binlog: bool) -> tuple[Any, Any]:
    world = World(str(tmp_path / "expected"), binlog, name)
    before = catalog_state(world.catalog)
    ddl = world.open()
    STATEMENTS[name](ddl)
    ddl.close()
    return before, catalog_state(world.catalog)


@pytest.mark.parametrize("binlog", [True, False], ids=["binlog", "no-binlog"])
@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_every_crash_point_recovers_to_before_or_after(tmp_path, name, binlog):
    before, after = expected_states(tmp_path, name, binlog)
    assert before != after
    points = crashkit.trace(World(str(tmp_path / "trace"), binlog, name).open, STATEMENTS[name])
    assert len(points) >= 8
    outcomes = []
    for index, (point, nth) in enumerate(points):
        world = World(str(tmp_path / f"w{index}"), binlog, name)
        assert crashkit.crash_at(world.open, STATEMENTS[name], point, nth)
        ddl = world.open()
        assert ddl.active_chains() == [] and ddl.abandoned_chains() == [], (point, nth)
        events = ddl.binlog_events()[world.prepared:]
        ddl.close()
        state = catalog_state(world.catalog)
        assert state in (before, after), (point, nth)
        outcome = "after" if state == after else "before"
        if binlog:
            assert len(events) == (1 if outcome == "after" else 0), (point, nth, events)
        else:
            assert events == []
        ddl = world.open()  # a second recovery changes nothing
        assert ddl.last_recovery.nothing_to_do
        ddl.close()
        assert catalog_state(world.catalog) == state
        outcomes.append(outcome)
    assert outcomes == sorted(outcomes, key=lambda o: o == "after"), "the commit point must split the sweep"
    assert outcomes[-1] == "after"


def test_a_roll_forward_finished_by_recovery_is_binlogged_as_generated(tmp_path):
    world = World(str(tmp_path), True)
    assert crashkit.crash_at(world.open, STATEMENTS["drop_tables"], "forward.drop_table.after_drop", 1)
    ddl = world.open()
    events = ddl.binlog_events()
    ddl.close()
    assert len(events) == 1 and events[0].generated_by_recovery
    assert "generated by ddl recovery" in events[0].statement
    assert "default.a" not in catalog_state(world.catalog)[0]


FAILURES: dict[str, tuple[Callable[[AtomicDDL], Any], type[Exception]]] = {
    "drop with a missing table drops nothing": (lambda d: d.drop_tables(["a", "missing"]), NoSuchObjectError),
    "drop of a view as a table": (lambda d: d.drop_tables(["v1"]), CatalogError),
    "rename onto an existing table": (lambda d: d.rename_tables([("a", "b")]), ObjectExistsError),
    "rename of a missing table": (lambda d: d.rename_tables([("a", "c"), ("nope", "d")]), NoSuchObjectError),
    "rename across databases": (lambda d: d.rename_tables([("a", "d2.a")]), CatalogError),
    "create an existing table": (lambda d: d.create_table("a", like="b"), ObjectExistsError),
    "create like a missing table": (lambda d: d.create_table("c", like="missing"), NoSuchObjectError),
    "truncate a missing table": (lambda d: d.truncate_table("missing"), NoSuchObjectError),
    "drop a non-empty database without cascade": (lambda d: d.drop_database("d2"), CatalogError),
    "drop a missing database": (lambda d: d.drop_database("nope"), NoSuchObjectError),
    "drop a missing view": (lambda d: d.drop_views(["v1", "nope"]), NoSuchObjectError),
    "drop a table as a view": (lambda d: d.drop_views(["a"]), CatalogError),
    "create an existing view": (lambda d: d.create_view("v1", as_select="SELECT 9"), ObjectExistsError),
    "create a view over a table name": (lambda d: d.create_view("a", as_select="SELECT 9"), ObjectExistsError),
    "alter a missing view": (lambda d: d.alter_view("nope", as_select="SELECT 9"), NoSuchObjectError),
    "drop a missing function": (lambda d: d.drop_function("nope"), NoSuchObjectError),
    "create an existing function": (lambda d: d.create_function("f1", class_name="X"), ObjectExistsError),
    "reserved name": (lambda d: d.create_table("ddllog_1_tmp", like="a"), CatalogError),
    "alter a missing table": (lambda d: d.alter_table("nope", SetProperties({"k": "v"})), NoSuchObjectError),
    "alter a missing column": (lambda d: d.alter_table("a", ColumnComment("nope", "c")), NoSuchObjectError),
    "add an existing column": (lambda d: d.alter_table("a", AddColumns("x INT")), ObjectExistsError),
    "set a property Spark reserves": (lambda d: d.alter_table("a", SetProperties({"owner": "x"})),
                                      InvalidDefinitionError),
    "set a view property Spark reserves": (lambda d: d.alter_view_properties("v1", set={"location": "/x"}),
                                           InvalidDefinitionError),
    "unset a view property Spark reserves": (lambda d: d.alter_view_properties("v1", unset=["owner"]),
                                             InvalidDefinitionError),
    "unset a property of a missing table": (lambda d: d.alter_table("nope", UnsetProperties(("k",))),
                                            NoSuchObjectError),
    "set the reserved tag property": (
        lambda d: d.alter_table("a", SetProperties({"spark_ddl_log.tag": "x"})),
        CatalogError,
    ),
    "drop a partition column": (lambda d: d.alter_table("p", DropColumns(("day",))), CatalogError),
    "drop every data column": (lambda d: d.alter_table("p", DropColumns(("v", "w"))), CatalogError),
    "bad partition spec": (lambda d: d.alter_table("p", AddPartition({"nope": "1"})), CatalogError),
    "partition of an unpartitioned table": (lambda d: d.alter_table("a", AddPartition({"d": "1"})), CatalogError),
    "change to a bad type": (lambda d: d.alter_table("a", ChangeColumnType("x", "NOT_A_TYPE")), CatalogError),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_bad_input_raises_a_typed_error_naming_the_object_and_changes_nothing(tmp_path, case):
    statement, error = FAILURES[case]
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    ddl = world.open()
    log_size = ddl.log.size
    with pytest.raises(error) as raised:
        statement(ddl)
    assert getattr(raised.value, "name", None) is not None
    assert ddl.log.size == log_size, "a refused statement writes nothing to the log"
    assert ddl.binlog_events() == []
    ddl.close()
    assert catalog_state(world.catalog) == before


def test_unsetting_properties_that_are_not_set_does_nothing_as_in_spark_4(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    ddl = world.open()
    log_size = ddl.log.size
    ddl.alter_table("a", UnsetProperties(("nope",)))
    assert ddl.log.size == log_size and ddl.binlog_events() == []
    ddl.close()
    assert catalog_state(world.catalog) == before


def test_a_failure_in_the_middle_of_a_multi_table_rename_undoes_the_renames_already_done(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    world.catalog.backend.fail_on = lambda op, name: op == "rename" and name == tn("b")
    ddl = world.open()
    with pytest.raises(StatementFailedError):
        ddl.rename_tables([("a", "c"), ("b", "d")])
    assert ddl.binlog_events() == [] and ddl.active_chains() == []
    ddl.close()
    assert catalog_state(world.catalog) == before


# ---------------------------------------------------------------------- someone else recreates the name first

NEWCOMER_TABLES = ("a", "b", "c", "p", "tmp", "d2.t")
NEWCOMER_VIEWS = ("v1", "v2", "v3", "d2.v")
NEWCOMER_FUNCTIONS = ("f1", "f2", "f3", "d2.f")
NEWCOMER_DATABASES = ("d2", "d3")


def add_newcomers(catalog: Catalog) -> dict[str, Any]:
    """Another user creates an object under every free name the statements use (between the crash and recovery),
    each unlike the statement's own; returns how each looks, to check that recovery left it exactly so."""
    made: dict[str, Any] = {}
    for db in NEWCOMER_DATABASES:
        if db not in catalog.backend.databases:
            catalog.databases.create_database(db)
            made[f"database {db}"] = lambda db=db: (db in catalog.backend.databases,
                                                    catalog.databases.database_identity(db))
    for text in NEWCOMER_TABLES:
        name = tn(text)
        state = catalog.backend
        if name.db in state.databases and name not in state.tables and name not in state.views:
            catalog.backend.add_user_table(name, ("newcomer",), [("someone else",)])
            made[f"table {name}"] = lambda name=name: (catalog.names.identity(name),
                                                       tuple(catalog.backend.tables[name].rows))
    for text in NEWCOMER_VIEWS:
        name = tn(text)
        state = catalog.backend
        if name.db in state.databases and name not in state.tables and name not in state.views:
            catalog.views.create_view(name, ViewDefinition("SELECT 'someone else'"), replace=False)
            made[f"view {name}"] = lambda name=name: (catalog.views.view_definition(name),
                                                      catalog.views.view_identity(name))
    for text in NEWCOMER_FUNCTIONS:
        name = tn(text)
        if name.db in catalog.backend.databases and name not in catalog.backend.functions:
            catalog.functions.create_function(name, FunctionDefinition(class_name="com.someone.Else"), replace=False)
            made[f"function {name}"] = lambda name=name: catalog.functions.function_definition(name)
    return {what: (look, look()) for what, look in made.items()}


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_recovery_never_touches_an_object_created_under_the_name_after_the_crash(tmp_path, name):
    """Crash at every point, let someone else create objects under every free name, recover: every newcomer is
    exactly as its creator left it (recovery proves identity before it drops, renames or restores anything)."""
    points = crashkit.trace(World(str(tmp_path / "trace"), True, name).open, STATEMENTS[name])
    checked = 0
    for index, (point, nth) in enumerate(points):
        world = World(str(tmp_path / f"w{index}"), True, name)
        assert crashkit.crash_at(world.open, STATEMENTS[name], point, nth)
        newcomers = add_newcomers(world.catalog)
        checked += len(newcomers)
        world.open().close()
        for what, (look, seen) in newcomers.items():
            assert look() == seen, (point, nth, what)
    assert checked > 0
