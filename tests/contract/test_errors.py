"""Errors by type, each naming the offending object: what the DDL log's statements tell apart."""

from __future__ import annotations

import pytest

from storage.catalogs.interface import (
    TAG_PROPERTY,
    Column,
    Fill,
    FunctionDefinition,
    TableSpec,
    ViewDefinition,
)
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import CatalogError, InvalidDefinitionError, InvalidNameError, NoSuchObjectError, ObjectExistsError
from tests.contract.support import SIMPLE, Engine, new_database_name, raises


def test_missing_objects_raise_no_such_object_naming_them(catalog: Catalog, engine: Engine, db: str) -> None:
    t, other = TableName(db, "missing"), TableName(db, "other")
    raises(NoSuchObjectError, t, lambda: catalog.names.drop(t))
    raises(NoSuchObjectError, t, lambda: catalog.names.rename(t, other))
    raises(NoSuchObjectError, t, lambda: catalog.data.insert(t, Fill(df=engine.frame((("a", "int"),), [(1,)]))))
    raises(NoSuchObjectError, t, lambda: catalog.definitions.set_properties(t, {"k": "v"}))
    raises(NoSuchObjectError, t, lambda: catalog.data.create(other, TableSpec(like=t), "tag-1"))
    raises(NoSuchObjectError, t, lambda: catalog.data.check_create(TableSpec(like=t)))
    raises(NoSuchObjectError, t, lambda: catalog.views.drop_view(t))
    raises(NoSuchObjectError, t, lambda: catalog.views.rename_view(t, other))
    raises(NoSuchObjectError, t, lambda: catalog.functions.drop_function(t))
    assert not catalog.names.exists(other)


def test_objects_need_their_database(catalog: Catalog) -> None:
    db = new_database_name()
    t = TableName(db, "t")
    raises(NoSuchObjectError, db, lambda: catalog.data.create(t, SIMPLE, "tag-1"))
    raises(NoSuchObjectError, db, lambda: catalog.views.create_view(t, ViewDefinition("SELECT 1 AS one"),
                                                                    replace=False))
    raises(NoSuchObjectError, db, lambda: catalog.functions.create_function(t, FunctionDefinition(class_name="a.B"),
                                                                  replace=False))
    raises(NoSuchObjectError, db, lambda: catalog.names.list_tables(db))
    raises(NoSuchObjectError, db, lambda: catalog.databases.list_objects(db))
    raises(NoSuchObjectError, db, lambda: catalog.databases.tag_database(db))
    raises(NoSuchObjectError, db, lambda: catalog.databases.drop_database(db))
    assert not catalog.names.exists(t) and catalog.databases.database_identity(db) is None
    assert not catalog.databases.database_exists(db)


def test_existing_objects_raise_object_exists_naming_them(catalog: Catalog, db: str) -> None:
    t, v = TableName(db, "t"), TableName(db, "v")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.views.create_view(v, ViewDefinition("SELECT 1 AS one"), replace=False)
    raises(ObjectExistsError, t, lambda: catalog.data.create(t, SIMPLE, "tag-2"))
    raises(ObjectExistsError, v, lambda: catalog.views.create_view(v, ViewDefinition("SELECT 2 AS two"), replace=False))
    raises(ObjectExistsError, db, lambda: catalog.databases.create_database(db))
    assert catalog.names.identity(t) == "tag-1"


@pytest.mark.parametrize("bad", ["bad name", "naïve"])
def test_names_spark_cannot_store_raise_invalid_name(catalog: Catalog, db: str, bad: str) -> None:
    t, name = TableName(db, "t"), TableName(db, bad)
    raises(InvalidNameError, name, lambda: catalog.data.create(name, SIMPLE, "tag-1"))
    catalog.data.create(t, SIMPLE, "tag-1")
    raises(InvalidNameError, name, lambda: catalog.names.rename(t, name))
    raises(InvalidNameError, name, lambda: catalog.views.create_view(name, ViewDefinition("SELECT 1 AS one"),
                                                               replace=False))
    raises(InvalidNameError, name, lambda: catalog.functions.create_function(name, FunctionDefinition(class_name="a.B"),
                                                                   replace=False))
    raises(InvalidNameError, bad, lambda: catalog.databases.create_database(bad))
    assert catalog.names.list_tables(db) == [t]


BAD_SPECS = {
    "no columns": TableSpec(columns=()),
    "unknown partition column": TableSpec(columns=(Column("a", "int"), Column("b", "int")), partitioned_by=("z",)),
    "partitioned by every column": TableSpec(columns=(Column("a", "int"),), partitioned_by=("a",)),
    "the log's tag as a property": TableSpec(columns=(Column("a", "int"),), properties=((TAG_PROPERTY, "x"),)),
    "no source": TableSpec(),
}


@pytest.mark.parametrize("spec", BAD_SPECS.values(), ids=BAD_SPECS.keys())
def test_definitions_spark_refuses_raise_invalid_definition(catalog: Catalog, db: str, spec: TableSpec) -> None:
    t = TableName(db, "t")
    raises(InvalidDefinitionError, t, lambda: catalog.data.create(t, spec, "tag-1"))
    with pytest.raises(InvalidDefinitionError):
        catalog.data.check_create(spec)
    assert not catalog.names.exists(t)


def test_a_column_named_twice_raises_object_exists_naming_it_as_spark_does(catalog: Catalog, db: str) -> None:
    """Spark's COLUMN_ALREADY_EXISTS, case-insensitively."""
    t = TableName(db, "t")
    spec = TableSpec(columns=(Column("a", "int"), Column("A", "int")))
    raises(ObjectExistsError, "A", lambda: catalog.data.create(t, spec, "tag-1"))
    with pytest.raises(ObjectExistsError):
        catalog.data.check_create(spec)
    assert not catalog.names.exists(t)


def test_view_and_function_definitions_spark_refuses_raise_invalid_definition(catalog: Catalog, db: str) -> None:
    v, f = TableName(db, "v"), TableName(db, "f")
    raises(InvalidDefinitionError, v, lambda: catalog.views.create_view(v, ViewDefinition("  "), replace=False))
    for definition in (
        FunctionDefinition(),
        FunctionDefinition(class_name="a.B", params="x INT"),
        FunctionDefinition(class_name="a.B", resources=(("pdf", "file:/x"),)),
        FunctionDefinition(class_name="a.B", params="x INT", returns="INT", body="x"),
        FunctionDefinition(params="x INT", returns="INT", body="  "),
    ):
        raises(InvalidDefinitionError, f, lambda d=definition: catalog.functions.create_function(f, d, replace=False))
    assert catalog.databases.list_objects(db).empty


def test_tables_and_views_stay_in_their_database_on_rename(catalog: Catalog, db: str) -> None:
    t, v, elsewhere = TableName(db, "t"), TableName(db, "v"), TableName("default", "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.views.create_view(v, ViewDefinition("SELECT 1 AS one"), replace=False)
    error = raises(CatalogError, elsewhere, lambda: catalog.names.rename(t, elsewhere))
    assert "within a database" in str(error)
    raises(CatalogError, elsewhere, lambda: catalog.views.rename_view(v, elsewhere))
    assert catalog.names.identity(t) == "tag-1" and not catalog.names.exists(elsewhere)
