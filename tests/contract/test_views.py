"""Views: definitions and identity, and one namespace shared with tables (as in Spark's session catalog)."""

from __future__ import annotations

from storage.catalogs.interface import Fill, TableSpec, ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import NoSuchObjectError, ObjectExistsError, WrongObjectKindError
from tests.contract.support import AB, SIMPLE, Engine, raises

ONE = ViewDefinition("SELECT 1 AS one")
TWO = ViewDefinition("SELECT 2 AS two", comment="the second", columns=("deux",))


def test_a_view_keeps_its_definition(catalog: Catalog, db: str) -> None:
    v, w = TableName(db, "v"), TableName(db, "w")
    catalog.views.create_view(v, ONE, replace=False)
    catalog.views.create_view(w, TWO, replace=False)
    assert catalog.views.view_definition(v) == ONE
    assert catalog.views.view_definition(w) == TWO
    assert catalog.views.view_definition(TableName(db, "missing")) is None


def test_replacing_a_view_makes_it_another_view(catalog: Catalog, engine: Engine, db: str) -> None:
    """Spark's metastore renews a replaced view's create time, so a replace is a new view: recovery never drops a
    view someone replaced after a crash, even with the text the log noted."""
    v = TableName(db, "v")
    catalog.views.create_view(v, ONE, replace=False)
    before = catalog.views.view_identity(v)
    assert before is not None
    raises(ObjectExistsError, v, lambda: catalog.views.create_view(v, TWO, replace=False))
    engine.tick()
    catalog.views.create_view(v, ViewDefinition("SELECT 3 AS one"), replace=True)
    assert catalog.views.view_definition(v) == ViewDefinition("SELECT 3 AS one")
    assert catalog.views.view_identity(v) not in (None, before)


def test_a_view_created_again_under_its_name_is_another_view(catalog: Catalog, engine: Engine, db: str) -> None:
    v = TableName(db, "v")
    catalog.views.create_view(v, ONE, replace=False)
    before = catalog.views.view_identity(v)
    catalog.views.drop_view(v)
    assert catalog.views.view_identity(v) is None and catalog.views.view_definition(v) is None
    engine.tick()
    catalog.views.create_view(v, ONE, replace=False)
    assert catalog.views.view_identity(v) not in (None, before)


def test_a_renamed_view_keeps_its_definition_and_identity(catalog: Catalog, db: str) -> None:
    v, w = TableName(db, "v"), TableName(db, "w")
    catalog.views.create_view(v, TWO, replace=False)
    before = catalog.views.view_identity(v)
    catalog.views.rename_view(v, w)
    assert catalog.views.view_definition(v) is None
    assert catalog.views.view_definition(w) == TWO and catalog.views.view_identity(w) == before
    raises(NoSuchObjectError, v, lambda: catalog.views.drop_view(v))


def test_a_view_occupies_its_name_for_tables(catalog: Catalog, engine: Engine, db: str) -> None:
    v = TableName(db, "v")
    catalog.views.create_view(v, ONE, replace=False)
    raises(ObjectExistsError, v, lambda: catalog.data.create(v, SIMPLE, "tag-1"))
    raises(ObjectExistsError, v, lambda: catalog.data.create(v, TableSpec(df=engine.frame(AB, [(1, "x")])), "tag-1"))
    assert catalog.views.view_definition(v) == ONE and not catalog.names.exists(v)


def test_a_table_cannot_be_renamed_onto_a_view(catalog: Catalog, db: str) -> None:
    t, v = TableName(db, "t"), TableName(db, "v")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.views.create_view(v, ONE, replace=False)
    raises(ObjectExistsError, v, lambda: catalog.names.rename(t, v))
    assert catalog.names.identity(t) == "tag-1" and catalog.views.view_definition(v) == ONE


def test_a_table_occupies_its_name_for_views(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    raises(ObjectExistsError, t, lambda: catalog.views.create_view(t, ONE, replace=False))
    raises(ObjectExistsError, t, lambda: catalog.views.create_view(t, ONE, replace=True))
    assert catalog.names.identity(t) == "tag-1" and catalog.views.view_definition(t) is None


def test_a_view_cannot_be_renamed_onto_a_table(catalog: Catalog, db: str) -> None:
    t, v = TableName(db, "t"), TableName(db, "v")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.views.create_view(v, ONE, replace=False)
    raises(ObjectExistsError, t, lambda: catalog.views.rename_view(v, t))
    assert catalog.names.identity(t) == "tag-1" and catalog.views.view_definition(v) == ONE


def test_a_view_is_not_a_table(catalog: Catalog, engine: Engine, db: str) -> None:
    v = TableName(db, "v")
    catalog.views.create_view(v, ONE, replace=False)
    assert not catalog.names.exists(v) and catalog.names.identity(v) is None
    assert catalog.definitions.table_metadata(v) is None
    assert catalog.names.list_tables(db) == []
    raises(WrongObjectKindError, v, lambda: catalog.names.drop(v))
    raises(WrongObjectKindError, v, lambda: catalog.names.rename(v, TableName(db, "w")))
    raises(WrongObjectKindError, v, lambda: catalog.data.insert(v, Fill(df=engine.frame((("one", "int"),), [(1,)]))))
    raises(WrongObjectKindError, v, lambda: catalog.definitions.set_properties(v, {"k": "v"}))
    assert catalog.directories.clean_leftovers(v) is False
    assert catalog.views.view_definition(v) == ONE


def test_a_table_is_not_a_view(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    assert catalog.views.view_definition(t) is None and catalog.views.view_identity(t) is None
    raises(WrongObjectKindError, t, lambda: catalog.views.drop_view(t))
    raises(WrongObjectKindError, t, lambda: catalog.views.rename_view(t, TableName(db, "w")))
    assert catalog.names.identity(t) == "tag-1"
