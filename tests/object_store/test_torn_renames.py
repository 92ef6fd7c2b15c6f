"""A data rename cut midway on the object store (issue 40): on S3 a rename is a copy of each object then its delete,
and a failure (or a kill) in the middle leaves some objects at the destination, some at the source and the one being
moved at both. For each statement kind that renames data today (test_no_data_rename.py), each of its data renames is
cut after its first copy and after its last (the store's fault rule ``rename.data:N:K``): the statement fails with a
typed error or finishes, and once the home is opened again (recovery) the catalog and the warehouse are exactly as
before the statement or as after it, the log clean, a second recovery with nothing to do. Where that fails today the
case is a strict xfail naming the rename (tests/object_store/expectations.py): the redesign renames no data, so each
of these statements then has no data rename to cut (the test's first assertion says so, and it passes)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL, DDLLogError
from tests.conftest import reset_spark
from tests.object_store.statements import CASES, Case
from tests.object_store.store import StoreCalls
from tests.object_store.test_no_data_rename import GRACE_SECONDS, RETENTION_SECONDS
from tests.spark.sweep_support import SWAPPED_DIR, Snapshot, snapshot

pytestmark = pytest.mark.spark

RENAMING = ("ctas", "create_or_replace_new_partition_columns", "create_or_replace_hive_serde",
            "create_over_a_dropped_name", "rename_table", "replica_insert_of_added_files")
"""The statement kinds that renamed data on the store before the no-rename redesign (those that still do name their
renames in expectations.py; the others have nothing to cut, and are cut wherever a rename of data comes back)."""


class World:
    """A case's world, made afresh for each cut: an empty catalog and warehouse, the case's setup and preparation."""

    def __init__(self, spark: Any, warehouse: Path, tmp_path: Path, case: Case) -> None:
        self.spark, self.warehouse, self.tmp_path, self.case = spark, warehouse, tmp_path, case
        self.homes = 0

    def make(self) -> Any:
        """The world made afresh; an opener of its home."""
        reset_spark(self.spark, self.warehouse)
        self.homes += 1
        home = self.tmp_path / f"home{self.homes}"

        retention = RETENTION_SECONDS if self.case.retention is None else self.case.retention

        def opener() -> AtomicDDL:
            return AtomicDDL(spark=self.spark, home=home, compact_bytes=0, grace_seconds=GRACE_SECONDS,
                             retention_seconds=retention)

        for sql in self.case.setup:
            self.spark.sql(sql)
        if self.case.prepare is not None:
            with opener() as ddl:
                self.case.prepare(ddl)
        return opener

    def state(self) -> Snapshot:
        return snapshot(self.spark, self.warehouse)


def tree(state: Snapshot) -> list[str]:
    """Every directory of the warehouse, a work directory's statement number and token left out (they differ from
    one world to the next)."""
    return sorted("/".join(SWAPPED_DIR.sub("ddllog_<xid>_tmp", part) for part in path.split("/"))
                  for path in state.tree)


def uncut_run(spark: Any, warehouse: Path, tmp_path: Path, case: Case, calls: StoreCalls) -> tuple[World, Snapshot]:
    """The case's world made and its statement run once, nothing cut, the store's calls counted from its start;
    the world and its state before the statement."""
    world = World(spark, warehouse, tmp_path, case)
    opener = world.make()
    before = world.state()
    calls.reset()
    assert run_cut(opener, case) is None
    return world, before


def run_cut(opener: Any, case: Case) -> BaseException | None:
    """Run the statement (a fault armed); the error it raised, if any."""
    ddl = opener()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # CommittedWithPendingWorkWarning: recovery finishes it
            case.statement(ddl)
    except Exception as error:  # noqa: BLE001 - judged by the caller (a typed error is expected)
        return error
    finally:
        ddl.close()
    return None


@pytest.mark.parametrize("name", RENAMING)
def test_a_data_rename_cut_midway_leaves_before_or_after_once_recovered(clean_spark, warehouse, tmp_path, name):
    case, calls = CASES[name], StoreCalls(clean_spark)
    world, before = uncut_run(clean_spark, warehouse, tmp_path, case, calls)
    after = world.state()
    data = [r for r in calls.renames() if r.kind == "data"]  # none once the redesign is in: nothing to cut
    cuts = [(index, objects) for index, rename in enumerate(data, 1)
            for objects in sorted({1, rename.objects})]
    for index, objects in cuts:
        opener = world.make()
        calls.clear_faults()
        calls.inject(f"rename.data:{index}:{objects}")
        error = run_cut(opener, case)
        calls.clear_faults()
        assert error is None or isinstance(error, DDLLogError), (index, objects, repr(error))
        recovered = opener()
        cut = (index, objects, repr(error), [(o.outcome, o.detail) for o in recovered.last_recovery.outcomes])
        try:
            assert recovered.active_chains() == [] and recovered.abandoned_chains() == [], cut
        finally:
            recovered.close()
        state = world.state()
        assert state in (before, after), cut
        assert tree(state) == tree(before if state == before else after), cut
        second = opener()
        assert second.last_recovery.nothing_to_do, cut
        second.close()


@pytest.mark.parametrize("name", ["insert_into", "insert_into_partitioned"])
def test_an_insert_written_in_place_whose_spark_commit_is_cut_leaves_the_table_as_before(
        clean_spark, warehouse, tmp_path, name):
    """INSERT INTO on a session with the project's jar renames no data of its own: Spark's own job commit moves
    its task files out of ``_temporary`` (staging renames, as for plain Spark). Cut after the first copy of the
    first and of the last of those: the statement fails, and its undo deletes every file named with its job id,
    both halves of the cut copy included; the table and the warehouse are exactly as before."""
    case, calls = CASES[name], StoreCalls(clean_spark)
    world, before = uncut_run(clean_spark, warehouse, tmp_path, case, calls)
    staging = [r for r in calls.renames() if r.kind == "staging"]
    assert staging and not [r for r in calls.renames() if r.kind == "data"]
    for index in sorted({1, len(staging)}):
        opener = world.make()
        calls.clear_faults()
        calls.inject(f"rename.staging:{index}:1")
        error = run_cut(opener, case)
        calls.clear_faults()
        assert isinstance(error, DDLLogError), (index, repr(error))
        recovered = opener()
        try:
            assert recovered.active_chains() == [] and recovered.last_recovery.nothing_to_do, index
        finally:
            recovered.close()
        state = world.state()
        assert state == before and tree(state) == tree(before), index
