"""The Spark catalog's side of :class:`~storage.catalogs.ports.Copies` port: a table version of another
metastore (the Thrift text of :mod:`~storage.catalogs.spark.hms.definition_text`) moved to a directory of this
warehouse,
its files copied there as files, and a checksum of a table's rows computed by one Spark job."""

from __future__ import annotations

from typing import Any

from storage.catalogs.copying import INTERNAL_PROPERTY_PREFIXES, DatabaseDefinition
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, engine_error, inspect_error
from storage.catalogs.spark.fs.version_files import copy_version_files
from storage.catalogs.spark.hms.definition_digest import definition_digest
from storage.catalogs.spark.hms.definition_text import relocated_records, version_text
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.errors import CatalogError, NoSuchObjectError, NotAtomicError

CHECKSUM_SQL = ("SELECT count(1), coalesce(sum(CAST(xxhash64(to_json(struct(*))) AS DECIMAL(38, 0))), 0) "
                "FROM {table}")
"""A table's rows as a count and the sum of a 64-bit hash of each row (its JSON: every type, maps included): equal
rows give equal sums whatever their order or files, and a duplicated or lost row changes both."""


class SparkCopying:
    """Copy table versions between metastores and read what a replica compares."""

    def __init__(self, engine: Engine, client: MetastoreClient | None) -> None:
        """``client``: the catalog's metastore client (None on a session without one: Spark Connect)."""
        self._engine = engine
        self._client = client

    def list_databases(self) -> list[str]:
        try:
            return sorted(str(db.name) for db in self._engine.spark.catalog.listDatabases())
        except ENGINE_ERRORS as error:
            raise engine_error(inspect_error(error), "cannot list the databases", None) from None

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        if self._client is None:  # Spark Connect: the comment only
            try:
                return DatabaseDefinition(self._engine.spark.catalog.getDatabase(db).description or None)
            except ENGINE_ERRORS:
                return None
        database = self._client.database(db)
        if database is None:
            return None
        properties = {str(k): str(v) for k, v in dict(database.getParameters() or {}).items()}
        kept = tuple(sorted((k, v) for k, v in properties.items() if not k.startswith(INTERNAL_PROPERTY_PREFIXES)))
        description = database.getDescription()
        return DatabaseDefinition(str(description) if description else None, kept)

    def relocated_version(self, definition: str, location: str) -> str:
        table, partitions, outside = relocated_records(definition, location)  # the install renames them
        name = TableName(table.db, table.name)
        if outside:
            raise NotAtomicError(f"a partition of {name} lies outside the table's directory ({outside[0]}): its "
                                 "files would be shared, not copied", str(name))
        table = table.with_parameters(
            remove=[key for key in table.parameters if key.startswith(INTERNAL_PROPERTY_PREFIXES)])
        return version_text(name, table, [partition.placed(name) for partition in partitions]).definition

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        if self._client is None:
            raise CatalogError(f"cannot copy a version into {name}: {self._engine.profile.metastore_refusal}",
                               str(name))
        table = self._client.get(name)
        if table is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        copied = copy_version_files(location, table.location, name, self._engine.spark)
        self._engine.forget(name)
        self._engine.spark.catalog.refreshTable(name.quoted)
        return copied

    def definition_digest(self, name: TableName) -> str | None:
        if self._client is None:
            return None
        try:
            return definition_digest(self._engine.spark, name.db, name.name)
        except ENGINE_ERRORS as error:
            raise engine_error(inspect_error(error), f"cannot read the definition of {name}", name) from None

    def row_checksum(self, name: TableName) -> str:
        try:
            row: Any = self._engine.spark.sql(CHECKSUM_SQL.format(table=name.quoted)).collect()[0]
        except ENGINE_ERRORS as error:
            failure = inspect_error(error)
            raise engine_error(failure, f"cannot read the rows of {name}", name) from None
        return f"{int(row[0])}:{row[1]}"
