"""Table versions in the in-memory catalog (the contract of ``Catalog.version_of`` and ``install_version``): a
definition is the table record without its rows, as JSON, its location written out; the rows stay with the
location (:attr:`SwapState.files <storage.catalogs.memory_swap.SwapState.files>`) while no table reads it."""

from __future__ import annotations

import json

from storage.catalogs.interface import TAG_PROPERTY, TableVersion
from storage.catalogs.memory_swap import SwapState, default_location, location_of
from storage.catalogs.memory_table import MemoryTable
from storage.catalogs.names import TableName
from storage.errors import NoSuchObjectError, ObjectExistsError


class MemoryVersions:
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog` (which provides ``tables``, ``swap``, ...)."""

    tables: dict[TableName, MemoryTable]
    swap: SwapState

    def _check(self, operation: str, name: TableName) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def keep_files_of(self, name: TableName, table: MemoryTable) -> None:
        raise NotImplementedError  # MemorySwap's

    def version_of(self, name: TableName) -> TableVersion | None:
        table = self.tables.get(name)
        if table is None or table.external:
            return None
        location = location_of(name, table)
        record = {"columns": list(table.columns), "types": table.types, "comments": table.comments,
                  "properties": table.properties, "partitioned_by": list(table.partitioned_by),
                  "partitions": table.partitions, "location": location, "identity": table.identity}
        properties = {**table.properties, TAG_PROPERTY: table.identity}  # Spark's table parameters hold the tag
        return TableVersion(json.dumps(record, sort_keys=True), location, tuple(sorted(properties.items())),
                            location == default_location(name))

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        current = self.tables.get(name)
        wanted = tuple(json.loads(definition)["partitioned_by"])
        if current is not None and current.partitioned_by != wanted:
            return f"its partition columns {list(wanted)} differ from the table's {list(current.partitioned_by)}"
        return None

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        self._check("install_version", name)
        record = json.loads(definition)
        current = self.tables.get(name)
        if create and current is not None:
            raise ObjectExistsError(f"table {name} already exists", str(name))
        if not create and current is None:
            raise NoSuchObjectError(f"table {name} does not exist", str(name))
        if current is not None:  # its files stay where they are (the version the install replaces)
            del self.tables[name]
            self.keep_files_of(name, current)
        location = str(record["location"])
        files = self.swap.files.pop(location, None)
        self.swap.orphans.discard(location)
        properties = dict(record["properties"])
        identity = tag if tag is not None else str(record["identity"])
        self.tables[name] = MemoryTable(
            identity, tuple(record["columns"]), list(files.rows) if files is not None else [],
            types=dict(record["types"]), comments=dict(record["comments"]), properties=properties,
            partitioned_by=tuple(record["partitioned_by"]), partitions=[dict(p) for p in record["partitions"]],
            location=None if location == default_location(name) else location)

    def data_size(self, location: str) -> int | None:
        files = self.swap.files.get(location)
        return None if files is None else sum(len(repr(row)) for row in files.rows)


