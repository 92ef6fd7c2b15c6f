"""A directory kept at a table name's default directory (the old files of a table plain Spark made, after its first
replace or drop) on the in-memory catalog: the statement that leaves one says so and writes its note; RELEASE TABLE
NAME deletes it now, refusing (changing nothing) when nothing is kept there or something uses it, and is crashed at
every point it passes. The same on Spark, with plain Spark's CREATE blocked and then free: tests/spark/
test_release_name.py."""

from __future__ import annotations

import shlex
from typing import Any

import pytest

from ddl_log import AtomicDDL, DirectoryInUseError, NothingToReleaseError
from ddl_log.engine.release_name import release_command
from replace_table.plans.release import RELEASE
from storage.catalogs.memory import MemoryTable
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit
from tests.unit.test_statement_sweeps import NEW_ROWS, populated_catalog, tn

AT_NAME = "memory:/default/a"
"""Table ``a``'s default directory: where the populated catalog's ``a`` lives until it is replaced."""


def open_home(tmp_path: Any, catalog: Catalog, **settings: Any) -> AtomicDDL:
    settings.setdefault("grace_seconds", 600)
    settings.setdefault("retention_seconds", 86400)
    return AtomicDDL(home=str(tmp_path / "home"), catalog=catalog, **settings)


def kept(catalog: Catalog) -> tuple[Any, ...]:
    """What the catalog keeps beside its tables: the orphan directories, their notes, and table ``a``'s rows."""
    return (sorted(catalog.backend.swap.orphans), sorted(catalog.backend.swap.notes),
            catalog.backend.tables[tn("a")].rows)


def test_the_first_replace_of_a_table_at_its_names_directory_says_so_and_leaves_a_note(tmp_path):
    catalog = populated_catalog()
    with open_home(tmp_path, catalog) as ddl:
        first = ddl.create_or_replace_table("a", df=NEW_ROWS)
        [hold] = first.holds
        assert (str(hold.name), hold.location, hold.chain, hold.version) == ("default.a", AT_NAME, first.version,
                                                                              True)
        note = catalog.backend.swap.notes[AT_NAME]
        assert f"version {first.version} of table default.a" in note
        assert f"ddl-log --home {tmp_path / 'home'} release default.a" in note
        assert "LOCATION_ALREADY_EXISTS" in note and "RELEASE TABLE NAME `default`.`a`" in note
        assert ddl.create_or_replace_table("a", df=NEW_ROWS).holds == ()  # the table lives at its own directory now
        assert ddl.drop_tables(["b"]).holds[0].location == "memory:/default/b"  # a drop leaves one too


def test_no_hold_when_the_old_files_go_at_once(tmp_path):
    catalog = populated_catalog()
    with open_home(tmp_path, catalog, grace_seconds=0, retention_seconds=0) as ddl:
        assert ddl.create_or_replace_table("a", df=NEW_ROWS).holds == ()
    assert catalog.backend.swap.notes == {}


def test_release_deletes_the_kept_version_at_the_name_and_nothing_else(tmp_path):
    catalog = populated_catalog()
    with open_home(tmp_path, catalog) as ddl:
        first = ddl.create_or_replace_table("a", df=NEW_ROWS)
        second = ddl.create_or_replace_table("a", df=MemoryTable("", ("n",), [(9,)]))
        events = len(ddl.binlog_events())
        released = ddl.release_table_name("a")
        assert (released.location, released.released, released.kept) == (AT_NAME, (first.version,), None)
        assert AT_NAME not in catalog.backend.swap.orphans and AT_NAME not in catalog.backend.swap.notes
        assert [row.version for row in ddl.describe_history("a").rows if not row.current] == [
            second.version]  # the other one stays
        assert catalog.backend.tables[tn("a")].rows == [(9,)]
        assert len(ddl.binlog_events()) == events  # no catalog object or table's rows changed
        assert ddl.active_chains() == [] and ddl.pending_deletions()[0].location != AT_NAME


def test_release_is_refused_changing_nothing_when_nothing_is_kept_there_or_something_uses_it(tmp_path):
    catalog = populated_catalog()
    with open_home(tmp_path, catalog) as ddl:
        with pytest.raises(NothingToReleaseError) as nothing:
            ddl.release_table_name("a")  # a lives there itself
        assert nothing.value.name == "default.a"
        ddl.create_or_replace_table("a", df=NEW_ROWS)
        catalog.backend.tables[tn("squatter")] = MemoryTable("x", ("n",), [],
                                                             location=AT_NAME)  # registered on it since
        before, log_size = kept(catalog), ddl.log.size
        with pytest.raises(DirectoryInUseError) as used:
            ddl.sql("RELEASE TABLE NAME a")
        assert used.value.name == "default.a" and "squatter" in str(used.value)
        assert kept(catalog) == before and ddl.log.size == log_size
        assert len([row for row in ddl.describe_history("a").rows if not row.current]) == 1


def test_restore_of_a_version_at_the_names_directory_takes_its_note_away(tmp_path):
    catalog = populated_catalog()
    with open_home(tmp_path, catalog) as ddl:
        first = ddl.create_or_replace_table("a", df=NEW_ROWS)
        ddl.restore_table("a", version=first.version)
    assert AT_NAME not in catalog.backend.swap.notes


def world(tmp_path: Any, label: str) -> tuple[Catalog, Any]:
    catalog = populated_catalog()
    home = tmp_path / label
    with AtomicDDL(home=str(home), catalog=catalog, grace_seconds=600, retention_seconds=86400) as ddl:
        ddl.create_or_replace_table("a", df=NEW_ROWS)
    return catalog, lambda: AtomicDDL(home=str(home), catalog=catalog, grace_seconds=600, retention_seconds=86400,
                                      compact_bytes=0)


def versions_and_files(catalog: Catalog, opener: Any) -> tuple[Any, ...]:
    with opener() as ddl:
        assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
        history = [(row.version, row.location) for row in ddl.describe_history("a").rows if not row.current]
        events = len(ddl.binlog_events())
    return history, kept(catalog), events


def test_every_crash_point_of_release_recovers_to_before_or_after(tmp_path):
    catalog, opener = world(tmp_path, "expected")
    before = versions_and_files(catalog, opener)
    with opener() as ddl:
        ddl.release_table_name("a")
    after = versions_and_files(catalog, opener)
    assert before != after and after[0] == [] and after[2] == before[2]
    points = crashkit.trace(world(tmp_path, "trace")[1], lambda d: d.release_table_name("a"))
    assert {point for point, _ in points} >= {p.name for pair in RELEASE.points.values() for p in pair}
    outcomes = []
    for index, (point, nth) in enumerate(points):
        catalog, opener = world(tmp_path, f"w{index}")
        assert crashkit.crash_at(opener, lambda d: d.release_table_name("a"), point, nth)
        state = versions_and_files(catalog, opener)  # recovery ran on the open
        assert state in (before, after), (point, nth)
        with opener() as again:
            assert again.last_recovery.nothing_to_do, (point, nth)
        outcomes.append("after" if state == after else "before")
    assert outcomes == sorted(outcomes, key=lambda o: o == "after") and outcomes[-1] == "after", outcomes


@pytest.mark.parametrize("name", ["db.t", "`my db`.`it's t`", "d.`t;rm -rf`"])
def test_the_command_in_the_note_names_the_table_exactly_whatever_its_name(name):
    table = TableName.of(name)
    argument = shlex.split(release_command("/a home", table))[-1]
    assert TableName.of(argument) == table
