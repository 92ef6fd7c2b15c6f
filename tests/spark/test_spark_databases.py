"""The Spark catalog databases against the embedded Spark 4 + Hive metastore: their life cycle (what blocks a drop, what
the drop removes), and the identities of databases and views that recovery checks before it drops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from storage.catalogs.interface import Column, DatabaseObjects, FunctionDefinition, TableSpec, ViewDefinition
from storage.catalogs.ports import Catalog
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
)
from tests.spark.catalog_support import ABS, HOSTILE, T, assert_short

pytestmark = pytest.mark.spark


# ---------------------------------------------------------------------- databases


def test_database_lifecycle(catalog: Catalog, warehouse: Path, clean_spark: Any) -> None:
    assert catalog.databases.database_exists("default")
    assert not catalog.databases.database_exists("d1") and not catalog.databases.database_exists("${x}")
    catalog.databases.create_database("d1", comment=HOSTILE, properties=(("k'1", HOSTILE),))
    assert catalog.databases.database_exists("d1") and catalog.databases.database_exists("D1")
    with pytest.raises(ObjectExistsError):
        catalog.databases.create_database("d1")
    for bad in ("a b", "ü", "${x}"):
        with pytest.raises(InvalidNameError):
            catalog.databases.create_database(bad)
    with pytest.raises(InvalidDefinitionError):
        catalog.databases.create_database("d2", properties=(("k", "x" * 4001),))
    with pytest.raises(InvalidDefinitionError):
        catalog.databases.create_database("d2", properties=(("location", "/tmp/elsewhere"),))
    assert not catalog.databases.database_exists("d2")
    assert catalog.databases.list_objects("d1") == DatabaseObjects()
    catalog.data.create(T("t1", "d1"), TableSpec(columns=(Column("a", "int"),)), "tag")
    clean_spark.sql("INSERT INTO `d1`.`t1` VALUES (1)")
    catalog.views.create_view(T("v1", "d1"), ViewDefinition("SELECT a FROM `d1`.`t1`"), replace=False)
    catalog.functions.create_function(
        T("f1", "d1"), FunctionDefinition(class_name=ABS, resources=(("jar", "x.jar"),)), replace=False
    )
    clean_spark.sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    assert catalog.databases.list_objects("d1") == DatabaseObjects((T("t1", "d1"),), (T("v1", "d1"),), (T("f1", "d1"),))
    assert (warehouse / "d1.db" / "t1").is_dir()
    for step in (lambda: catalog.names.drop(T("t1", "d1")), lambda: catalog.views.drop_view(T("v1", "d1"))):
        with pytest.raises(CatalogError, match="not empty") as raised:
            catalog.databases.drop_database("d1")
        assert raised.value.name == "d1"
        step()
    with pytest.raises(CatalogError, match="not empty"):
        catalog.databases.drop_database("d1")  # the function is left
    catalog.functions.drop_function(T("f1", "d1"))
    (warehouse / "d1.db" / "junk").mkdir()  # files without a table
    catalog.databases.drop_database("d1")
    assert not catalog.databases.database_exists("d1")
    assert not (warehouse / "d1.db").exists(), "the database directory is gone"
    for call in (lambda: catalog.databases.drop_database("d1"), lambda: catalog.databases.list_objects("d1")):
        with pytest.raises(NoSuchObjectError) as missing:
            call()
        assert missing.value.name == "d1"
    with pytest.raises(CatalogError) as default:
        catalog.databases.drop_database("default")
    assert default.value.name == "default"
    assert_short(default.value)


# ---------------------------------------------------------------------- identities recovery checks before it drops


def test_a_view_created_anew_under_the_name_has_another_identity_even_with_the_same_text(catalog: Catalog) -> None:
    import time

    name = T("ident_v")
    catalog.views.create_view(name, ViewDefinition("SELECT 1 AS one"), replace=False)
    first = catalog.views.view_identity(name)
    assert first is not None and catalog.names.identity(name) is None, "a view has a view identity, not a table one"
    catalog.views.rename_view(name, T("ident_w"))
    assert catalog.views.view_identity(T("ident_w")) == first, "a rename keeps the identity"
    catalog.views.rename_view(T("ident_w"), name)
    catalog.views.drop_view(name)
    time.sleep(1.1)  # the metastore keeps creation times in seconds
    catalog.views.create_view(name, ViewDefinition("SELECT 1 AS one"), replace=False)
    assert catalog.views.view_identity(name) not in (None, first)
    assert catalog.views.view_identity(T("no_such_view")) is None


def test_a_database_tag_is_kept_in_its_properties_and_a_new_database_has_none(catalog: Catalog,
                                                                             clean_spark: Any) -> None:
    catalog.databases.create_database("tagdb")
    assert catalog.databases.database_identity("tagdb") is None
    tag = catalog.databases.tag_database("tagdb")
    assert tag.startswith("db:") and catalog.databases.database_identity("tagdb") == tag
    assert catalog.databases.tag_database("tagdb") == tag, "tagging twice keeps the first tag"
    catalog.databases.drop_database("tagdb")
    catalog.databases.create_database("tagdb")
    assert catalog.databases.database_identity("tagdb") is None
    catalog.databases.drop_database("tagdb")
    assert catalog.databases.database_identity("tagdb") is None
    with pytest.raises(NoSuchObjectError):
        catalog.databases.tag_database("tagdb")
