"""The old files of a swapped or dropped table: kept for readers for the grace period, durably scheduled in the log,
deleted once due by the next statement or recovery (never before, never leaked, never while something uses them)."""

from __future__ import annotations

import time

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit

T = TableName("default", "t")
OLD_FILES = "memory:/default/t"


def world_with_old_table() -> Catalog:
    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), [(1,), (2,)])
    return catalog


def replace(ddl: AtomicDDL) -> object:
    return ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(9,)]))


def test_a_swap_schedules_the_old_files_for_after_the_grace_period_and_keeps_them_until_then(tmp_path):
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=600) as ddl:
        result = replace(ddl)
        [pending] = ddl.pending_deletions()
        assert result.path == "swap" and result.old_data == OLD_FILES == pending.location
        assert 590 < pending.due - time.time() <= 600 and pending.table == T
        assert ddl.active_chains() == [] and catalog.backend.swap.orphans == {OLD_FILES}
        ddl.create_table("other", schema="x INT")  # a statement runs only what is due
        assert catalog.backend.swap.orphans == {OLD_FILES}
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=600) as reopened:  # recovery waits too
        assert reopened.last_recovery.nothing_to_do and len(reopened.pending_deletions()) == 1
        assert catalog.backend.swap.orphans == {OLD_FILES}


def test_the_next_statement_or_recovery_deletes_the_old_files_once_due(tmp_path):
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=0.2) as ddl:
        replace(ddl)
        assert catalog.backend.swap.orphans == {OLD_FILES}
        time.sleep(0.3)
        ddl.create_table("other", schema="x INT")
        assert catalog.backend.swap.orphans == set() and ddl.pending_deletions() == []
    second = world_with_old_table()
    with AtomicDDL(home=tmp_path / "2", catalog=second, grace_seconds=0.2) as ddl:
        replace(ddl)
    time.sleep(0.3)
    with AtomicDDL(home=tmp_path / "2", catalog=second) as reopened:
        assert [o.outcome for o in reopened.last_recovery.outcomes] == ["finished"]
        assert second.backend.swap.orphans == set() and reopened.pending_deletions() == []


def test_dropping_the_table_keeps_its_files_and_old_versions_for_readers_until_the_grace_period_ends(tmp_path):
    """Issue 25 #15: the name goes first, the files after the grace period, so a reader that resolved the table just
    before the DROP reads its rows whole (never an empty directory)."""
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=0.3) as ddl:
        replace(ddl)
        current = catalog.definitions.table_location(T)
        ddl.drop_tables(["t"])
        assert catalog.names.identity(T) is None
        assert {d.location for d in ddl.pending_deletions()} == {"memory:/default/t", current}
        assert catalog.backend.swap.orphans == {"memory:/default/t", current}
        time.sleep(0.4)
        ddl.create_table("other", schema="x INT")  # any statement runs the due deletions
        assert catalog.backend.swap.orphans == set() and ddl.pending_deletions() == []


def test_drop_purge_deletes_the_files_with_the_table(tmp_path):
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=600) as ddl:
        ddl.drop_tables(["t"], purge=True)
        assert catalog.backend.swap.orphans == set() and ddl.pending_deletions() == []


def test_a_due_deletion_keeps_a_directory_another_table_uses_now_and_says_why(tmp_path):
    """Issue 25 #1: CREATE t, CREATE OR REPLACE t (the old version waits at <db>/t), a table created by plain Spark
    at that location: the deletion, when due, proves nobody uses the directory first."""
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=0.2) as ddl:
        replace(ddl)
        catalog.backend.tables[TableName("default", "t_archive")] = MemoryTable("archive", ("a",), [(1,)],
                                                                                external=True,
                                                                        location="memory:/default/t")
        time.sleep(0.3)
        ddl.create_table("other", schema="x INT")
        assert "memory:/default/t" in catalog.backend.swap.orphans  # kept: t_archive reads it
        assert ddl.pending_deletions() == []
        [kept] = [ddl.log.note_of(a.id) for c in ddl.log.chains() for a in ddl.log.actions_of(c.position)
                  if ddl.log.note_of(a.id)]
        assert "t_archive" in kept


@pytest.mark.parametrize("point", ["forward.delete_data.before_delete", "replay.after_action"])
def test_a_crash_inside_the_deletion_is_finished_by_the_next_recovery(tmp_path, point):
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=0.2) as ddl:
        replace(ddl)
    time.sleep(0.3)
    opener = lambda: AtomicDDL(home=tmp_path, catalog=catalog)  # noqa: E731
    assert crashkit.recover_with_crash(opener, point, 1)
    with opener() as recovered:
        assert catalog.backend.swap.orphans == set() and recovered.pending_deletions() == []
        assert recovered.active_chains() == []


def test_a_table_dropped_outside_the_project_gives_its_name_back_to_a_new_table_at_once(tmp_path):
    catalog = world_with_old_table()
    with AtomicDDL(home=tmp_path, catalog=catalog, grace_seconds=600) as ddl:
        replace(ddl)
        # a plain DROP TABLE by another user: the old version still waits for its deletion
        catalog.backend.tables.pop(T)
        ddl.create_table("t", schema="z INT")
        assert catalog.names.identity(T) is not None
        [pending] = ddl.pending_deletions()  # the old version where it was, still waiting for its time
        assert pending.location == "memory:/default/t" != catalog.definitions.table_location(T)
        assert catalog.backend.swap.orphans == {pending.location}
