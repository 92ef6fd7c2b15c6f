"""Table versions for the Spark catalog (:func:`~storage.catalogs.spark.catalog.spark_catalog`): a table's whole
metastore definition (its ``Table`` record and its ``Partition`` records) kept as text in the DDL log, and installed
again exactly.

The text is :mod:`storage.catalogs.spark.hms.definition_text`'s. Installing goes through the
swap's one-call install (:meth:`~storage.catalogs.spark.hms.swap.SparkSwap.install`), or one ``create_table`` plus one
``add_partitions`` for UNDROP. Only on a classic session with the metastore client: the catalog wires
:class:`~storage.catalogs.spark.hms.without_client.WithoutMetastoreClient` in its place otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from storage.catalogs.interface import DataSummary, TableVersion
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import Engine
from storage.catalogs.spark.hms.definition_text import version_records, version_text
from storage.catalogs.spark.hms.hive_record import MANAGED
from storage.catalogs.spark.hms.metastore_client import MetastoreClient, keys_refusal, swap_refusal
from storage.catalogs.spark.hms.partition_reads import create_partitioned
from storage.catalogs.spark.hms.swap import SparkSwap
from storage.errors import NoSuchObjectError, ObjectExistsError


class SparkVersions:
    """Keep and install whole table definitions through the catalog's own metastore client; ``summary`` lists a
    version's data files (:func:`storage.catalogs.spark.fs.data_listing.data_summary`)."""

    def __init__(self, engine: Engine, client: MetastoreClient, swap: SparkSwap,
                 summary: Callable[[str], DataSummary | None]) -> None:
        self._engine = engine
        self._summary = summary
        self._client = client
        self._swap = swap

    def version_of(self, name: TableName) -> TableVersion | None:
        table = self._client.get(name)
        if table is None or swap_refusal(table, name) is not None:
            return None
        partitions = self._client.partitions(name) if table.partitioned else []
        return version_text(name, table, partitions)

    def definition_to_create(self, name: TableName) -> str | None:
        table = self._client.get(name)
        if table is None or table.table_type != MANAGED:
            return None
        partitions = self._client.partitions(name) if table.partitioned else []
        return version_text(name, table, partitions).definition

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        current = self._client.get(name)
        if current is None:
            return None
        table, _ = version_records(name, definition)
        return keys_refusal(current, table, name)

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        table, partitions = version_records(name, definition)
        table = table.renamed(name)
        if tag is not None:
            table = table.with_tag(tag)
        if not create:
            if self._client.get(name) is None:
                raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
            self._engine.forget(name)
            self._swap.install(name, table, partitions)
            return
        if self._client.get(name) is not None:
            raise ObjectExistsError.relation(f"table {name} already exists", str(name))
        self._engine.forget(name)
        create_partitioned(self._client, name, table, partitions)  # never readable without its partitions
        self._swap.invalidate(name)

    def data_summary(self, location: str) -> DataSummary | None:
        return self._summary(location)
