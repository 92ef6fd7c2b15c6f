"""The catalog contract: every test here runs on the memory catalog and on the Spark catalog (``-m "not spark"``
runs the memory half only). Each test gets a database of its own (``db``); on Spark, the databases the tests made
are dropped once, after the last contract test, not after each."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from storage.catalogs.memory import MemoryState, memory_catalog
from storage.catalogs.names import quote_ident
from storage.catalogs.ports import Catalog
from tests.contract.support import Engine, MemoryEngine, SparkEngine, new_database_name


@pytest.fixture(scope="package")
def spark_databases() -> Iterator[list[tuple[Any, str]]]:
    """(session, database) made on Spark by contract tests; dropped when the package is done."""
    made: list[tuple[Any, str]] = []
    yield made
    for spark, db in made:
        spark.sql(f"DROP DATABASE IF EXISTS {quote_ident(db)} CASCADE")


@pytest.fixture(params=["memory", pytest.param("spark", marks=pytest.mark.spark)])
def catalog(request: pytest.FixtureRequest) -> Catalog:
    if request.param == "memory":
        return memory_catalog()
    from storage.catalogs.spark.catalog import spark_catalog

    return spark_catalog(request.getfixturevalue("spark"))


@pytest.fixture
def engine(catalog: Catalog, request: pytest.FixtureRequest) -> Engine:
    if isinstance(catalog.backend, MemoryState):
        return MemoryEngine(catalog)
    return SparkEngine(catalog, request.getfixturevalue("spark"))


@pytest.fixture
def db(catalog: Catalog, request: pytest.FixtureRequest, spark_databases: list[tuple[Any, str]]) -> str:
    """A new, empty database of this test's own."""
    name = new_database_name()
    catalog.databases.create_database(name)
    if not isinstance(catalog.backend, MemoryState):
        spark_databases.append((request.getfixturevalue("spark"), name))
    return name
