"""INSERT OVERWRITE of some partitions on Spark: the half of :meth:`SparkCatalog.insert` that writes a static
partition spec and copies in the partitions a statement keeps (:attr:`storage.catalogs.interface.Fill.keep`).

The new table version is built whole in TMP before the swap, so the kept partitions' rows are *copied* (one
``INSERT ... SELECT`` of the old table with a partition predicate): that is the price of replacing some partitions
atomically. Which partitions a statement replaces follows Spark (4.0.1, data source tables):

* dynamic overwrite: the partitions the new rows go to; a kept partition is one with no new row (the anti-join
  compares partition values null-safely, typed, as the new rows hold them; a NULL value is the
  ``__HIVE_DEFAULT_PARTITION__`` partition, and Spark writes an empty string as NULL too).
* static overwrite with static values (``PARTITION (a=1, b)``): every partition whose columns equal the static values
  after Spark's cast to the column type (``a='01'`` is ``a=1`` of an INT column), rows or not.

Empty partitions of the old table (``ALTER TABLE ... ADD PARTITION``) that are kept are added to TMP too, since no
row carries them; the ones replaced disappear, as they do in Spark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.catalogs.interface import KEEP_POINT, Fill
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.catalog import ENGINE_ERRORS, _inspect, sql_string_literal, type_sql

if TYPE_CHECKING:
    from storage.catalogs.spark.catalog import SparkCatalog


def partition_clause(fill: Fill) -> str:
    """`` PARTITION (a='1', b)`` for a fill with static values ('' without: the query then yields every column)."""
    if not fill.static:
        return ""
    parts = [quote_ident(column) if value is None else f"{quote_ident(column)}={sql_string_literal(value)}"
             for column, value in fill.partition]
    return f" PARTITION ({', '.join(parts)})"


class SparkPartitionKeep:
    """Copies the kept partitions of ``fill.keep`` into the table just filled with the new rows."""

    def __init__(self, catalog: SparkCatalog) -> None:
        self._catalog = catalog

    def keep(self, name: TableName, fill: Fill) -> None:
        """Rows, then empty partitions: one INSERT and two or three ``SHOW PARTITIONS`` calls, one ``ADD PARTITION``
        per kept empty partition."""
        source = fill.keep
        if source is None:
            return
        KEEP_POINT()
        old_partitions = self._catalog.list_partitions(source)
        self._copy_rows(name, source, fill)
        new_partitions = self._catalog.list_partitions(name)
        missing = [partition for partition in old_partitions if partition not in new_partitions]
        if missing and fill.replaces == "matching":
            replaced = self._catalog.list_partitions(source, fill.static)
            missing = [partition for partition in missing if partition not in replaced]
        for partition in missing:
            self._catalog.add_partition(name, partition)

    def _copy_rows(self, name: TableName, source: TableName, fill: Fill) -> None:
        columns = [column for column, _ in fill.partition]
        if fill.replaces == "written":
            same = " AND ".join(f"n.{quote_ident(c)} <=> o.{quote_ident(c)}" for c in columns)
            predicate = f"NOT EXISTS (SELECT 1 FROM {name.quoted} AS n WHERE {same})"
        else:
            types = self._partition_types(source, list(fill.static))
            same = " AND ".join(
                f"o.{quote_ident(c)} <=> CAST({sql_string_literal(v)} AS {types[c.lower()]})"
                for c, v in fill.static.items()
            )
            predicate = f"NOT ({same})"
        try:
            self._catalog.spark.sql(f"INSERT INTO {name.quoted} SELECT * FROM {source.quoted} AS o WHERE {predicate}")
        except ENGINE_ERRORS as error:
            raise self._catalog._insert_error(name, _inspect(error)) from None

    def _partition_types(self, source: TableName, columns: list[str]) -> dict[str, str]:
        try:
            schema = self._catalog.spark.table(source.quoted).schema
        except ENGINE_ERRORS as error:
            raise self._catalog._insert_error(source, _inspect(error)) from None
        types = {field.name.lower(): type_sql(field.dataType) for field in schema.fields}
        return {column.lower(): types[column.lower()] for column in columns}
