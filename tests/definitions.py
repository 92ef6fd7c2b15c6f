"""Table definitions normalised for comparison (:mod:`storage.catalogs.spark.hms.definition_digest`, which a replica's
``check`` uses too), and a table's rows for the tests."""

from __future__ import annotations

from typing import Any

from storage.catalogs.spark.hms.definition_digest import (
    Definition,
    Field,
    PartitionStorage,
    database_location,
    partition_storage,
    partitions,
    table_definition,
)

__all__ = ["Definition", "Field", "PartitionStorage", "database_location", "partition_storage", "partitions", "rows",
           "table_definition"]


def rows(spark: Any, db: str, name: str) -> list[tuple[str, ...]]:
    """The table's rows as sorted tuples of strings (one job)."""
    return sorted(tuple(str(v) for v in row) for row in spark.table(f"`{db}`.`{name}`").collect())
