"""What a contract test needs beyond the Catalog protocol, for each catalog: rows in and out, files left at a table's
location (what a torn operation leaves), and a clock tick (Spark's view identities have one-second resolution)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import pytest

from storage.catalogs.interface import Column, TableSpec
from storage.catalogs.memory import MemoryTable
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import CatalogError

Row = tuple[object, ...]
Schema = tuple[tuple[str, str], ...]

AB: Schema = (("a", "int"), ("b", "string"))
SIMPLE = TableSpec(columns=tuple(Column(name, type_) for name, type_ in AB))


def new_database_name() -> str:
    """A database name no other test uses, so that tests on the shared Spark session need no clean-up in between."""
    return "contract_" + uuid.uuid4().hex[:12]


class Engine(Protocol):
    catalog: Catalog

    def frame(self, schema: Schema, rows: list[Row]) -> Any:
        """Rows as the catalog takes them in ``TableSpec.df`` / ``Fill.df``."""
        ...

    def rows(self, name: TableName) -> list[Row]:
        """The rows of table ``name``, sorted."""
        ...

    def leave_files(self, name: TableName) -> None:
        """Put files at the default location of ``name`` (no table of that name exists), as a torn operation does."""
        ...

    def has_files(self, name: TableName) -> bool:
        """Whether anything is at the default location of ``name``."""
        ...

    def tick(self) -> None:
        """Let the catalog's clock move on, so that two creates are told apart."""
        ...


class MemoryEngine:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def frame(self, schema: Schema, rows: list[Row]) -> Any:
        return MemoryTable("", tuple(name for name, _ in schema), list(rows), types=dict(schema))

    def rows(self, name: TableName) -> list[Row]:
        return sorted(self.catalog.backend.tables[name].rows, key=repr)

    def leave_files(self, name: TableName) -> None:
        self.catalog.backend.leftovers.add(name)

    def has_files(self, name: TableName) -> bool:
        return name in self.catalog.backend.leftovers or name in self.catalog.backend.tables

    def tick(self) -> None:
        return None


class SparkEngine:
    def __init__(self, catalog: Any, spark: Any) -> None:
        self.catalog = catalog
        self._spark = spark

    def frame(self, schema: Schema, rows: list[Row]) -> Any:
        return self._spark.createDataFrame(rows, ", ".join(f"{name} {type_}" for name, type_ in schema))

    def rows(self, name: TableName) -> list[Row]:
        return sorted((tuple(row) for row in self._spark.table(name.quoted).collect()), key=repr)

    def _path(self, name: TableName) -> Any:
        from storage.catalogs.spark.profile import local_path

        location = self.catalog.names.default_location(name)
        path = None if location is None else local_path(location)
        assert path is not None, f"the test warehouse is local: {location}"
        return path

    def leave_files(self, name: TableName) -> None:
        path = self._path(name)
        path.mkdir()
        (path / "part-00000.parquet").write_bytes(b"left by a torn operation")

    def has_files(self, name: TableName) -> bool:
        return bool(self._path(name).exists())

    def tick(self) -> None:
        time.sleep(1.05 - time.time() % 1)


def raises(error_type: type[CatalogError], name: object, call: Callable[[], object]) -> CatalogError:
    """``call`` raises exactly ``error_type`` (not a subclass) naming ``name``; returns the error."""
    with pytest.raises(CatalogError) as caught:
        call()
    assert type(caught.value) is error_type, f"{type(caught.value).__name__}: {caught.value}"
    assert caught.value.name == str(name), f"{caught.value.name!r} named, not {name!s}: {caught.value}"
    return caught.value
