"""The in-memory catalog's side of :class:`~storage.catalogs.copying.CopyingCatalog`: a location's "files" are the
rows of the table that reads it (or of the kept version left there), so a copy from another in-memory catalog takes
that catalog's rows at the location."""

from __future__ import annotations

import hashlib
import json

from storage.catalogs.copying import INTERNAL_PROPERTY_PREFIX, DatabaseDefinition
from storage.catalogs.memory.memory_swap import SwapState, location_of
from storage.catalogs.memory.memory_table import MemoryTable
from storage.catalogs.names import TableName
from storage.errors import InvalidDefinitionError, NoSuchObjectError


class MemoryCopying:
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog` (which provides ``tables``, ``databases``, ...)."""

    tables: dict[TableName, MemoryTable]
    databases: set[str]
    swap: SwapState

    def _check(self, operation: str, name: TableName) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def _table(self, name: TableName) -> MemoryTable:
        raise NotImplementedError  # MemoryCatalog's

    def list_databases(self) -> list[str]:
        return sorted(self.databases)

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        return DatabaseDefinition() if db in self.databases else None

    def relocated_version(self, definition: str, location: str) -> str:
        record = json.loads(definition)
        record["location"] = location
        record["properties"] = {k: v for k, v in record["properties"].items()
                                if not k.startswith(INTERNAL_PROPERTY_PREFIX)}
        return json.dumps(record, sort_keys=True)

    def rows_at(self, location: str) -> list[tuple[object, ...]]:
        """The rows stored at ``location``: the table reading it, else the version kept there."""
        for name, table in self.tables.items():
            if location_of(name, table) == location:
                return list(table.rows)
        kept = self.swap.files.get(location)
        if kept is None:
            raise NoSuchObjectError(f"no files at {location}", location)
        return list(kept.rows)

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        self._check("copy_version_into", name)
        origin = self if source is None else source
        if not isinstance(origin, MemoryCopying):
            raise InvalidDefinitionError(f"the in-memory catalog cannot read the files at {location}", str(name))
        rows = origin.rows_at(location)
        self._table(name).rows = rows
        return len(rows)

    def definition_digest(self, name: TableName) -> str | None:
        table = self.tables.get(name)
        if table is None:
            return None
        properties = {k: v for k, v in table.properties.items() if not k.startswith(INTERNAL_PROPERTY_PREFIX)}
        return json.dumps({"columns": table.columns, "types": table.types, "comments": table.comments,
                           "properties": properties, "partitioned_by": table.partitioned_by,
                           "partitions": sorted(sorted(p.items()) for p in table.partitions),
                           "external": table.external}, sort_keys=True)

    def row_checksum(self, name: TableName) -> str:
        rows = sorted(repr(row) for row in self._table(name).rows)
        return f"{len(rows)}:{hashlib.sha256(chr(10).join(rows).encode()).hexdigest()[:16]}"
