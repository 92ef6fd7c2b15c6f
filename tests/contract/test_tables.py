"""Tables: create, insert, rename, drop, what the catalog tells about them, and who they are (identity)."""

from __future__ import annotations

from storage.catalogs.interface import TAG_KEYS, Column, Fill, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import NoSuchObjectError, ObjectExistsError
from tests.contract.support import AB, SIMPLE, Engine, raises


def test_a_created_table_exists_and_its_tag_is_its_identity(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    assert not catalog.names.exists(t) and catalog.names.identity(t) is None
    catalog.data.create(t, SIMPLE, "tag-1")
    assert catalog.names.exists(t)
    assert catalog.names.identity(t) == "tag-1"
    assert catalog.names.list_tables(db) == [t]


def test_a_table_is_described_with_columns_types_partitioning_and_properties(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    spec = TableSpec(
        columns=(Column("day", "STRING"), Column("a", "INT"), Column("b", "bigint")),
        partitioned_by=("day",),
        properties=(("owner_team", "x"),),
    )
    catalog.data.create(t, spec, "tag-1")
    metadata = catalog.definitions.table_metadata(t)
    assert metadata is not None
    assert [(c.name, c.type) for c in metadata.columns] == [("a", "int"), ("b", "bigint"), ("day", "string")]
    assert metadata.partitioned_by == ("day",)
    # the tag: among the properties (memory) or hidden from them (Spark, classic); the identity either way
    assert {k: v for k, v in metadata.property_map.items() if k not in TAG_KEYS} == {"owner_team": "x"}
    assert catalog.names.identity(t) == "tag-1"
    assert catalog.definitions.table_metadata(TableName(db, "missing")) is None


def test_create_like_copies_the_shape_of_its_source(catalog: Catalog, db: str) -> None:
    source, copy = TableName(db, "source"), TableName(db, "copy")
    catalog.data.create(source, TableSpec(columns=(Column("a", "int"), Column("k", "string")), partitioned_by=("k",)),
                   "tag-1")
    catalog.data.create(copy, TableSpec(like=source), "tag-2")
    original, copied = catalog.definitions.table_metadata(source), catalog.definitions.table_metadata(copy)
    assert original is not None and copied is not None
    assert copied.columns == original.columns and copied.partitioned_by == ("k",)
    assert catalog.names.identity(copy) == "tag-2"


def test_a_table_created_from_rows_holds_them(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, TableSpec(df=engine.frame(AB, [(1, "x"), (2, "y")])), "tag-1")
    assert engine.rows(t) == [(1, "x"), (2, "y")]


def test_insert_appends_rows_by_position(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.data.insert(t, Fill(df=engine.frame((("n", "int"), ("s", "string")), [(1, "x")])))
    catalog.data.insert(t, Fill(df=engine.frame((("n", "int"), ("s", "string")), [(2, "y")])))
    assert engine.rows(t) == [(1, "x"), (2, "y")]
    assert catalog.names.identity(t) == "tag-1"


def test_a_rename_moves_the_table_with_its_rows_and_identity(catalog: Catalog, engine: Engine, db: str) -> None:
    old, new = TableName(db, "old"), TableName(db, "new")
    catalog.data.create(old, TableSpec(df=engine.frame(AB, [(1, "x")])), "tag-1")
    catalog.names.rename(old, new)
    assert not catalog.names.exists(old) and catalog.names.identity(old) is None
    assert catalog.names.identity(new) == "tag-1"
    assert engine.rows(new) == [(1, "x")]
    assert catalog.names.list_tables(db) == [new]


def test_a_rename_never_overwrites_a_table(catalog: Catalog, db: str) -> None:
    a, b = TableName(db, "a"), TableName(db, "b")
    catalog.data.create(a, SIMPLE, "tag-a")
    catalog.data.create(b, SIMPLE, "tag-b")
    raises(ObjectExistsError, b, lambda: catalog.names.rename(a, b))
    assert (catalog.names.identity(a), catalog.names.identity(b)) == ("tag-a", "tag-b")


def test_a_drop_removes_the_table_and_its_files_and_frees_the_name(catalog: Catalog, engine: Engine, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, TableSpec(df=engine.frame(AB, [(1, "x")])), "tag-1")
    assert catalog.names.drop(t) is True
    assert not catalog.names.exists(t) and catalog.names.list_tables(db) == []
    assert not engine.has_files(t)
    raises(NoSuchObjectError, t, lambda: catalog.names.drop(t))
    catalog.data.create(t, SIMPLE, "tag-2")
    assert engine.rows(t) == []


def test_a_drop_expecting_another_identity_does_nothing(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    ran: list[str] = []
    assert catalog.names.drop(t, expect="tag-other", before=lambda: ran.append("before")) is False
    assert catalog.names.identity(t) == "tag-1" and ran == []
    assert catalog.names.drop(t, expect="tag-1", before=lambda: ran.append("before")) is True
    assert ran == ["before"] and not catalog.names.exists(t)


def test_a_table_created_again_under_its_name_is_another_table(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.names.drop(t)
    catalog.data.create(t, SIMPLE, "tag-2")
    assert catalog.names.identity(t) == "tag-2"


def test_tables_of_other_databases_are_not_listed(catalog: Catalog, db: str) -> None:
    catalog.data.create(TableName(db, "mine"), SIMPLE, "tag-1")
    assert TableName(db, "mine") not in catalog.names.list_tables("default")
    assert catalog.names.list_tables(db) == [TableName(db, "mine")]
