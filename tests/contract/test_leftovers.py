"""Files left at a table's default location without a table (a failed CTAS, a drop or rename cut half-way)."""

from __future__ import annotations

from storage.catalogs.interface import TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import LeftoverFilesError
from tests.contract.support import AB, SIMPLE, Engine, raises


def test_files_left_at_a_location_block_a_create_there(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    engine.leave_files(t)
    raises(LeftoverFilesError, t, lambda: catalog.data.create(t, SIMPLE, "tag-1"))
    assert not catalog.names.exists(t) and engine.has_files(t)


def test_files_left_at_a_location_block_a_rename_onto_it(catalog: Catalog, engine: Engine, db: str) -> None:
    old, new = TableName(db, "old"), TableName(db, "new")
    catalog.data.create(old, SIMPLE, "tag-1")
    engine.leave_files(new)
    raises(LeftoverFilesError, new, lambda: catalog.names.rename(old, new))
    assert catalog.names.identity(old) == "tag-1" and not catalog.names.exists(new)


def test_clean_leftovers_removes_them_once_and_frees_the_name(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    engine.leave_files(t)
    assert catalog.directories.clean_leftovers(t) is True
    assert not engine.has_files(t)
    assert catalog.directories.clean_leftovers(t) is False
    catalog.data.create(t, SIMPLE, "tag-1")
    assert catalog.names.identity(t) == "tag-1"


def test_clean_leftovers_leaves_a_table_alone(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, TableSpec(df=engine.frame(AB, [(1, "x")])), "tag-1")
    assert catalog.directories.clean_leftovers(t) is False
    assert catalog.names.identity(t) == "tag-1" and engine.rows(t) == [(1, "x")]


def test_the_logs_own_names_clear_their_leftovers_on_create_and_rename(catalog: Catalog, engine: Engine,
                                                                       db: str) -> None:
    tmp, backup, user = TableName(db, "ddllog_tmp"), TableName(db, "ddllog_backup"), TableName(db, "t")
    engine.leave_files(tmp)
    catalog.data.create(tmp, SIMPLE, "tag-1")
    assert catalog.names.identity(tmp) == "tag-1"
    catalog.data.create(user, SIMPLE, "tag-2")
    engine.leave_files(backup)
    catalog.names.rename(user, backup)
    assert catalog.names.identity(backup) == "tag-2"
