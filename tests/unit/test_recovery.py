"""Recovery on the in-memory catalog: CREATE OR REPLACE (create chain C + linked drop chain D) crashed at every
point, binlog on and off, ends as "old table, nothing binlogged" or "new table, binlogged once"; a crash anywhere
inside recovery, then recovery again, converges to the same state."""

from __future__ import annotations

import attrs
import pytest

from actions.kept_versions import dropped_tables
from actions.kinds.create_table import CreateTablePayload
from actions.kinds.drop_init import DropInitPayload
from actions.kinds.drop_table import DropTablePayload
from actions.kinds.rename_table import log_rename_table
from actions.kinds.swap_table import SwapTablePayload, log_swap_table
from chains.binlog import BinlogEvent
from chains.entries import ActionType, ChainKind, ChainState
from ddl_log import AtomicDDL, ConcurrentChangeError, StatementFailedError
from storage import crashpoints
from storage.catalogs.interface import TableSpec
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from tests import crashkit
from tests.stores import StoreKit

T = TableName("default", "t")
OLD_ROWS = [(1,), (2,)]
NEW_ROWS = [(10,), (20,), (30,)]


class World:
    """One home (a directory or a home id in the database) and one catalog that outlive every simulated process."""

    def __init__(self, home: str, *, binlog: bool, with_old_table: bool = True, swap: bool = True) -> None:
        self.home = home
        self.binlog = binlog
        self.catalog = memory_catalog(swap=swap)
        if with_old_table:
            self.catalog.backend.add_user_table(T, ("a",), OLD_ROWS)

    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.home, catalog=self.catalog, binlog=self.binlog, compact_bytes=0, grace_seconds=0)

    def snapshot(self) -> tuple[object, ...]:
        ddl = self.open()
        try:
            chains = [(c.position, c.state.value) for c in ddl.log.chains()]
            events = [(e.seq, e.statement) for e in own_events(ddl)]
        finally:
            ddl.close()
        tables = {name: (table.identity, table.rows) for name, table in self.catalog.backend.tables.items()}
        return tables, chains, events


def own_events(ddl: AtomicDDL) -> list[BinlogEvent]:
    """The world's own events: on PostgreSQL every world of a test is a home in one database, and they all commit to
    that database's one catalog binlog (each event names its driver; a home's own binlog names none)."""
    driver = getattr(ddl.binlog_file, "driver", None)
    return [event for event in ddl.binlog_events() if event.driver == driver]


def replace_statement(ddl: AtomicDDL) -> object:
    return ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), NEW_ROWS))


def assert_atomic_outcome(world: World, *, old_existed: bool = True) -> str:
    ddl = world.open()
    try:
        assert ddl.active_chains() == [], "recovery left an active chain"
        assert ddl.abandoned_chains() == []
        events = own_events(ddl)
    finally:
        ddl.close()
    tables = world.catalog.backend.tables
    assert set(tables) <= {T}, f"leftover work tables: {sorted(map(str, tables))}"
    assert world.catalog.backend.swap.orphans == set(), "an old table version's files were never deleted"
    assert T not in world.catalog.backend.tables or not world.catalog.backend.tables[T].external
    committed_by_log = [e for e in events if "CREATE OR REPLACE" in e.statement]
    if world.binlog:
        assert len(committed_by_log) <= 1
        committed = bool(committed_by_log)
    else:
        assert events == []
        committed = T in world.catalog.backend.tables and world.catalog.backend.tables[T].rows == NEW_ROWS
    if committed:
        assert world.catalog.backend.tables[T].rows == NEW_ROWS
        return "new"
    if old_existed:
        assert world.catalog.backend.tables[T].rows == OLD_ROWS
    else:
        assert T not in world.catalog.backend.tables
    return "old"


def only_some_on_postgres(store: StoreKit, binlog: bool, swap: bool) -> None:
    """The PostgreSQL store runs the binlog + swap variants (the production shape) to keep the suite's time: what
    the other variants vary is above the store."""
    if store.is_postgres and not (binlog and swap):
        pytest.skip("on PostgreSQL only the binlog + swap variant (time budget)")


def sweep_points(store: StoreKit, binlog: bool, with_old_table: bool = True,
                 swap: bool = True) -> list[tuple[str, int]]:
    return crashkit.trace(
        World(store.home("trace"), binlog=binlog, with_old_table=with_old_table, swap=swap).open,
        replace_statement,
    )


@pytest.mark.parametrize("swap", [True, False], ids=["swap", "rename"])
@pytest.mark.parametrize("binlog", [True, False], ids=["binlog", "no-binlog"])
@pytest.mark.parametrize("with_old_table", [True, False], ids=["replace", "create"])
def test_a_crash_at_every_point_recovers_to_old_or_new_and_a_second_recovery_changes_nothing(
    store, binlog, with_old_table, swap
):
    only_some_on_postgres(store, binlog, swap)
    points = sweep_points(store, binlog, with_old_table, swap)
    assert len(points) > 20
    if swap and with_old_table:
        assert ("replace.exchange.between", 1) in points and ("forward.delete_data.before_delete", 1) in points
    outcomes = {}
    for index, (point, nth) in enumerate(points):
        world = World(store.home(f"w{index}"), binlog=binlog, with_old_table=with_old_table, swap=swap)
        assert crashkit.crash_at(world.open, replace_statement, point, nth), (point, nth)
        outcomes[(point, nth)] = assert_atomic_outcome(world, old_existed=with_old_table)
        first = world.snapshot()
        assert world.snapshot() == first, (point, nth)
    # the commit point splits the sweep: everything before it is old, everything from it on is new
    sequence = [outcomes[p] for p in points]
    assert sequence == sorted(sequence, key=lambda o: o == "new"), sequence
    assert "old" in sequence and "new" in sequence


def crash_inside_recovery_at_every_point(store: StoreKit, binlog: bool, swap: bool, *, step: int) -> None:
    """Crash the statement at every ``step``-th point, then its recovery at every point of that recovery: a second
    recovery gives what one uncut recovery gives. Quadratic in the points, so ``make test`` samples the statement's
    points and ``make proofs`` takes them all."""
    points = sweep_points(store, binlog, swap=swap)
    checked = 0
    for index, (point, nth) in enumerate(points):
        if index % step:
            continue
        reference = World(store.home(f"ref{index}"), binlog=binlog, swap=swap)
        crashkit.crash_at(reference.open, replace_statement, point, nth)
        expected = assert_atomic_outcome(reference)
        probe = World(store.home(f"probe{index}"), binlog=binlog, swap=swap)
        crashkit.crash_at(probe.open, replace_statement, point, nth)
        recovery_points = crashkit.trace_recovery(probe.open)
        for r_index, (r_point, r_nth) in enumerate(recovery_points):
            world = World(store.home(f"w{index}_{r_index}"), binlog=binlog, swap=swap)
            crashkit.crash_at(world.open, replace_statement, point, nth)
            assert crashkit.recover_with_crash(world.open, r_point, r_nth), (point, r_point, r_nth)
            assert assert_atomic_outcome(world) == expected, (point, nth, r_point, r_nth)
            checked += 1
    assert checked > 50 // step


@pytest.mark.parametrize("swap", [True, False], ids=["swap", "rename"])
@pytest.mark.parametrize("binlog", [True, False], ids=["binlog", "no-binlog"])
def test_a_crash_anywhere_inside_recovery_then_recovery_again_converges(store, binlog, swap):
    """Every statement point (every 10th on PostgreSQL), each with every recovery point: ``make proofs``."""
    only_some_on_postgres(store, binlog, swap)
    crash_inside_recovery_at_every_point(store, binlog, swap, step=10 if store.is_postgres else 1)


@pytest.mark.parametrize("swap", [True, False], ids=["swap", "rename"])
@pytest.mark.parametrize("binlog", [True, False], ids=["binlog", "no-binlog"])
def test_a_crash_inside_recovery_of_sampled_points_then_recovery_again_converges(store, binlog, swap):
    """Every 5th statement point (every 40th on PostgreSQL), each with every recovery point: ``make test``'s share."""
    only_some_on_postgres(store, binlog, swap)
    crash_inside_recovery_at_every_point(store, binlog, swap, step=40 if store.is_postgres else 5)


def test_binlogged_statement_is_committed_at_recovery_and_its_backup_dropped(store):
    world = World(store.home(), binlog=True)
    assert crashkit.crash_at(world.open, replace_statement, "commit.after_binlog", 1)
    ddl = world.open()
    try:
        outcomes = {o.outcome for o in ddl.last_recovery.outcomes}
        assert outcomes == {"committed", "finished"}
        assert [e.generated_by_recovery for e in ddl.binlog_events()] == [False]
    finally:
        ddl.close()
    assert world.catalog.backend.tables[T].rows == NEW_ROWS


def test_a_failing_create_raises_a_typed_error_and_leaves_everything_as_before(store):
    world = World(store.home(), binlog=True)
    before = world.snapshot()
    world.catalog.backend.fail_on = lambda operation, name: operation == "create"
    ddl = world.open()
    with pytest.raises(StatementFailedError) as raised:
        replace_statement(ddl)
    assert raised.value.name == "default.t"
    assert "injected failure" in str(raised.value.cause)
    ddl.close()
    world.catalog.backend.fail_on = lambda operation, name: False
    assert world.snapshot()[0] == before[0]
    assert world.snapshot()[2] == before[2] == []
    assert world.open().active_chains() == []


def test_a_failure_after_the_old_table_moved_puts_it_back(store):
    world = World(store.home(), binlog=True, swap=False)
    world.catalog.backend.fail_on = lambda operation, name: operation == "install_version" and name == T
    ddl = world.open()
    with pytest.raises(StatementFailedError):
        replace_statement(ddl)
    ddl.close()
    assert world.catalog.backend.tables[T].rows == OLD_ROWS
    assert set(world.catalog.backend.tables) == {T}


def test_a_failure_between_the_two_swap_calls_puts_the_old_definition_back(store):
    world = World(store.home(), binlog=True)
    world.catalog.backend.fail_on = lambda operation, name: operation == "install"
    ddl = world.open()
    with pytest.raises(StatementFailedError):
        replace_statement(ddl)
    ddl.close()
    assert world.catalog.backend.tables[T].rows == OLD_ROWS and not world.catalog.backend.tables[T].external
    assert set(world.catalog.backend.tables) == {T} and world.catalog.backend.swap.orphans == set()


@pytest.mark.parametrize("old_at_its_names_directory", [True, False], ids=["plain spark's", "the log's"])
def test_a_table_someone_put_under_the_swapped_name_is_never_touched_and_the_old_version_is_kept_dropped(
        store, monkeypatch, old_at_its_names_directory):
    """Killed after the swap; before recovery someone drops the new table and makes their own under the name: undo
    leaves theirs alone, removes its TMP, and keeps the old version (whose files nothing reads) as a dropped one:
    for UNDROP over the retention where the log made it (a directory of its own), for the grace period only where
    it sits at the name's own directory (a table plain Spark made), which would block plain Spark's CREATE."""
    monkeypatch.setenv("DDL_LOG_RETENTION_SECONDS", "3600")
    world = World(store.home(), binlog=True)
    if not old_at_its_names_directory:
        with world.open() as ddl:
            replace_statement(ddl)  # the table the crash below replaces lives in a directory of the log's
    old = world.catalog.backend.tables[T]
    with world.open() as ddl:
        committed = list(ddl.binlog_events())
    assert crashkit.crash_at(world.open, replace_statement, "replace.exchange.after", 1)
    del world.catalog.backend.tables[T]
    world.catalog.backend.add_user_table(T, ("newcomer",), [("someone else",)])
    newcomer = world.catalog.names.identity(T)
    ddl = world.open()
    assert world.catalog.names.identity(T) == newcomer and world.catalog.backend.tables[T].rows == [("someone else",)]
    assert set(world.catalog.backend.tables) == {T}, "the statement's TMP is gone"
    assert ddl.abandoned_chains() == [] and list(ddl.binlog_events()) == committed
    kept = dropped_tables(ddl.log)
    ddl.close()
    if old_at_its_names_directory:
        assert kept == []  # the grace period (0 here) is over: its files are gone
        return
    [dropped] = kept
    assert dropped.table == T and dropped.dropped and dropped.location == old.location
    ddl = world.open()
    assert [version.table for version in dropped_tables(ddl.log)] == [T], "kept once, however often recovery runs"
    ddl.close()
    del world.catalog.backend.tables[T]
    ddl = world.open()
    ddl.sql(f"UNDROP TABLE {T}")
    assert world.catalog.backend.tables[T].rows == old.rows
    ddl.close()


@pytest.mark.parametrize("swap", [True, False], ids=["swap path", "rename path"])
@pytest.mark.parametrize("newcomer", ["at its directory", "elsewhere", "none"])
def test_a_table_someone_puts_under_the_name_while_the_statement_runs_is_never_touched(store, swap, newcomer):
    """While the statement builds its new version (its lock held), a writer outside the log drops the table and
    makes its own under the name (or none): right before its first change of the name the statement sees another
    table there and fails with ConcurrentChangeError, having changed nothing of it. The newcomer keeps its rows and
    its directory (no deletion of it scheduled, nothing kept as a dropped version of the name); nothing of the
    statement is left: no work table, no active chain, no binlog event."""
    world = World(store.home(), binlog=True, swap=swap)
    with world.open() as ddl:
        committed = list(own_events(ddl))
    old = world.catalog.backend.tables[T]

    def outside_writer() -> None:  # plain Spark's DROP TABLE, then its CREATE TABLE and INSERT
        del world.catalog.backend.tables[T]
        if newcomer != "none":
            world.catalog.backend.add_user_table(T, ("who",), [("someone else",)])
        if newcomer == "elsewhere":
            world.catalog.backend.tables[T].location = "memory:/elsewhere/t"

    ddl = world.open()
    point = "replace.exchange.before" if swap else "replace.move_orig.before"
    with crashpoints.acting(point, outside_writer), pytest.raises(StatementFailedError) as raised:
        replace_statement(ddl)
    assert isinstance(raised.value.cause, ConcurrentChangeError), raised.value
    assert raised.value.cause.read == old.identity
    tables = world.catalog.backend.tables
    if newcomer == "none":
        assert tables == {}
    else:
        assert set(tables) == {T} and tables[T].rows == [("someone else",)]
        assert raised.value.cause.found == tables[T].identity
    assert ddl.active_chains() == [] and own_events(ddl) == committed
    assert dropped_tables(ddl.log) == [] and ddl.pending_deletions() == []
    ddl.close()
    assert world.catalog.backend.swap.orphans == set()


def test_a_swap_logged_by_an_earlier_version_with_a_holder_table_is_still_undone(store):
    """Logs written before replaces logged INSTALL_VERSION hold SWAP_TABLE, with ORIG's old definition kept by TMP as
    an external holder: recovery still puts it back and removes the holder, never its files."""
    world = World(store.home(), binlog=True)
    tmp = TableName("default", "ddllog_9_abcdef_tmp")
    old = world.catalog.backend.tables[T]
    world.catalog.backend.tables[tmp] = attrs.evolve(old, identity="new:holder", external=True, held=old.identity,
                                             location="memory:/default/t")
    world.catalog.backend.tables[T] = MemoryTable("new", ("b",), NEW_ROWS,
                                                  location="memory:/default/ddllog_9_abcdef_tmp")
    ddl = world.open()
    position = ddl.log.new_chain(ChainKind.UNDO, "CREATE OR REPLACE TABLE t AS SELECT 1")
    log_swap_table(ddl.log, position, T, tmp, old.identity, SwapTablePayload("new", "new:holder", None))
    ddl.abandon()
    world.open().close()
    assert world.catalog.names.identity(T) == old.identity and world.catalog.backend.tables[T].rows == OLD_ROWS
    assert set(world.catalog.backend.tables) == {T}


def test_undo_never_drops_a_table_it_did_not_create(store):
    world = World(store.home(), binlog=True)
    ddl = world.open()
    position = ddl.log.new_chain(ChainKind.UNDO, "test")
    ddl.log.add_action(position, ActionType.CREATE_TABLE, name=T, tag="someone-else", payload=CreateTablePayload())
    ddl.abandon()
    world.open().close()
    assert world.catalog.backend.tables[T].rows == OLD_ROWS


MOVED = TableName("default", "u")


def crash_after_a_rename(world: World) -> int:
    """A RENAME TABLE t TO u that ran, then the process died before its commit; renames back fail from now on."""
    ddl = world.open()
    position = ddl.log.new_chain(ChainKind.UNDO, "RENAME TABLE t TO u")
    log_rename_table(ddl.log, position, T, MOVED, world.catalog.names.identity(T))
    world.catalog.names.rename(T, MOVED)
    ddl.abandon()
    world.catalog.backend.fail_on = lambda operation, name: operation == "rename"
    return position


def test_an_undo_chain_that_keeps_failing_is_abandoned_after_three_tries_and_reported(store):
    world = World(store.home(), binlog=True)
    position = crash_after_a_rename(world)
    outcomes = []
    for _ in range(4):
        ddl = world.open()
        outcomes.append([o.outcome for o in ddl.last_recovery.outcomes])
        ddl.close()
    assert outcomes == [["failed"], ["failed"], ["failed"], ["abandoned"]]
    ddl = world.open()
    assert [c.position for c in ddl.abandoned_chains()] == [position]
    assert ddl.log.chain(position).state is ChainState.ABANDONED
    ddl.close()


def test_retry_abandoned_gives_an_abandoned_chain_new_tries_once_the_cause_is_fixed(store):
    world = World(store.home(), binlog=True)
    crash_after_a_rename(world)
    for _ in range(4):
        world.open().close()
    world.catalog.backend.fail_on = lambda operation, name: False
    ddl = world.open()
    assert ddl.abandoned_chains() and ddl.last_recovery.of("abandoned") == []
    report = ddl.recover(retry_abandoned=True)
    assert [o.outcome for o in report.outcomes] == ["reopened", "undone"]
    assert ddl.abandoned_chains() == [] and ddl.active_chains() == []
    ddl.close()
    assert world.catalog.backend.tables[T].rows == OLD_ROWS and MOVED not in world.catalog.backend.tables


def test_a_roll_forward_drop_that_keeps_failing_gives_up_on_its_last_try_and_binlogs_nothing_it_did_not_do(store):
    world = World(store.home(), binlog=True)
    ddl = world.open()
    position = ddl.log.new_chain(ChainKind.FORWARD, "DROP TABLE t")
    ddl.log.add_action(position, ActionType.DROP_INIT, payload=DropInitPayload("DROP TABLE t", ("default.t",)))
    ddl.log.add_action(
        position,
        ActionType.DROP_TABLE,
        name=T,
        tag=world.catalog.names.identity(T),
        payload=DropTablePayload(keep_files=False),
    )
    ddl.abandon()
    world.catalog.backend.fail_on = lambda operation, name: operation == "drop"
    outcomes = []
    for _ in range(3):
        ddl = world.open()
        outcomes.append([o.outcome for o in ddl.last_recovery.outcomes])
        detail = ddl.last_recovery.outcomes[0].detail
        ddl.close()
    assert outcomes == [["failed"], ["failed"], ["finished"]]
    assert "gave up on" in detail and "default.t" in detail
    assert T in world.catalog.backend.tables
    ddl = world.open()
    assert ddl.active_chains() == [] and ddl.abandoned_chains() == [] and ddl.binlog_events() == []
    ddl.close()


def test_an_action_without_its_execute_entry_never_runs(store):
    world = World(store.home(), binlog=True)
    ddl = world.open()
    position = ddl.log.new_chain(ChainKind.FORWARD, "DROP TABLE t")
    with pytest.raises(RuntimeError), ddl.log.batch():
        ddl.log.add_action(position, ActionType.DROP_TABLE, name=T, payload=DropTablePayload(keep_files=False))
        raise RuntimeError("crash before the batch reached the disk")
    ddl.abandon()
    world.open().close()
    assert T in world.catalog.backend.tables


def test_a_no_op_recovery_never_touches_the_catalog(store):
    world = World(store.home(), binlog=True)
    world.open().close()
    world.catalog.backend.calls.clear()
    ddl = world.open()
    assert ddl.last_recovery.nothing_to_do
    ddl.close()
    assert world.catalog.backend.calls == []


def test_spec_form_must_be_exactly_one():
    with pytest.raises(ValueError):
        _ = TableSpec().form
