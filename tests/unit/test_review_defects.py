"""Regression tests for the defects an outside review found (issue 12), on the in-memory catalog: each failed on the
code before its fix. Spark-only ones (current catalog, temporary views, partition overwrite modes) are in tests/spark;
the record-file ones (binlog rotation, torn tails) in tests/unit/test_record_defects.py."""

from __future__ import annotations

import threading
import warnings

import attrs
import pytest

from actions.context import ActionContext
from actions.errors import CommittedWithPendingWorkWarning
from actions.kinds import KINDS, kind_of
from actions.kinds.alter_table import AlterTablePayload, PartitionChange
from actions.kinds.create_table import log_create_table
from actions.kinds.drop_table import DropTablePayload
from actions.kinds.kind import payload_of
from actions.replay import replay_chain
from chains.codec import action_from_wire, action_to_wire
from chains.entries import ActionEntry, ActionType, ChainKind
from chains.errors import PayloadError
from chains.lock_keys import object_key
from ddl_log import AtomicDDL, StatementFailedError
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.errors import CatalogError, StorageError
from tests import crashkit
from tests.unit.payload_samples import sample_payload
from tests.unit.test_statement_sweeps import World, catalog_state, tn


def crash_after_action(world: World, statement, action_type: ActionType) -> None:
    """Crash right after the statement's first ``action_type`` action ran, before its FINAL phase was logged."""
    ran: list[ActionType] = []
    original = kind_of(action_type)
    kinds = dict(KINDS)

    def spying(kind: ActionType):
        def spy(action, ctx):
            kinds[kind].execute(action, ctx)
            ran.append(kind)
        return spy

    KINDS.update({t: attrs.evolve(KINDS[t], execute=spying(t)) for t in ActionType})
    try:
        crashkit.trace(World(world.home + "-trace", world.binlog).open, statement)
    finally:
        KINDS.update(kinds)
    assert original is KINDS[action_type] and action_type in ran
    assert crashkit.crash_at(world.open, statement, "replay.after_action", ran.index(action_type) + 1)


# ---------------------------------------------------------------------------------------------------- defect 1


def test_defect1_recovery_of_drop_view_leaves_a_view_recreated_with_the_same_text(tmp_path):
    world = World(str(tmp_path / "h"), True)
    crash_after_action(world, lambda d: d.drop_views(["v1"]), ActionType.DROP_VIEW)
    assert tn("v1") not in world.catalog.backend.views
    world.catalog.views.create_view(tn("v1"), ViewDefinition("SELECT 1 AS one"), replace=False)  # same text, new view
    ddl = world.open()
    events = ddl.binlog_events()
    assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
    ddl.close()
    assert world.catalog.backend.views[tn("v1")] == ViewDefinition("SELECT 1 AS one")
    assert len(events) == 1 and events[0].generated_by_recovery


def test_defect1_recovery_of_drop_function_leaves_a_function_recreated_under_the_name(tmp_path):
    world = World(str(tmp_path / "h"), True)
    crash_after_action(world, lambda d: d.drop_function("f1"), ActionType.DROP_FUNCTION)
    newcomer = FunctionDefinition(class_name="com.someone.Else")
    world.catalog.functions.create_function(tn("f1"), newcomer, replace=False)
    world.open().close()
    assert world.catalog.backend.functions[tn("f1")] == newcomer


def test_defect1_recovery_of_drop_database_leaves_an_empty_database_recreated_under_the_name(tmp_path):
    world = World(str(tmp_path / "h"), True)
    crash_after_action(world, lambda d: d.drop_database("d2", cascade=True), ActionType.DROP_DB)
    world.catalog.databases.create_database("d2")
    ddl = world.open()
    assert len(ddl.binlog_events()) == 1
    ddl.close()
    assert "d2" in world.catalog.backend.databases


def test_defect1_a_database_recreated_with_tables_does_not_make_the_committed_drop_fail_or_go_unbinlogged(tmp_path):
    world = World(str(tmp_path / "h"), True)
    crash_after_action(world, lambda d: d.drop_database("d2", cascade=True), ActionType.DROP_DB)
    world.catalog.databases.create_database("d2")
    world.catalog.backend.add_user_table(tn("d2.mine"), ("x",), [(1,)])
    for _ in range(4):
        ddl = world.open()
        assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
        events = ddl.binlog_events()
        ddl.close()
    assert len(events) == 1 and "DROP DATABASE" in events[0].statement
    assert "d2" in world.catalog.backend.databases and world.catalog.backend.tables[tn("d2.mine")].rows == [(1,)]


# ---------------------------------------------------------------------------------------------------- defect 2


def pause_inside(world: World, operation: str, table: str) -> tuple[threading.Event, threading.Event]:
    """Make the catalog stop inside ``operation`` on ``table`` until released (a statement caught mid-way)."""
    inside, release = threading.Event(), threading.Event()

    def hook(op: str, name) -> bool:
        if op == operation and name.name == table and not inside.is_set():
            inside.set()
            assert release.wait(10)
        return False

    world.catalog.backend.fail_on = hook
    return inside, release


def run_beside(ddl: AtomicDDL, statement, inside: threading.Event, release: threading.Event):
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["result"] = statement(ddl)
        except Exception as exc:  # noqa: BLE001 - reported to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    assert inside.wait(10)
    report = ddl.recover()
    release.set()
    thread.join(10)
    return report, outcome


def test_defect2_recover_beside_a_running_drop_leaves_its_chain_to_it(tmp_path):
    world = World(str(tmp_path), True)
    inside, release = pause_inside(world, "drop", "a")
    ddl = world.open()
    report, outcome = run_beside(ddl, lambda d: d.drop_tables(["a"]), inside, release)
    assert [o.outcome for o in report.outcomes] in ([], ["skipped"])
    assert "error" not in outcome
    events = ddl.binlog_events()
    assert len(events) == 1 and not events[0].generated_by_recovery
    assert ddl.active_chains() == []
    ddl.close()


def test_defect2_recover_beside_a_running_insert_overwrite_does_not_roll_it_back(tmp_path):
    world = World(str(tmp_path), True)
    ddl = world.open()
    new_rows = world.catalog.backend.tables[tn("b")]
    inside, release = pause_inside_reserved(world, "insert")
    report, outcome = run_beside(ddl, lambda d: d.insert_overwrite("a", df=new_rows), inside, release)
    assert "error" not in outcome, outcome.get("error")
    assert [o.outcome for o in report.outcomes] in ([], ["skipped"])
    ddl.close()
    assert world.catalog.backend.tables[tn("a")].rows == new_rows.rows


def pause_inside_reserved(world: World, operation: str) -> tuple[threading.Event, threading.Event]:
    """As :func:`pause_inside`, on the statement's TMP table (a reserved name)."""
    inside, release = threading.Event(), threading.Event()

    def hook(op: str, name) -> bool:
        if op == operation and name.is_reserved and not inside.is_set():
            inside.set()
            assert release.wait(10)
        return False

    world.catalog.backend.fail_on = hook
    return inside, release


def test_defect2_recover_waits_for_the_locks_of_a_chain_left_by_a_failed_rollback(tmp_path):
    """A chain no statement owns any more is replayed under its objects' locks, never beside a statement on them."""
    world = World(str(tmp_path), True)
    ddl = world.open()
    holding, release = threading.Event(), threading.Event()
    log_create_table(ddl.log, ddl.log.new_chain(ChainKind.UNDO, "CREATE TABLE c"), tn("c"), "never-made",
                     owns_location=False)

    def hold_c() -> None:
        with ddl.locks.hold([object_key(tn("c"))]):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold_c)
    thread.start()
    assert holding.wait(10)
    recovered = threading.Event()
    recoverer = threading.Thread(target=lambda: (ddl.recover(), recovered.set()))
    recoverer.start()
    assert not recovered.wait(0.5), "recovery ran the chain while another statement held its object"
    release.set()
    thread.join(10)
    assert recovered.wait(10)
    recoverer.join(10)
    assert ddl.active_chains() == []
    ddl.close()


# ---------------------------------------------------------------------------------------------------- defect 6


def test_defect6_drop_tables_with_a_persistent_error_on_one_binlogs_what_it_dropped(tmp_path):
    world = World(str(tmp_path), True)
    world.catalog.backend.fail_on = lambda op, name: op == "drop" and name == tn("b")
    ddl = world.open()
    with pytest.raises(StatementFailedError) as raised:
        ddl.drop_tables(["a", "b"])
    assert raised.value.completed == ("default.a",) and raised.value.name == "default.b"
    assert isinstance(raised.value.cause, CatalogError)
    events = ddl.binlog_events()
    assert [e.statement for e in events] == ["DROP TABLE `default`.`a`"]
    assert events[0].objects == ("default.a",)
    assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
    ddl.close()
    assert tn("a") not in world.catalog.backend.tables and tn("b") in world.catalog.backend.tables
    ddl = world.open()
    assert ddl.last_recovery.nothing_to_do and len(ddl.binlog_events()) == 1
    ddl.close()


def test_a_drop_whose_only_object_fails_changes_nothing_and_binlogs_nothing(tmp_path):
    world = World(str(tmp_path), True)
    before = catalog_state(world.catalog)
    world.catalog.backend.fail_on = lambda op, name: op == "drop_view"
    ddl = world.open()
    with pytest.raises(StatementFailedError) as raised:
        ddl.drop_views(["v1"])
    assert raised.value.completed == ()
    assert ddl.binlog_events() == [] and ddl.active_chains() == []
    ddl.close()
    assert catalog_state(world.catalog) == before


# ---------------------------------------------------------------------------------------------------- also fixed


@pytest.mark.parametrize("action_type", list(ActionType), ids=lambda t: t.value)
def test_every_action_type_has_a_whole_kind_and_a_payload_that_round_trips(action_type):
    """One home per action type: phases, payload, executor, description, lock scope and its log helper."""
    kind = kind_of(action_type)
    assert kind.type is action_type and kind.phases and callable(kind.execute) and callable(kind.describe)
    assert kind.locks in ("object", "function", "database", "none") and callable(kind.log)
    payload = sample_payload(action_type)
    assert type(payload) is kind.payload
    entry = ActionEntry(3, 1, action_type, name=tn("t"), tag="x", payload=payload.to_wire())
    assert action_from_wire(action_to_wire(entry)) == entry
    assert payload_of(entry, kind.payload) == payload
    assert kind.describe(entry)


@pytest.mark.parametrize("action_type", [t for t in ActionType if t is not ActionType.FORGET_TABLE],
                         ids=lambda t: t.value)
def test_a_payload_missing_a_field_is_an_error_never_a_default(action_type):
    wire = sample_payload(action_type).to_wire()
    optional = getattr(kind_of(action_type).payload, "OPTIONAL", ())  # read as absent in logs written before them
    for key in (key for key in wire if key not in optional):
        broken = ActionEntry(3, 1, action_type, payload={k: v for k, v in wire.items() if k != key})
        with pytest.raises(PayloadError):
            payload_of(broken, kind_of(action_type).payload)


def test_a_partition_change_logged_before_several_partitions_per_statement_is_read_as_one_spec():
    """A log written by the version before ADD/DROP PARTITION took several specs holds ``spec``: recovery after an
    upgrade reads it as the one partition it names."""
    old = {"kind": "drop_partition", "spec": [["day", "x"]]}
    entry = ActionEntry(3, 1, ActionType.ALTER_TABLE, name=tn("t"), tag="x", payload=old)
    assert payload_of(entry, AlterTablePayload).change == PartitionChange(False, ((("day", "x"),),))
    several = AlterTablePayload(PartitionChange(True, ((("p", "1"), ("q", "a")), (("p", "2"), ("q", "b")))))
    assert AlterTablePayload.from_wire(several.to_wire()) == several


def test_a_programming_error_in_an_executor_surfaces_instead_of_counting_as_a_failed_try(tmp_path):
    world = World(str(tmp_path), True)
    ddl = world.open()
    position = ddl.log.new_chain(ChainKind.FORWARD, "DROP TABLE a")
    ddl.log.add_action(position, ActionType.DROP_TABLE, name=tn("a"), tag=world.catalog.names.identity(tn("a")),
                       payload=DropTablePayload(keep_files=False))
    original = KINDS[ActionType.DROP_TABLE]
    KINDS[ActionType.DROP_TABLE] = attrs.evolve(original, execute=lambda action, ctx: {}["bug"])
    try:
        with pytest.raises(KeyError):
            replay_chain(ActionContext(world.catalog, ddl.log, ddl.binlog), position, skip_failures=True)
    finally:
        KINDS[ActionType.DROP_TABLE] = original
    assert ddl.log.chain(position).active
    ddl.close()


def test_a_failure_after_the_commit_point_is_reported_and_the_statement_succeeds(tmp_path):
    world = World(str(tmp_path), True)
    ddl = world.open()
    close = ddl.log.close

    def failing_close(position: int) -> None:
        raise StorageError("disk full")

    ddl.log.close = failing_close  # type: ignore[method-assign]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        event = ddl.create_view("v2", as_select="SELECT 2")
    ddl.log.close = close  # type: ignore[method-assign]
    assert [w.category for w in caught] == [CommittedWithPendingWorkWarning]
    assert event.event is not None and event.event.statement.startswith("CREATE VIEW")
    ddl.abandon()
    ddl = world.open()
    assert [o.outcome for o in ddl.last_recovery.outcomes] == ["committed"]
    ddl.close()
    assert tn("v2") in world.catalog.backend.views
