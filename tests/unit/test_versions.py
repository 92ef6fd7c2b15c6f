"""Table versions on the in-memory catalog: what RESTORE, UNDROP, DESCRIBE HISTORY and SHOW TABLES DROPPED do, how
long versions are kept, and what happens to them on RENAME, DROP DATABASE and PURGE. (The crash sweeps of RESTORE
and UNDROP are in test_statement_sweeps.py; the same on Spark in tests/spark/test_versions.py.)"""

from __future__ import annotations

import copy
import shutil
import time

import pytest

from ddl_log import AtomicDDL, NoSuchVersionError, ObjectExistsError
from storage.catalogs.memory import MemoryTable
from tests.unit.test_statement_sweeps import NEW_ROWS, catalog_state, populated_catalog, tn


def away(catalog, name: str) -> None:
    """Move the table off its name's directory, as any table this project has replaced once lives."""
    catalog.backend.tables[tn(name)].location = f"memory:/default/ddllog_0_{name}_tmp"


def table_state(catalog, name: str):
    tables = catalog_state(catalog)[0]
    return tables.get(f"default.{name}")


def kept(ddl: AtomicDDL, name: str) -> list:
    """The kept versions of DESCRIBE HISTORY's rows (after the current one), newest first."""
    return [row for row in ddl.describe_history(name).rows if not row.current]


@pytest.fixture
def world(tmp_path):
    catalog = populated_catalog()

    def open_home(**settings) -> AtomicDDL:
        settings.setdefault("retention_seconds", 86400)
        return AtomicDDL(home=str(tmp_path / "home"), catalog=catalog, **settings)

    return catalog, open_home


def test_a_replace_on_the_rename_path_keeps_the_previous_version_too(world):
    """Where the definition swap is refused (here: the catalog refuses every swap; on Spark a change of partition
    columns) the old table is renamed away, and its files stay as the previous version instead of being dropped."""
    catalog, open_home = world
    catalog.backend.swap.enabled = False
    original = table_state(catalog, "a")
    with open_home() as ddl:
        replaced = ddl.create_or_replace_table("a", df=NEW_ROWS)
        assert replaced.path == "rename" and replaced.version is not None
        assert [row.version for row in kept(ddl, "a")] == [replaced.version]
        ddl.restore_table("a", version=replaced.version)
        assert table_state(catalog, "a") == original


def test_restore_brings_back_the_replaced_version_exactly_and_keeps_the_one_it_replaces(world):
    catalog, open_home = world
    original = table_state(catalog, "a")
    with open_home() as ddl:
        replaced = ddl.create_or_replace_table("a", df=NEW_ROWS)
        assert replaced.version is not None
        [row] = kept(ddl, "a")
        assert (row.version, row.retired_by, row.dropped) == (replaced.version, "CREATE OR REPLACE TABLE", False)
        new = table_state(catalog, "a")
        restored = ddl.restore_table("a", version=replaced.version)
        assert table_state(catalog, "a") == original
        assert restored.kept is not None and restored.event is not None
        assert "RESTORE TABLE" in restored.event.statement
        current, row = ddl.describe_history("a").rows  # the restored version is the table's again, the new one kept
        assert (current.version, current.operation) == (replaced.version, "RESTORE TABLE")
        assert (row.version, row.operation, row.retired_by) == (restored.kept, "CREATE OR REPLACE TABLE",
                                                                 "RESTORE TABLE")
        ddl.restore_table("a", version=restored.kept)  # a RESTORE is undone by another
        assert table_state(catalog, "a") == new


def test_restore_of_a_partitioned_table_brings_back_its_partitions(world):
    catalog, open_home = world
    original = table_state(catalog, "q")
    with open_home() as ddl:
        version = ddl.insert_overwrite("q", df=MemoryTable("", ("v", "k"), [(10, "7")])).version
        assert table_state(catalog, "q") != original
        ddl.restore_table("q", version=version)
    assert table_state(catalog, "q") == original


def test_restore_to_a_timestamp_takes_the_version_current_then(world):
    catalog, open_home = world
    original = table_state(catalog, "a")
    with open_home() as ddl:
        before_first = time.time()
        time.sleep(0.01)
        ddl.create_or_replace_table("a", df=NEW_ROWS)
        second = table_state(catalog, "a")
        between = time.time()
        time.sleep(0.01)
        ddl.truncate_table("a")
        ddl.restore_table("a", timestamp=between)
        assert table_state(catalog, "a") == second
        ddl.restore_table("a", timestamp=before_first)
        assert table_state(catalog, "a") == original
        events = len(ddl.binlog_events())
        ddl.restore_table("a", timestamp=time.time())  # the current version: nothing changes
        assert table_state(catalog, "a") == original and len(ddl.binlog_events()) == events


def test_undrop_brings_back_the_dropped_table_and_is_refused_naming_it_while_the_name_is_taken(world):
    catalog, open_home = world
    away(catalog, "b")
    original = table_state(catalog, "b")
    with open_home() as ddl:
        ddl.drop_tables(["b"])
        [dropped] = ddl.show_tables_dropped().rows
        assert (dropped.table, dropped.retired_by, dropped.dropped) == ("default.b", "DROP TABLE", True)
        ddl.create_table("b", like="a")
        with pytest.raises(ObjectExistsError) as refused:
            ddl.undrop_table("b")
        assert refused.value.name == "default.b" and "default.b" in str(refused.value)
        ddl.drop_tables(["b"], purge=True)  # PURGE keeps nothing: the newer b is gone for good
        assert [row.table for row in ddl.show_tables_dropped().rows] == ["default.b"]
        result = ddl.undrop_table("b")
        assert result.event is not None and "UNDROP TABLE" in result.event.statement
        assert table_state(catalog, "b") == original
        assert ddl.show_tables_dropped().rows == ()
        with pytest.raises(NoSuchVersionError):
            ddl.undrop_table("b")


def test_versions_expire_after_their_retention_and_their_files_are_deleted(world):
    catalog, open_home = world
    away(catalog, "a")
    with open_home(retention_seconds=0.2, grace_seconds=0) as ddl:
        ddl.create_or_replace_table("a", df=NEW_ROWS)
        [row] = kept(ddl, "a")
        assert row.location in catalog.backend.swap.files
        time.sleep(0.3)
        ddl.truncate_table("b")  # every statement runs the deletions that are due
        assert all(r.version != row.version for r in ddl.describe_history("a").rows)
        assert row.location not in catalog.backend.swap.files
        with pytest.raises(NoSuchVersionError):
            ddl.restore_table("a", version=row.version)


def test_a_table_property_sets_its_own_retention(world):
    catalog, open_home = world
    catalog.backend.tables[tn("b")].properties["spark_ddl_log.retention_seconds"] = "7200"
    away(catalog, "b")  # (see the next test)
    with open_home(grace_seconds=60) as ddl:
        ddl.create_or_replace_table("b", df=NEW_ROWS)
        [row] = kept(ddl, "b")
    kept_until = time.mktime(time.strptime(row.restorable_until, "%Y-%m-%d %H:%M:%S"))
    assert 7100 < kept_until - time.time() <= 7200


def test_a_version_at_the_names_own_directory_is_kept_for_the_grace_period_only(world):
    """It would keep plain Spark from making a table of that name (LOCATION_ALREADY_EXISTS) for the retention."""
    _catalog, open_home = world
    with open_home(grace_seconds=60) as ddl:
        ddl.drop_tables(["a"])
        [row] = ddl.show_tables_dropped().rows
        assert row.location == "memory:/default/a"
        kept_until = time.mktime(time.strptime(row.restorable_until, "%Y-%m-%d %H:%M:%S"))
        assert kept_until - time.time() <= 60


def test_a_new_table_of_a_dropped_name_leaves_its_kept_version_where_it_is_still_restorable(world):
    """The new table lives at a directory of its own (its work table's): the dropped version stays at
    ``<db>/<name>`` with its number and due time, nothing moved, and UNDROP brings it back once the name is free
    (the Spark replication soak found the early deletion an older design made: a replica that had not copied the
    version yet could never get it)."""
    catalog, open_home = world
    old_rows = list(catalog.backend.tables[tn("a")].rows)
    with open_home(grace_seconds=60) as ddl:
        ddl.drop_tables(["a"])
        [before] = ddl.show_tables_dropped().rows
        ddl.create_table("a", like="b")
        [after] = ddl.show_tables_dropped().rows
        assert after == before and after.location == "memory:/default/a"
        assert catalog.backend.swap.files[after.location].rows == old_rows
        assert catalog.definitions.table_location(tn("a")) != after.location
        ddl.drop_tables(["a"])
        ddl.undrop_table("a")  # the newest dropped version: the second table
        ddl.drop_tables(["a"], purge=True)
        ddl.undrop_table("a")
        assert catalog.backend.tables[tn("a")].rows == old_rows
        assert ddl.show_tables_dropped().rows == ()


def test_no_crash_while_a_new_table_takes_a_dropped_name_loses_or_moves_its_kept_version(world, tmp_path):
    """At every crash point of CREATE over a dropped name, then recovery: the version is listed once, with its
    number, at its own directory, its files holding its rows; nothing is left to recover."""
    from tests import crashkit

    catalog, open_home = world
    old_rows = list(catalog.backend.tables[tn("a")].rows)
    with open_home(grace_seconds=60) as ddl:
        ddl.drop_tables(["a"])
        [dropped] = ddl.show_tables_dropped().rows
    snapshot = copy.deepcopy(catalog.backend)
    home = tmp_path / "home"
    pristine = tmp_path / "pristine"
    shutil.copytree(home, pristine)
    points = crashkit.trace(lambda: open_home(grace_seconds=60), lambda d: d.create_table("a", like="b"))
    assert not [point for point, _ in points if point.startswith("relocate_version.")]
    for point, nth in points:
        shutil.rmtree(home)
        shutil.copytree(pristine, home)
        restored = copy.deepcopy(snapshot)
        catalog.backend.__dict__.update(restored.__dict__)
        assert crashkit.crash_at(lambda: open_home(grace_seconds=60), lambda d: d.create_table("a", like="b"),
                                 point, nth)
        with open_home(grace_seconds=60) as ddl:
            assert ddl.active_chains() == [], (point, nth)
            [row] = ddl.show_tables_dropped().rows
            assert (row.version, row.location) == (dropped.version, dropped.location), (point, nth)
            assert catalog.backend.swap.files[row.location].rows == old_rows, (point, nth)
            if not catalog.names.exists(tn("a")):
                ddl.create_table("a", like="b")  # the statement again, after recovery
            [row] = ddl.show_tables_dropped().rows
            assert catalog.backend.swap.files[row.location].rows == old_rows, (point, nth)


def test_versions_keep_the_name_they_were_made_under_across_a_rename(world):
    """A RENAME moves the table, not its history: RESTORE of the old name's versions needs that name."""
    _catalog, open_home = world
    with open_home() as ddl:
        version = ddl.create_or_replace_table("a", df=NEW_ROWS).version
        ddl.rename_tables([("a", "c")])
        assert kept(ddl, "c") == []  # c's history: its current version only
        assert [row.version for row in ddl.describe_history("a").rows] == [version]


def test_drop_database_cascade_keeps_its_tables_as_dropped_versions(world):
    catalog, open_home = world
    original = table_state(catalog, "b")
    with open_home() as ddl:
        ddl.create_database("d4")
        ddl.create_table("d4.t", like="b")
        ddl.drop_database("d4", cascade=True)
        assert [row.table for row in ddl.show_tables_dropped("d4").rows] == ["d4.t"]
        with pytest.raises(Exception) as refused:
            ddl.undrop_table("d4.t")  # its database first
        assert getattr(refused.value, "name", None) == "d4"
        ddl.create_database("d4")
        ddl.undrop_table("d4.t")
        assert catalog_state(catalog)[0]["d4.t"][0] == original[0]


def test_sql_statements_and_their_results(world):
    _catalog, open_home = world
    with open_home() as ddl:
        version = ddl.create_or_replace_table("a", df=NEW_ROWS).version
        [history] = ddl.sql("DESCRIBE HISTORY a")
        assert [row.version for row in history.result.rows if not row.current] == [version]
        ddl.sql(f"RESTORE TABLE a TO VERSION AS OF {version}")
        ddl.sql("DROP TABLE b")
        [dropped] = ddl.sql("SHOW TABLES DROPPED IN default")
        assert [row.table for row in dropped.result.rows] == ["default.b"]
        ddl.sql("UNDROP TABLE b")
        statements = [event.statement for event in ddl.binlog_events()]
    assert statements[-3:] == [f"RESTORE TABLE a TO VERSION AS OF {version}", "DROP TABLE b", "UNDROP TABLE b"]


def test_the_log_compacts_while_versions_are_kept_and_they_stay_restorable(world):
    """A kept version's deletion chain is active for its whole retention: recovery compacts the log around it (the
    chains of finished statements go, the waiting ones stay, their closed master links dropped)."""
    catalog, open_home = world
    away(catalog, "a")
    original = table_state(catalog, "a")
    with open_home() as ddl:
        version = ddl.create_or_replace_table("a", df=NEW_ROWS).version
        ddl.truncate_table("b")
        size = ddl.log.size
    with open_home() as ddl:
        assert ddl.last_recovery.compacted and ddl.log.size < size
        assert [row.version for row in kept(ddl, "a")] == [version]
        ddl.restore_table("a", version=version)
        assert table_state(catalog, "a") == original
    with open_home() as ddl:
        assert ddl.last_recovery.nothing_to_do


@pytest.mark.parametrize("name", ["restore_version", "undrop"])
def test_a_crash_inside_the_recovery_of_restore_or_undrop_then_recovery_again_converges(tmp_path, name):
    """Every crash point of the statement, then every crash point of its recovery (undo.install_version.before
    among them): the next recovery ends where an uninterrupted one does."""
    from tests import crashkit
    from tests.unit.test_statement_sweeps import STATEMENTS, World

    statement = STATEMENTS[name]
    prefix = "restore" if name.startswith("restore") else "undrop"
    points = [(point, nth) for point, nth in crashkit.trace(World(str(tmp_path / "trace"), True, name).open, statement)
              if point.startswith((f"{prefix}.do.", f"{prefix}.log.after", "commit."))]  # where recovery has work
    seen: set[str] = set()
    for index, (point, nth) in enumerate(points):
        reference = World(str(tmp_path / f"ref{index}"), True, name)
        crashkit.crash_at(reference.open, statement, point, nth)
        reference.open().close()
        expected = catalog_state(reference.catalog)
        probe = World(str(tmp_path / f"probe{index}"), True, name)
        crashkit.crash_at(probe.open, statement, point, nth)
        for r_index, (r_point, r_nth) in enumerate(crashkit.trace_recovery(probe.open)):
            world = World(str(tmp_path / f"w{index}_{r_index}"), True, name)
            crashkit.crash_at(world.open, statement, point, nth)
            assert crashkit.recover_with_crash(world.open, r_point, r_nth), (point, r_point, r_nth)
            with world.open() as ddl:
                assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
            assert catalog_state(world.catalog) == expected, (point, nth, r_point, r_nth)
            seen.add(r_point)
    assert "replay.before_action" in seen
    if name == "restore_version":
        assert "undo.install_version.before" in seen


def test_the_version_a_binlogged_statement_retired_is_found_by_its_xid(world):
    """What replication reads: a binlog event's XID names the version its statement replaced."""
    from actions.kept_versions import version_retired_by

    catalog, open_home = world
    away(catalog, "a")
    with open_home() as ddl:
        result = ddl.create_or_replace_table("a", df=NEW_ROWS)
        assert result.event is not None
        found = version_retired_by(ddl.log, result.event.xid)
        assert found is not None and found.number == result.version and found.table == tn("a")
        assert version_retired_by(ddl.log, result.event.xid + 1000) is None


def test_a_dropped_version_whose_directory_another_table_uses_is_never_deleted(world):
    """Nothing the log did not make is touched: a table registered at the dropped version's directory since (here
    an external one) keeps it when the version's deletion is due; a new table of the name, at a directory of its
    own, is made meanwhile."""
    catalog, open_home = world
    with open_home(grace_seconds=0.3) as ddl:
        ddl.drop_tables(["a"])
        catalog.backend.tables[tn("squatter")] = MemoryTable("fp:squat", ("x",), [(1,)], location="memory:/default/a",
                                                     external=True)
        ddl.create_table("a", like="b")
        time.sleep(0.4)
        ddl.run_due_deletions()
        assert ddl.show_tables_dropped().rows == ()
        assert catalog.backend.tables[tn("squatter")].location == "memory:/default/a"
        assert catalog.backend.swap.files["memory:/default/a"].rows == [(1,)] or \
            "memory:/default/a" in catalog.backend.swap.orphans  # its files stay where they are
        assert ddl.active_chains() == []
