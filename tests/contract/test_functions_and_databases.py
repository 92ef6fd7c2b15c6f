"""Persistent functions, and databases: their objects, their identity (tag), create and drop."""

from __future__ import annotations

from storage.catalogs.interface import TAG_PROPERTY, DatabaseObjects, FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import CatalogError, NoSuchObjectError, ObjectExistsError
from tests.contract.support import SIMPLE, new_database_name, raises

CLASS_FUNCTION = FunctionDefinition(class_name="com.example.Upper", resources=(("jar", "file:/tmp/contract.jar"),))
SQL_FUNCTION = FunctionDefinition(params="x INT", returns="INT", body="x + 1")


def test_a_function_keeps_its_definition(catalog: Catalog, db: str) -> None:
    f, g = TableName(db, "f"), TableName(db, "g")
    catalog.functions.create_function(f, CLASS_FUNCTION, replace=False)
    catalog.functions.create_function(g, SQL_FUNCTION, replace=False)
    assert catalog.functions.function_definition(f) == CLASS_FUNCTION
    assert catalog.functions.function_definition(g) == SQL_FUNCTION
    assert catalog.functions.function_definition(TableName(db, "missing")) is None


def test_a_function_is_replaced_only_when_asked(catalog: Catalog, db: str) -> None:
    f = TableName(db, "f")
    catalog.functions.create_function(f, CLASS_FUNCTION, replace=False)
    raises(ObjectExistsError, f, lambda: catalog.functions.create_function(f, SQL_FUNCTION, replace=False))
    assert catalog.functions.function_definition(f) == CLASS_FUNCTION
    other = FunctionDefinition(class_name="com.example.Lower")
    catalog.functions.create_function(f, other, replace=True)
    assert catalog.functions.function_definition(f) == other


def test_a_dropped_function_is_gone(catalog: Catalog, db: str) -> None:
    f = TableName(db, "f")
    catalog.functions.create_function(f, SQL_FUNCTION, replace=False)
    catalog.functions.drop_function(f)
    assert catalog.functions.function_definition(f) is None
    raises(NoSuchObjectError, f, lambda: catalog.functions.drop_function(f))


def test_functions_and_tables_have_separate_names(catalog: Catalog, db: str) -> None:
    name = TableName(db, "shared")
    catalog.data.create(name, SIMPLE, "tag-1")
    catalog.functions.create_function(name, SQL_FUNCTION, replace=False)
    assert catalog.names.identity(name) == "tag-1" and catalog.functions.function_definition(name) == SQL_FUNCTION


def test_a_database_lists_its_objects_by_kind(catalog: Catalog, db: str) -> None:
    assert catalog.databases.list_objects(db) == DatabaseObjects() and catalog.databases.list_objects(db).empty
    catalog.data.create(TableName(db, "t"), SIMPLE, "tag-1")
    catalog.views.create_view(TableName(db, "v"), ViewDefinition("SELECT 1 AS one"), replace=False)
    catalog.functions.create_function(TableName(db, "f"), SQL_FUNCTION, replace=False)
    assert catalog.databases.list_objects(db) == DatabaseObjects(
        tables=(TableName(db, "t"),), views=(TableName(db, "v"),), functions=(TableName(db, "f"),)
    )


def test_a_database_holding_any_object_cannot_be_dropped(catalog: Catalog, db: str) -> None:
    view, function = TableName(db, "v"), TableName(db, "f")
    catalog.views.create_view(view, ViewDefinition("SELECT 1 AS one"), replace=False)
    raises(CatalogError, db, lambda: catalog.databases.drop_database(db))
    catalog.views.drop_view(view)
    catalog.functions.create_function(function, SQL_FUNCTION, replace=False)
    raises(CatalogError, db, lambda: catalog.databases.drop_database(db))
    assert catalog.databases.database_exists(db)


def test_the_default_database_cannot_be_dropped(catalog: Catalog) -> None:
    raises(CatalogError, "default", lambda: catalog.databases.drop_database("default"))
    assert catalog.databases.database_exists("default")


def test_an_empty_database_is_dropped_and_its_name_freed(catalog: Catalog) -> None:
    db = new_database_name()
    assert not catalog.databases.database_exists(db)
    catalog.databases.create_database(db, comment="for a while")
    assert catalog.databases.database_exists(db)
    raises(ObjectExistsError, db, lambda: catalog.databases.create_database(db))
    catalog.databases.drop_database(db)
    assert not catalog.databases.database_exists(db) and not catalog.databases.database_leftovers_exist(db)
    raises(NoSuchObjectError, db, lambda: catalog.databases.drop_database(db))


def test_a_database_tag_is_given_once_and_is_its_identity(catalog: Catalog, db: str) -> None:
    assert catalog.databases.database_identity(db) is None
    tag = catalog.databases.tag_database(db)
    assert tag.startswith("db:")
    assert catalog.databases.tag_database(db) == tag and catalog.databases.database_identity(db) == tag


def test_a_database_created_again_under_its_name_is_another_database(catalog: Catalog) -> None:
    db = new_database_name()
    catalog.databases.create_database(db)
    first = catalog.databases.tag_database(db)
    catalog.databases.drop_database(db)
    assert catalog.databases.database_identity(db) is None
    catalog.databases.create_database(db)
    try:
        assert catalog.databases.database_identity(db) is None
        assert catalog.databases.tag_database(db) != first
    finally:
        catalog.databases.drop_database(db)


def test_a_database_created_with_a_tag_property_has_that_identity(catalog: Catalog) -> None:
    db, tag = new_database_name(), "db:" + "0123456789abcdef" * 2
    catalog.databases.create_database(db, properties=((TAG_PROPERTY, tag),))
    try:
        assert catalog.databases.database_identity(db) == tag
    finally:
        catalog.databases.drop_database(db)
