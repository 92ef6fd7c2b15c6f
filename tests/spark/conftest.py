"""Spark test fixtures: ``catalog`` (a Spark catalog on the shared session, cleaned up after each test), and a
database of read-only tables that a module builds once and shares among its tests (the per-test clean-up,
``tests.conftest.reset_spark``, spares it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storage.catalogs.ports import Catalog
from storage.catalogs.spark.catalog import spark_catalog
from tests.conftest import reset_spark, warehouse_of

SHARED_DB = "shared_ro"
"""The database of a module's shared read-only tables (see :func:`shared_db`)."""


@pytest.fixture
def catalog(clean_spark: Any) -> Catalog:
    """A The Spark catalog on the shared session, cleaned up after the test."""
    return spark_catalog(clean_spark)


@pytest.fixture(scope="module")
def shared_db(spark: Any) -> Iterator[str]:
    """An empty database for one module's read-only tables (the module's own module-scoped fixture fills it); after
    the module's last test everything is dropped. Tests that use it clean up with :func:`spare_shared`."""
    warehouse = warehouse_of(spark)
    reset_spark(spark, warehouse)
    spark.sql(f"CREATE DATABASE {SHARED_DB}")
    yield SHARED_DB
    reset_spark(spark, warehouse)


@pytest.fixture
def spare_shared(spark: Any, warehouse: Path, shared_db: str) -> Iterator[Any]:
    """The shared session; afterwards everything is dropped as by ``clean_spark`` except the module's shared
    database, whose tables the tests only read."""
    yield spark
    reset_spark(spark, warehouse, keep=[shared_db])
