"""What an engine that analyses SQL offers INSERT INTO: the statement checked against the table before anything is
logged or made (:mod:`storage.catalogs.spark.sql.insert_check`); a catalog without it (the in-memory one, which reads no
SQL and takes any rows) has nothing to check."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from storage.catalogs.fill import Fill
from storage.catalogs.names import TableName


@runtime_checkable
class ChecksInserts(Protocol):
    def check_insert(self, name: TableName, fill: Fill) -> None:
        """Raise what inserting ``fill`` into ``name`` would raise for what the engine analyses; no side effect."""
        ...


def check_insert_of(catalog: object, name: TableName, fill: Fill) -> None:
    """:meth:`ChecksInserts.check_insert` when ``catalog`` has it."""
    if isinstance(catalog, ChecksInserts):
        catalog.check_insert(name, fill)
