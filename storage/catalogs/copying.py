"""What a replica needs of catalogs beyond :class:`~storage.catalogs.interface.Catalog`: copying a table version from
another catalog (its whole definition, moved to a directory of the replica, and its files), listing databases with
their definitions, and a checksum of a table's rows. Both catalogs implement it
(:mod:`storage.catalogs.spark.version_copies`, :mod:`storage.catalogs.memory.memory_catalog`); a replica's bootstrap,
``check`` and ``resync`` use nothing else.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs

from storage.catalogs.interface import Catalog
from storage.catalogs.names import TableName

INTERNAL_PROPERTY_PREFIXES = ("spark_ddl_log.", "spark.sql.sources.ddl_log.")
"""Properties the DDL log keeps for itself (identity tags, visible or hidden, function records): never copied to
another catalog."""


@attrs.frozen
class DatabaseDefinition:
    """A database as another catalog would create it: its comment and its own properties (the DDL log's aside)."""

    comment: str | None = None
    properties: tuple[tuple[str, str], ...] = ()


@runtime_checkable
class CopyingCatalog(Catalog, Protocol):
    """A catalog a replica copies into and reads from."""

    def list_databases(self) -> list[str]:
        """Every database's name, sorted."""
        ...

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        """The comment and properties of ``db`` (None when it is missing)."""
        ...

    def relocated_version(self, definition: str, location: str) -> str:
        """``definition`` (a :meth:`~storage.catalogs.interface.Catalog.version_of`'s, maybe another catalog's) with
        its data at ``location``: its partitions' directories under the old location move under the new one alike.
        A partition located elsewhere is refused (:class:`~storage.errors.NotAtomicError`): its files would be
        shared, not copied."""
        ...

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        """Copy the data files of the version at ``location`` (partition directories included, as files: no job)
        into the directory of the table ``name`` (a table made by :meth:`relocated_version`'s definition).
        ``source``: the catalog whose storage holds ``location`` (None: a file system this process reaches).
        Returns the number of files copied."""
        ...

    def definition_digest(self, name: TableName) -> str | None:
        """The table's definition normalised for comparison with another catalog's copy of it (wherever its files
        are; statistics, times and the log's tag left out), as text; None when there is no such table (or the
        engine cannot say: then it is not compared)."""
        ...

    def row_checksum(self, name: TableName) -> str:
        """The number of rows of ``name`` and an order-independent hash of them, as text: equal for equal rows."""
        ...
