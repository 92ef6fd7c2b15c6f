"""Spark test fixtures: a clean-up that finds what to drop through the JVM session catalog, and a database of
read-only tables that a module builds once and shares among its tests.

:func:`reset_catalog` leaves the catalog as ``tests.conftest.reset_spark`` does (every temporary view, non-default
database, table, view and persistent function of ``default`` dropped, the warehouse directory emptied) and drops
through the same SQL statements; it only finds the objects differently. ``reset_spark`` lists them with five SHOW
statements (~250 ms on an idle machine, several times that under load, even when there is nothing to drop); the
session catalog lists them in a few py4j calls (~15 ms)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

SHARED_DB = "shared_ro"
"""The database of a module's shared read-only tables (see :func:`shared_db`)."""


def _strings(seq: Any) -> list[str]:
    """A Scala ``Seq[String]`` as a list."""
    return [str(seq.apply(index)) for index in range(seq.size())]


def reset_catalog(spark: Any, warehouse: Path, keep: Iterable[str] = ()) -> None:
    """Drop everything the tests made, as ``reset_spark`` does, except the databases named in ``keep`` (and their
    directories); every object is tried even when one fails, then the first failure is raised."""
    from storage.catalogs.names import quote_ident

    kept = {name.lower() for name in keep}
    failures: list[BaseException] = []

    def attempt(statement: str) -> None:
        try:
            spark.sql(statement)
        except Exception as error:  # noqa: BLE001 - collected and raised below
            failures.append(error)

    session_catalog = spark._jsparkSession.sessionState().catalog()
    metastore = session_catalog.externalCatalog()
    temporary = session_catalog.listLocalTempViews("*")
    for index in range(temporary.size()):
        spark.catalog.dropTempView(temporary.apply(index).table())
    for db in _strings(metastore.listDatabases()):
        if db != "default" and db.lower() not in kept:
            attempt(f"DROP DATABASE IF EXISTS {quote_ident(db)} CASCADE")
    views = set(_strings(metastore.listViews("default", "*")))
    for table in _strings(metastore.listTables("default")):
        name = f"`default`.{quote_ident(table)}"
        attempt(f"DROP VIEW IF EXISTS {name}" if table in views else f"DROP TABLE IF EXISTS {name} PURGE")
    for function in _strings(metastore.listFunctions("default", "*")):
        attempt(f"DROP FUNCTION IF EXISTS `default`.{quote_ident(function)}")
    _empty(warehouse, spared={f"{db}.db" for db in kept})
    if failures:
        raise failures[0]


def _empty(warehouse: Path, spared: set[str]) -> None:
    import shutil

    if warehouse.is_dir():
        for entry in warehouse.iterdir():
            if entry.name.lower() in spared:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


@pytest.fixture
def tidy_spark(spark: Any, warehouse: Path) -> Iterator[Any]:
    """The shared session; afterwards the catalog and the warehouse are as ``clean_spark`` leaves them."""
    yield spark
    reset_catalog(spark, warehouse)


def _warehouse_of(spark: Any) -> Path:
    from storage.catalogs.spark.engine import local_path

    path = local_path(str(spark.conf.get("spark.sql.warehouse.dir")))
    assert path is not None, "the test warehouse is local"
    return path


@pytest.fixture(scope="module")
def shared_db(spark: Any) -> Iterator[str]:
    """An empty database for one module's read-only tables (the module's own module-scoped fixture fills it); after
    the module's last test everything is dropped. Tests that use it clean up with :func:`spare_shared`."""
    warehouse = _warehouse_of(spark)
    reset_catalog(spark, warehouse)
    spark.sql(f"CREATE DATABASE {SHARED_DB}")
    yield SHARED_DB
    reset_catalog(spark, warehouse)


@pytest.fixture
def spare_shared(spark: Any, warehouse: Path, shared_db: str) -> Iterator[Any]:
    """The shared session; afterwards everything is dropped as by ``clean_spark`` except the module's shared
    database, whose tables the tests only read."""
    yield spark
    reset_catalog(spark, warehouse, keep=[shared_db])
