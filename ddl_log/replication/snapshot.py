"""A source's catalog as a replica reads it: each object's whole definition (a table's as the catalog keeps its
versions, with where its files are), read twice around a copy to prove nothing changed in between.

:class:`SourceCatalog` is what bootstrap, ``check`` and ``resync`` need of the source's catalog; :class:`CatalogReader`
reads any :class:`~storage.catalogs.ports.Catalog` in this process: the replica's own (a replica in the
source's metastore, under other database names), or a given one (an in-memory catalog in tests).
:mod:`~ddl_log.replication.reader_process` reads another metastore from a Spark driver of its own.
"""

from __future__ import annotations

import hashlib
import json
from typing import Protocol

import attrs

from storage.catalogs.copying import INTERNAL_PROPERTY_PREFIXES, DatabaseDefinition
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog


@attrs.frozen
class TableCopy:
    """A table as the source has it: its whole definition and where its files are, or why it cannot be copied."""

    name: TableName
    definition: str | None = attrs.field(default=None, repr=False)
    location: str | None = None
    refusal: str | None = None

    @property
    def fingerprint(self) -> str:
        text = f"{canonical(self.definition)}\n{self.location}\n{self.refusal}"
        return hashlib.sha256(text.encode()).hexdigest()[:20]


def canonical(definition: str | None) -> str | None:
    """A definition's text with every JSON object's keys in order, JSON inside strings included: the metastore's
    maps (a table's parameters) come out of Thrift in hash order, which differs between two reads of one table."""
    if definition is None:
        return None

    def parsed(value: object) -> object:
        if isinstance(value, str) and value[:1] in "{[":
            try:
                return parsed(json.loads(value))
            except ValueError:
                return value
        if isinstance(value, dict):
            return {key: parsed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [parsed(item) for item in value]
        return value

    return json.dumps(parsed(definition), sort_keys=True)


@attrs.frozen
class DatabaseSnapshot:
    name: str
    definition: DatabaseDefinition
    tables: tuple[TableCopy, ...] = ()
    views: tuple[tuple[TableName, ViewDefinition], ...] = ()
    functions: tuple[tuple[TableName, FunctionDefinition], ...] = ()

    def fingerprints(self) -> dict[tuple[str, TableName | str], str]:
        """Every object of the database by (kind, name), with a fingerprint of its definition."""
        found: dict[tuple[str, TableName | str], str] = {("database", self.name): fingerprint(self.definition)}
        found.update({("table", table.name): table.fingerprint for table in self.tables})
        found.update({("view", name): fingerprint(view) for name, view in self.views})
        found.update({("function", name): fingerprint(function) for name, function in self.functions})
        return found


def fingerprint(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:20]


class SourceCatalog(Protocol):
    """The source's catalog, read only."""

    files: object | None
    """What the replica's catalog copies a version's files from (an in-memory catalog's storage; None: a file system
    this process reaches)."""

    def databases(self) -> list[str]:
        """Every database of the source's catalog."""
        ...

    def read_database(self, db: str) -> DatabaseSnapshot | None:
        """Everything of ``db`` (None when the database is missing)."""
        ...

    def read_table(self, name: TableName) -> TableCopy | None:
        """One table (None when missing or not a table)."""
        ...

    def digest(self, name: TableName) -> str | None:
        """The table's normalised definition (what ``check`` compares), or None."""
        ...

    def checksum(self, name: TableName) -> str:
        """The table's row checksum, computed by the source's engine."""
        ...

    def close(self) -> None: ...


class CatalogReader:
    """A :class:`SourceCatalog` over a catalog of this process."""

    def __init__(self, catalog: Catalog, files: object | None = None) -> None:
        self.catalog = catalog
        self.files = files

    def databases(self) -> list[str]:
        return self.catalog.copies.list_databases()

    def read_database(self, db: str) -> DatabaseSnapshot | None:
        definition = self.catalog.copies.database_definition(db)
        if definition is None:
            return None
        objects = self.catalog.databases.list_objects(db)
        tables = [table for table in map(self.read_table, objects.tables) if table is not None]
        views = [(name, view) for name in objects.views if (view := self.read_view(name)) is not None]
        functions = [(name, function) for name in objects.functions
                     if (function := self.catalog.functions.function_definition(name)) is not None]
        return DatabaseSnapshot(db, definition, tuple(tables), tuple(views), tuple(functions))

    def read_table(self, name: TableName) -> TableCopy | None:
        if name.is_reserved:  # a statement's work table, never the source's object
            return None
        version = self.catalog.versions.version_of(name)
        if version is not None:
            return TableCopy(name, version.definition, version.location)
        metadata = self.catalog.definitions.table_metadata(name)
        if metadata is None:
            return None  # gone since it was listed (the second read says so), or a view
        why = "an external table (its files are not the log's)" if metadata.external else \
            f"a {metadata.provider} table whose definition the catalog does not keep whole (Hive serde)"
        return TableCopy(name, refusal=why)

    def read_view(self, name: TableName) -> ViewDefinition | None:
        view = self.catalog.views.view_definition(name)
        if view is None:
            return None
        kept = tuple((k, v) for k, v in view.properties if not k.startswith(INTERNAL_PROPERTY_PREFIXES))
        return attrs.evolve(view, properties=kept)

    def digest(self, name: TableName) -> str | None:
        return self.catalog.copies.definition_digest(name)

    def checksum(self, name: TableName) -> str:
        return self.catalog.copies.row_checksum(name)

    def close(self) -> None:
        return None
