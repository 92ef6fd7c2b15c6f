"""An undo after the table took the new version keeps that version's files for the grace period.

Between a replace's exchange (the name points at the new version's directory) and its commit point, a reader in
another driver may resolve the name and plan a scan of the new files. A crash there is undone: the name gets its old
definition back. The reader's scan must still find every file it planned, so the new version's directory stays for
the grace period, as a replaced version's does after a commit (found by the two-driver readers test: a reader failed
with FILE_NOT_EXIST when the undo deleted the files at once)."""

from __future__ import annotations

import time
from pathlib import Path

from ddl_log import AtomicDDL
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit

T = TableName("default", "t")
OLD_ROWS = [(1,)]
NEW_ROWS = [(2,), (3,)]


def catalog_with_old_table() -> Catalog:
    catalog = memory_catalog()
    catalog.backend.add_user_table(T, ("a",), OLD_ROWS)
    return catalog


def replace(ddl: AtomicDDL) -> object:
    return ddl.create_or_replace_table("t", df=MemoryTable("", ("a",), NEW_ROWS))


def new_version_location(catalog: Catalog, home: Path) -> str:
    """Crash the replace right after the exchange; the name's location then (the new version's directory)."""
    assert crashkit.crash_at(lambda: AtomicDDL(home=home, catalog=catalog, grace_seconds=60), replace,
                             "replace.exchange.after", 1)
    location = catalog.definitions.table_location(T)
    assert location is not None and catalog.backend.tables[T].rows == NEW_ROWS
    return location


def test_a_crash_after_the_exchange_keeps_the_new_versions_files_for_the_grace_period(tmp_path: Path) -> None:
    catalog = catalog_with_old_table()
    new_location = new_version_location(catalog, tmp_path / "home")

    recovered = AtomicDDL(home=tmp_path / "home", catalog=catalog, grace_seconds=60)
    try:
        assert catalog.backend.tables[T].rows == OLD_ROWS, "the statement was undone"
        assert set(catalog.backend.tables) == {T}, "the work table left the catalog"
        assert new_location in catalog.backend.swap.orphans, (
            "a reader that resolved the new version still reads it whole")
        kept = [p for p in recovered.pending_deletions() if p.location == new_location]
        assert len(kept) == 1 and kept[0].due > time.time() + 50, "kept for the grace period, once"
        assert recovered.active_chains() == []
    finally:
        recovered.close()


def test_the_kept_files_go_once_the_grace_period_is_over_and_a_second_recovery_changes_nothing(
        tmp_path: Path) -> None:
    catalog = catalog_with_old_table()
    new_location = new_version_location(catalog, tmp_path / "home")

    AtomicDDL(home=tmp_path / "home", catalog=catalog, grace_seconds=0.05).close()
    time.sleep(0.1)
    reopened = AtomicDDL(home=tmp_path / "home", catalog=catalog, grace_seconds=0.05)
    try:
        assert new_location not in catalog.backend.swap.orphans
        assert reopened.pending_deletions() == [] and reopened.active_chains() == []
        assert catalog.backend.tables[T].rows == OLD_ROWS
    finally:
        reopened.close()
