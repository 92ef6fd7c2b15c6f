"""INSERT INTO on the in-memory catalog, beyond the crash sweeps of test_statement_sweeps.py: what its binlog event
records (either plan: written in place, or aside and moved in), and recovery that meets another table under the name
(made after the crash, before recovery) leaves that table exactly as it is: an uncommitted in-place INSERT's rows are
removed from the table they went into only; a committed statement's moves never go into another table (recovery tries
them three times, then gives up on them, says so, and removes the work table with them)."""

from __future__ import annotations

import pytest

from ddl_log import AtomicDDL
from storage import crashpoints
from storage.catalogs.memory import MemoryTable
from storage.catalogs.names import TableName
from storage.errors import HomeFencedError
from tests import crashkit
from tests.unit.test_statement_sweeps import populated_catalog

ROWS = MemoryTable("", ("v", "k"), [(10, "1"), (11, "9"), (12, None)])


@pytest.mark.parametrize("in_place", [True, False])
def test_the_event_records_every_file_added_with_its_partition_and_the_table_it_went_to(tmp_path, in_place):
    catalog = populated_catalog()
    catalog.backend.swap.jobs_named = in_place
    with AtomicDDL(home=str(tmp_path / "home"), catalog=catalog) as ddl:
        identity = catalog.names.identity(TableName.of("q"))
        result = ddl.insert_into("q", df=ROWS)
    added = result.event.added
    assert result.files == 3 and not result.moves_pending
    assert (added.table, added.identity, added.partitioned_by) == ("default.q", identity, ("k",))
    assert [f.partition for f in added.files] == [(("k", "1"),), (("k", "9"),), (("k", "__HIVE_DEFAULT_PARTITION__"),)]
    assert all(f.path.startswith(added.location + "/k=") for f in added.files)
    assert (("k", "9"),) in added.partitions and catalog.backend.tables[TableName.of("q")].rows[-3:] == ROWS.rows


def test_recovery_never_moves_a_committed_inserts_files_into_another_table_under_the_name(tmp_path):
    catalog = populated_catalog()
    catalog.backend.swap.jobs_named = False
    home = str(tmp_path / "home")

    def opener() -> AtomicDDL:
        return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

    assert crashkit.crash_at(opener, lambda d: d.insert_into("a", df=ROWS.__class__("", ("x",), [(7,), (8,)])),
                             "insert.move.between", 1)
    moved = list(catalog.backend.tables[TableName.of("a")].rows)
    del catalog.backend.tables[TableName.of("a")]
    catalog.backend.add_user_table(TableName.of("a"), ("x",), [(99,)])  # someone else's table under the name
    outcomes = []
    for _ in range(3):
        ddl = opener()
        outcomes += [(o.outcome, o.detail) for o in ddl.last_recovery.outcomes]
        assert ddl.binlog_events()[-1].statement.startswith("INSERT INTO")  # committed once, never again
        ddl.close()
        assert catalog.backend.tables[TableName.of("a")].rows == [(99,)]
    assert [o for o, _ in outcomes] == ["failed", "failed", "finished"]
    assert "gave up on" in outcomes[-1][1] and "none of its 2 files goes into it" in outcomes[-1][1]
    assert moved[-1] == (7,) and not any(name.name.startswith("ddllog_") for name in catalog.backend.tables)
    ddl = opener()
    assert ddl.last_recovery.nothing_to_do and ddl.active_chains() == []
    ddl.close()


def test_an_uncommitted_in_place_insert_is_undone_in_its_own_table_only(tmp_path):
    catalog = populated_catalog()
    home = str(tmp_path / "home")

    def opener() -> AtomicDDL:
        return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

    assert crashkit.crash_at(opener, lambda d: d.insert_into("q", df=ROWS), "insert_in_place.fill.after", 1)
    assert catalog.backend.tables[TableName.of("q")].rows[-3:] == ROWS.rows  # visible, not committed
    del catalog.backend.tables[TableName.of("q")]
    catalog.backend.add_user_table(TableName.of("q"), ("v", "k"), [(10, "1")])  # someone else's, before recovery
    catalog.backend.tables[TableName.of("q")].partitioned_by = ("k",)
    catalog.backend.tables[TableName.of("q")].partitions.append({"k": "9"})
    ddl = opener()
    assert [o.outcome for o in ddl.last_recovery.outcomes] == ["undone"]
    assert not ddl.binlog_events()
    ddl.close()
    table = catalog.backend.tables[TableName.of("q")]
    assert table.rows == [(10, "1")] and table.partitions == [{"k": "9"}]


def test_the_undo_of_an_in_place_insert_keeps_a_new_partition_that_holds_another_writers_rows(tmp_path):
    """A plain Spark job wrote into the table while the statement ran (before recovery here): the undo deletes the
    job's rows only; a partition new since that holds the other writer's rows stays, one only the job filled goes."""
    catalog = populated_catalog()
    home = str(tmp_path / "home")

    def opener() -> AtomicDDL:
        return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

    rows = MemoryTable("", ("v", "k"), [(10, "1"), (11, "9"), (13, "8")])
    assert crashkit.crash_at(opener, lambda d: d.insert_into("q", df=rows), "insert_in_place.fill.after", 1)
    table = catalog.backend.tables[TableName.of("q")]
    before = [row for row in table.rows if row not in rows.rows]
    table.rows += [(20, "9"), (21, "7")]  # another writer, into the job's new partition 9 and a new partition 7
    table.partitions.append({"k": "7"})
    ddl = opener()
    assert [o.outcome for o in ddl.last_recovery.outcomes] == ["undone"]
    ddl.close()
    assert table.rows == [*before, (20, "9"), (21, "7")]
    assert {"k": "9"} in table.partitions and {"k": "7"} in table.partitions and {"k": "8"} not in table.partitions


def test_a_driver_fenced_off_after_its_job_wrote_in_place_deletes_the_jobs_files_itself(tmp_path):
    """Paused during Spark's job past its lease, its home taken over (whose undo found nothing of the job yet):
    resumed, the driver's next step is fenced, it undoes nothing through the log, and deletes the files of its own
    job, which no one else would see as uncommitted."""
    catalog = populated_catalog()
    table = catalog.backend.tables[TableName.of("q")]
    before = list(table.rows)

    def guard() -> None:
        if len(table.rows) > len(before):  # the job's rows are in: the lease ran out meanwhile
            raise HomeFencedError(str(tmp_path), "its lease ran out (a test)")

    with AtomicDDL(home=str(tmp_path / "home"), catalog=catalog) as ddl:
        crashpoints.set_step_guard(guard)
        try:
            with pytest.raises(HomeFencedError):
                ddl.insert_into("q", df=ROWS)
        finally:
            crashpoints.set_step_guard(None)
        assert table.rows == before and not ddl.binlog_events()
        assert len(ddl.active_chains()) == 1  # the taker's to undo, as for any fenced statement
