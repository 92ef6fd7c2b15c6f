"""Late writes of orphaned tasks (issue 30), on the in-memory catalog standing for an engine whose executors outlive
their driver (``memory_catalog(orphan_window=...)``; a late write is the work table's name added to its leftovers, a
late CREATE a table under the work table's name). Whoever undoes a statement (its own rollback, recovery, a crash
inside recovery and recovery again) logs one sweep of its work table (or of an in-place INSERT INTO's job files),
due once the orphan window is over; the sweep then removes whatever a late task left, and only that. Tasks that
end with the driver (local mode) get no sweep."""

from __future__ import annotations

import time

import pytest

from actions.kinds.create_table import CreateTablePayload
from actions.kinds.kind import payload_of
from actions.kinds.remove_job_files import RemoveJobFilesPayload
from chains.entries import ActionEntry, ActionType
from ddl_log import AtomicDDL, StatementFailedError
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit

T = TableName("default", "t")
WINDOW = 0.1
"""The orphan window these tests' engine reports (seconds)."""


def catalog_with_old_table(window: float | None = WINDOW) -> Catalog:
    catalog = memory_catalog(orphan_window=window)
    catalog.backend.add_user_table(T, ("a",), [(1,), (2,)])
    return catalog


def replace(ddl: AtomicDDL) -> object:
    return ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(9,)]))


def opener(home: object, catalog: Catalog, **settings: object) -> crashkit.Opener:
    return lambda: AtomicDDL(home=home, catalog=catalog, grace_seconds=0, **settings)


def fail_the_data_job(catalog: Catalog) -> None:
    """The work table's CREATE (the data job of a DataFrame replace) fails."""
    catalog.backend.fail_on = lambda operation, name: operation == "create" and name.is_reserved


def created(ddl: AtomicDDL) -> ActionEntry:
    """The statement's CREATE_TABLE of its work table."""
    [action] = [action for chain in ddl.log.chains() for action in ddl.log.actions_of(chain.position)
                if action.type is ActionType.CREATE_TABLE]
    return action


def late_write(catalog: Catalog, work_table: TableName) -> None:
    """A task of the undone statement writes a file into the work table's directory after the undo."""
    catalog.backend.leftovers.add(work_table)


def test_an_undone_statement_sweeps_its_work_table_once_no_task_of_it_can_write(tmp_path):
    catalog = catalog_with_old_table()
    fail_the_data_job(catalog)
    with opener(tmp_path, catalog)() as ddl:
        with pytest.raises(StatementFailedError):
            replace(ddl)
        [sweep] = ddl.pending_deletions()
        assert sweep.sweep and sweep.table is not None and sweep.table.is_reserved
        assert 0 < sweep.due - time.time() <= WINDOW and sweep.location == f"memory:/default/{sweep.table.name}"
        assert ddl.active_chains() == [] and set(catalog.backend.tables) == {T}
        late_write(catalog, sweep.table)
        catalog.backend.fail_on = lambda operation, name: False
        ddl.create_table("other", schema="x INT")  # not due yet: the late write stays, the sweep waits
        assert sweep.table in catalog.backend.leftovers and len(ddl.pending_deletions()) == 1
        time.sleep(WINDOW)
        ddl.create_table("another", schema="x INT")  # due: the next statement sweeps
        assert sweep.table not in catalog.backend.leftovers and ddl.pending_deletions() == []
        assert catalog.backend.tables[T].rows == [(1,), (2,)]


def test_tasks_that_end_with_the_driver_leave_nothing_to_sweep(tmp_path):
    catalog = catalog_with_old_table(window=None)
    fail_the_data_job(catalog)
    with opener(tmp_path, catalog)() as ddl:
        with pytest.raises(StatementFailedError):
            replace(ddl)
        assert ddl.pending_deletions() == []
        assert payload_of(created(ddl), CreateTablePayload).late_writes is None


@pytest.mark.parametrize(("setting", "expected"), [(None, WINDOW), (5.0, 5.0), (0.0, None)],
                         ids=["the engine's window", "the setting's", "turned off"])
def test_the_orphan_seconds_setting_overrides_the_engines_window(tmp_path, setting, expected):
    catalog = catalog_with_old_table()
    fail_the_data_job(catalog)
    with opener(tmp_path, catalog, orphan_seconds=setting)() as ddl:
        with pytest.raises(StatementFailedError):
            replace(ddl)
        assert payload_of(created(ddl), CreateTablePayload).late_writes == expected
        assert len(ddl.pending_deletions()) == (0 if expected is None else 1)


def test_a_crash_at_every_point_then_late_writes_leave_nothing_once_the_window_is_over(tmp_path):
    """Recovery in another process undoes the statement (or finishes it); a late task then re-creates the work
    table's directory; once the window is over the next open sweeps it. Only the old or the new table is left."""
    trace = crashkit.trace(opener(tmp_path / "trace", catalog_with_old_table()), replace)
    undone = 0
    for index, (point, nth) in enumerate(trace):
        catalog = catalog_with_old_table(window=0.01)
        open_home = opener(tmp_path / f"w{index}", catalog)
        assert crashkit.crash_at(open_home, replace, point, nth), (point, nth)
        with open_home() as ddl:
            sweeps = [p for p in ddl.pending_deletions() if p.sweep]
        assert len(sweeps) <= 1, (point, nth)
        for sweep in sweeps:
            assert sweep.table is not None
            late_write(catalog, sweep.table)
            undone += 1
        time.sleep(0.01)  # the window is over; the open after it sweeps
        with open_home() as ddl:
            assert ddl.pending_deletions() == [] and ddl.active_chains() == [], (point, nth)
        assert catalog.backend.leftovers == set() and set(catalog.backend.tables) == {T}, (point, nth)
        assert catalog.backend.tables[T].rows in ([(1,), (2,)], [(9,)]), (point, nth)
    assert undone > 5


def test_a_crash_anywhere_inside_the_undo_logs_exactly_one_sweep(tmp_path):
    """Crashed at a point of the statement before its commit, then at every point of the recovery that undoes it
    (the sweep's own ``undo.create_table.sweep_logged`` included), then recovered again: one sweep, never two, never
    none."""
    point = "replace.fill_tmp.before"
    probe = catalog_with_old_table()
    probe_open = opener(tmp_path / "probe", probe)
    assert crashkit.crash_at(probe_open, replace, point, 1)
    recovery_points = crashkit.trace_recovery(probe_open)
    assert ("undo.create_table.sweep_logged", 1) in recovery_points
    for index, (r_point, r_nth) in enumerate(recovery_points):
        catalog = catalog_with_old_table(window=600)  # the sweep must still be pending when counted
        open_home = opener(tmp_path / f"w{index}", catalog)
        assert crashkit.crash_at(open_home, replace, point, 1)
        assert crashkit.recover_with_crash(open_home, r_point, r_nth), (r_point, r_nth)
        with open_home() as ddl:
            sweeps = [p for p in ddl.pending_deletions() if p.sweep]
        assert len(sweeps) == 1, (r_point, r_nth, sweeps)
        assert set(catalog.backend.tables) == {T} and catalog.backend.leftovers == set()


def test_a_crash_inside_the_sweep_then_recovery_sweeps_once_more(tmp_path):
    catalog = catalog_with_old_table()
    fail_the_data_job(catalog)
    open_home = opener(tmp_path, catalog)
    with open_home() as ddl:
        with pytest.raises(StatementFailedError):
            replace(ddl)
        [sweep] = ddl.pending_deletions()
    catalog.backend.fail_on = lambda operation, name: False
    assert sweep.table is not None
    late_write(catalog, sweep.table)
    time.sleep(WINDOW)
    assert crashkit.recover_with_crash(open_home, "forward.sweep_table.before_sweep", 1)
    assert sweep.table in catalog.backend.leftovers
    with open_home() as ddl:
        assert [o.outcome for o in ddl.last_recovery.outcomes] == ["finished"]
        assert ddl.pending_deletions() == []
    assert catalog.backend.leftovers == set()


def test_the_sweep_drops_a_work_table_made_again_by_the_statement_but_nothing_else(tmp_path):
    """A driver paused in the data job and resumed after its statement was undone (by a takeover) may still finish
    its CREATE: the work table comes back with the statement's tag, and the sweep drops it. A table of another
    identity under that name (nobody's to sweep) stays."""
    for others, expected in ((False, set()), (True, {"other"})):
        catalog = catalog_with_old_table()
        fail_the_data_job(catalog)
        open_home = opener(tmp_path / str(others), catalog)
        with open_home() as ddl:
            with pytest.raises(StatementFailedError):
                replace(ddl)
            [sweep] = ddl.pending_deletions()
            create = created(ddl)
        assert sweep.table is not None and create.tag is not None
        catalog.backend.tables[sweep.table] = MemoryTable("other" if others else create.tag, ("b",), [(9,)])
        catalog.backend.fail_on = lambda operation, name: False
        time.sleep(WINDOW)
        with open_home():
            pass
        assert {table.identity for name, table in catalog.backend.tables.items() if name != T} == expected


def test_an_undone_insert_written_in_place_sweeps_its_jobs_late_files_once_no_task_can_write(tmp_path):
    """INSERT INTO written in place has no work table: its undo deletes the job's files by name, and logs first a
    sweep of that job's files (only those) due once the orphan window is over; a late task's commit after the undo
    (the job's rows back in the table) goes then."""
    catalog = catalog_with_old_table()
    catalog.backend.fail_on = lambda operation, name: operation == "insert"
    with opener(tmp_path, catalog)() as ddl:
        with pytest.raises(StatementFailedError):
            ddl.insert_into("t", df=MemoryTable("", ("a",), [(7,)]))
        [undo] = [action for chain in ddl.log.chains() for action in ddl.log.actions_of(chain.position)
                  if action.type is ActionType.REMOVE_JOB_FILES]
        job = payload_of(undo, RemoveJobFilesPayload).job
        [sweep] = ddl.pending_deletions()
        assert sweep.sweep and sweep.table == T and sweep.location == "memory:/default/t"
        catalog.backend.fail_on = lambda operation, name: False
        table = catalog.backend.tables[T]
        table.rows.append((7,))  # a task of the undone job commits its file after the undo
        catalog.backend.swap.jobs[job] = (table.identity, [(7,)])
        ddl.insert_into("t", df=MemoryTable("", ("a",), [(3,)]))  # not due yet: the late row stays
        assert (7,) in table.rows and len(ddl.pending_deletions()) == 1
        time.sleep(WINDOW)
        ddl.create_table("other", schema="x INT")  # due: the next statement sweeps the job's files only
        assert table.rows == [(1,), (2,), (3,)] and ddl.pending_deletions() == []


def test_a_crash_anywhere_inside_an_in_place_inserts_undo_logs_exactly_one_sweep_and_leaves_the_old_rows(tmp_path):
    def insert(ddl: AtomicDDL) -> object:
        return ddl.insert_into("t", df=MemoryTable("", ("a",), [(7,), (8,)]))

    point = "insert_in_place.commit.before"  # the rows in the table, not committed
    probe_open = opener(tmp_path / "probe", catalog_with_old_table())
    assert crashkit.crash_at(probe_open, insert, point, 1)
    recovery_points = crashkit.trace_recovery(probe_open)
    assert {("undo.remove_job_files.sweep_logged", 1), ("undo.remove_job_files.removed", 1)} <= set(recovery_points)
    for index, (r_point, r_nth) in enumerate(recovery_points):
        catalog = catalog_with_old_table(window=600)
        open_home = opener(tmp_path / f"w{index}", catalog)
        assert crashkit.crash_at(open_home, insert, point, 1)
        assert crashkit.recover_with_crash(open_home, r_point, r_nth), (r_point, r_nth)
        with open_home() as ddl:
            sweeps = [p for p in ddl.pending_deletions() if p.sweep]
            assert ddl.active_chains() == [] and not ddl.binlog_events(), (r_point, r_nth)
        assert len(sweeps) == 1, (r_point, r_nth, sweeps)
        assert catalog.backend.tables[T].rows == [(1,), (2,)], (r_point, r_nth)
