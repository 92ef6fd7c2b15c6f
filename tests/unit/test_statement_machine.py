"""The statement machine (replace_table/machine.py): a plan's path is chosen by conditions on its transitions, every
step is bracketed by its own crash points, and the commit is a phase a caller can run apart (what a transaction of
several statements will do): prepared, nothing is committed and everything can still be undone; committed, the
statement stands; retired, it is whole. (Every statement's crash sweep: test_statement_sweeps.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from actions.errors import StatementFailedError
from chains.entries import ChainState
from ddl_log import AtomicDDL, ConcurrentChangeError
from replace_table.machine import Plan, Step
from replace_table.plans import forward, kind_change, release, replace, restore, undo
from replace_table.plans.replace import replace_machine
from storage import crashpoints
from storage.catalogs.interface import TableSpec, ViewDefinition
from storage.catalogs.memory import memory_catalog
from tests.unit.test_statement_sweeps import NEW_ROWS, catalog_state, populated_catalog, tn

A = tn("a")
PLANS: list[Plan[Any]] = [replace.REPLACE, kind_change.KIND_CHANGE, release.RELEASE, restore.RESTORE, restore.UNDROP,
                          undo.RENAME, undo.CREATE_VIEW, forward.DROP_TABLES]


@pytest.fixture
def world(tmp_path):
    catalog = populated_catalog()
    ddl = AtomicDDL(home=str(tmp_path / "home"), catalog=catalog)
    yield catalog, ddl
    ddl.close()


def steps_passed(recorded: list[str], plan: Plan[Any]) -> list[str]:
    """The steps of ``plan`` a run went through, in order, read from the crash points it passed."""
    return [name.split(".")[1] for name in recorded if name.startswith(f"{plan.prefix}.") and name.endswith(".before")]


@pytest.mark.parametrize(("swap", "table", "expected"), [
    (True, "a", ["log_tmp", "create_tmp", "fill_tmp", "log_swap", "exchange", "commit", "retire"]),
    (False, "a", ["log_tmp", "create_tmp", "fill_tmp", "log_rename", "move_orig", "log_kept", "log_orig_create",
                  "install", "commit", "drop_backup"]),
    (True, "new", ["log_tmp", "create_tmp", "fill_tmp", "log_orig_create", "install", "commit", "forget_tmp"]),
], ids=["swap", "rename", "create"])
def test_the_path_is_chosen_by_the_conditions_of_the_transitions(world, swap, table, expected):
    catalog, ddl = world
    catalog.backend.swap.enabled = swap
    with crashpoints.recording() as passed:
        ddl.create_or_replace_table(table, df=NEW_ROWS)
    assert steps_passed(passed, replace.REPLACE) == expected


def test_truncate_takes_the_empty_path_without_a_tmp_table(world):
    _, ddl = world
    with crashpoints.recording() as passed:
        assert ddl.truncate_table("a").path == "empty"
    assert steps_passed(passed, replace.REPLACE) == ["log_tmp", "log_swap", "exchange", "commit", "retire"]


def test_a_create_over_a_dropped_table_moves_no_kept_version(world):
    """The new table is created with its work table's definition, at the work table's directory: the dropped
    version at the name's directory stays where it is (no name-hold pre-flight, no move)."""
    catalog, ddl = world
    ddl.drop_tables(["b"])
    [dropped] = ddl.show_tables_dropped().rows
    with crashpoints.recording() as passed:
        ddl.create_table("b", like="a")
    steps = steps_passed(passed, replace.REPLACE)
    assert "free_name" not in steps and steps[-1] == "forget_tmp"
    assert not [name for name in passed if name.startswith("relocate_version.")]
    assert ddl.show_tables_dropped().rows == (dropped,)
    assert catalog.definitions.table_location(tn("b")) != dropped.location


def test_a_prepared_statement_is_not_committed_and_its_revert_leaves_nothing(world):
    catalog, ddl = world
    before = catalog_state(catalog)
    machine = replace_machine(ddl.context(), A, TableSpec(df=NEW_ROWS), "CREATE OR REPLACE TABLE a")
    machine.prepare()
    assert machine.state == "exchange"  # ORIG holds the new definition: only the commit is left
    chain_c = machine.log.chain_c
    assert chain_c is not None and ddl.log.chain(chain_c).state is ChainState.ACTIVE
    assert ddl.binlog_events() == []
    with pytest.raises(StatementFailedError):
        machine.revert(RuntimeError("the transaction was rolled back"))
    assert machine.state == "rolled_back"
    assert catalog_state(catalog) == before and ddl.active_chains() == [] and ddl.binlog_events() == []


@pytest.mark.parametrize(("table", "built", "published"), [
    ("a", "log_swap", "exchange"), ("new", "fill_tmp", "install")], ids=["swap", "create"])
def test_build_stops_before_the_first_publishing_step_and_publish_runs_the_rest(world, table, built, published):
    """What a transaction runs as a statement arrives (``build``: the new version made aside, nothing of it seen) and
    at COMMIT (``publish``: the name pointed at it)."""
    catalog, ddl = world
    before = catalog_state(catalog)
    machine = replace_machine(ddl.context(), tn(table), TableSpec(df=NEW_ROWS), f"CREATE OR REPLACE TABLE {table}")
    machine.build()
    assert machine.state == built
    seen = catalog_state(catalog)
    assert {name: value for name, value in seen[0].items() if "ddllog" not in name} == before[0]
    machine.publish()
    assert machine.state == published and catalog_state(catalog)[0][f"default.{table}"][0] == ("n",)
    machine.commit()
    machine.retire()
    assert ddl.active_chains() == []


def test_every_publishing_step_begins_a_path_after_the_build():
    """The steps a transaction defers to COMMIT begin each plan's first change of a name others read: a replace's
    definition swap (its log write done before COMMIT, keeping the publish window to the metastore call), the rename
    and create paths from their first log step, an undo statement (RENAME, views) from its first log step."""
    heads = {plan.prefix: [step.name for step in plan.steps if step.publishes] for plan in PLANS}
    assert heads["replace"] == ["exchange", "log_rename", "log_orig_create"]
    assert heads["rename"] == heads["create_view"] == ["log"]


def test_commit_and_retire_run_apart_as_the_whole_run_does(world, tmp_path):
    catalog, ddl = world
    machine = replace_machine(ddl.context(), A, TableSpec(df=NEW_ROWS), "CREATE OR REPLACE TABLE a")
    machine.prepare()
    event = machine.commit()
    assert event is not None and [e.xid for e in ddl.binlog_events()] == [machine.log.xid]
    assert machine.state == "commit" and ddl.active_chains() != []  # D: TMP still to forget
    machine.retire()
    assert machine.state == "retire" and ddl.active_chains() == []

    whole = populated_catalog()
    with AtomicDDL(home=str(tmp_path / "whole"), catalog=whole) as other:
        other.create_or_replace_table("a", df=NEW_ROWS)
    assert catalog_state(catalog)[0]["default.a"] == catalog_state(whole)[0]["default.a"]


def test_every_step_of_every_plan_has_its_crash_points_declared_on_import():
    declared = set(crashpoints.names())
    for plan in PLANS:
        for step in plan.steps:
            if step.points:
                assert {f"{plan.prefix}.{step.name}.before", f"{plan.prefix}.{step.name}.after"} <= declared


@pytest.mark.parametrize("steps", [
    [Step("log", "log", print), Step("log", "commit", print)],
    [Step("log", "log", print), Step("do", "act", print)],
], ids=["a step named twice", "no commit"])
def test_a_plan_is_refused_unless_each_step_is_named_once_and_it_commits_once(steps):
    with pytest.raises(ValueError, match="one commit step"):
        Plan("test_refused_plan", steps)


def test_a_refusal_inside_a_step_undoes_what_the_steps_before_it_made(tmp_path):
    """The kind change's refusal (a catalog that cannot exchange kinds in one call) comes once TMP exists."""
    catalog = memory_catalog(swap=False)
    catalog.backend.add_user_table(A, ("x",), [(1,)])
    before = catalog_state(catalog)
    with AtomicDDL(home=str(tmp_path / "home"), catalog=catalog) as ddl:
        with pytest.raises(Exception, match="kind"):
            ddl.replace_as_view("a", as_select="SELECT 1 AS one")
        assert ddl.active_chains() == [] and ddl.binlog_events() == []
    assert catalog_state(catalog) == before
    assert not [name for name in (*catalog.backend.tables, *catalog.backend.views) if name.is_reserved]


@pytest.mark.parametrize("direction", ["table into a view", "view into a table"])
@pytest.mark.parametrize("newcomer", ["table", "view", "none"])
def test_a_relation_someone_puts_under_the_name_while_a_change_of_kind_runs_is_never_touched(
        tmp_path, direction, newcomer):
    """While the new relation is built (a CTAS's job), a writer outside the log drops ORIG and makes its own
    relation under the name: the exchange sees another relation (or none) and the statement fails with
    ConcurrentChangeError, that relation untouched, nothing of the statement left."""
    catalog = populated_catalog()
    name = tn("a") if direction == "table into a view" else tn("v1")

    def outside_writer() -> None:
        catalog.backend.tables.pop(name, None)
        catalog.backend.views.pop(name, None)
        catalog.backend.view_ids.pop(name, None)  # as the in-memory catalog's DROP VIEW forgets it
        if newcomer == "table":
            catalog.backend.add_user_table(name, ("who",), [("someone else",)])
        elif newcomer == "view":
            catalog.backend.views[name] = ViewDefinition("SELECT 'someone else' AS who")

    with AtomicDDL(home=str(tmp_path / "home"), catalog=catalog) as ddl:
        with crashpoints.acting("kind_change.exchange.before", outside_writer), \
                pytest.raises(StatementFailedError) as raised:
            if direction == "table into a view":
                ddl.replace_as_view(str(name), as_select="SELECT 1 AS one")
            else:
                ddl.replace_as_table(str(name), as_select="SELECT 1 AS one")
        assert isinstance(raised.value.cause, ConcurrentChangeError), raised.value
        assert ddl.active_chains() == [] and ddl.binlog_events() == []
        after = catalog_state(catalog)
    kept = {key for key in (*catalog.backend.tables, *catalog.backend.views) if key == name}
    assert kept == (set() if newcomer == "none" else {name})
    if newcomer == "table":
        assert catalog.backend.tables[name].rows == [("someone else",)]
    elif newcomer == "view":
        assert catalog.backend.views[name].query == "SELECT 'someone else' AS who"
    assert not [n for n in (*catalog.backend.tables, *catalog.backend.views) if n.is_reserved], after
