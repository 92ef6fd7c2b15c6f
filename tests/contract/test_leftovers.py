"""Files left at a table's default location without a table (a failed CTAS, a drop or rename cut half-way)."""

from __future__ import annotations

from storage.catalogs.interface import Catalog, TableSpec
from storage.catalogs.names import TableName
from storage.errors import LeftoverFilesError
from tests.contract.support import AB, SIMPLE, Engine, raises


def test_files_left_at_a_location_block_a_create_there(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    engine.leave_files(t)
    raises(LeftoverFilesError, t, lambda: catalog.create(t, SIMPLE, "tag-1"))
    assert not catalog.exists(t) and engine.has_files(t)


def test_files_left_at_a_location_block_a_rename_onto_it(catalog: Catalog, engine: Engine, db: str) -> None:
    old, new = TableName(db, "old"), TableName(db, "new")
    catalog.create(old, SIMPLE, "tag-1")
    engine.leave_files(new)
    raises(LeftoverFilesError, new, lambda: catalog.rename(old, new))
    assert catalog.identity(old) == "tag-1" and not catalog.exists(new)


def test_clean_leftovers_removes_them_once_and_frees_the_name(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    engine.leave_files(t)
    assert catalog.clean_leftovers(t) is True
    assert not engine.has_files(t)
    assert catalog.clean_leftovers(t) is False
    catalog.create(t, SIMPLE, "tag-1")
    assert catalog.identity(t) == "tag-1"


def test_clean_leftovers_leaves_a_table_alone(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    catalog.create(t, TableSpec(df=engine.frame(AB, [(1, "x")])), "tag-1")
    assert catalog.clean_leftovers(t) is False
    assert catalog.identity(t) == "tag-1" and engine.rows(t) == [(1, "x")]


def test_the_logs_own_names_clear_their_leftovers_on_create_and_rename(catalog: Catalog, engine: Engine,
                                                                       db: str) -> None:
    tmp, backup, user = TableName(db, "ddllog_tmp"), TableName(db, "ddllog_backup"), TableName(db, "t")
    engine.leave_files(tmp)
    catalog.create(tmp, SIMPLE, "tag-1")
    assert catalog.identity(tmp) == "tag-1"
    catalog.create(user, SIMPLE, "tag-2")
    engine.leave_files(backup)
    catalog.rename(user, backup)
    assert catalog.identity(backup) == "tag-2"
