"""The partition specs of ADD PARTITION, DROP PARTITION and TRUNCATE TABLE ... PARTITION, checked as Spark's v1
commands check them before they change anything, with Spark's conditions (probed on Spark 4.0 and 4.3): code that
catches Spark's errors by condition catches these alike."""

from __future__ import annotations

from collections.abc import Mapping

from storage.catalogs.interface import TableMetadata
from storage.catalogs.names import TableName
from storage.errors import InvalidDefinitionError, NoSuchObjectError

NOT_IN_METASTORE = "_LEGACY_ERROR_TEMP_1251"
"""ADD/DROP PARTITION of an unpartitioned data source table: its partitions are not metastore records."""
NOT_EXACT = "_LEGACY_ERROR_TEMP_1232"
"""ADD PARTITION with a spec that does not name every partition column."""
TRUNCATE_UNPARTITIONED = "_LEGACY_ERROR_TEMP_1267"
"""TRUNCATE TABLE ... PARTITION of an unpartitioned table."""


def checked_spec(metadata: TableMetadata, name: TableName, spec: Mapping[str, str], *, action: str,
                 whole: bool = False) -> dict[str, str]:
    """``spec`` with the table's own names of its columns, in table order, or Spark's refusal: an unpartitioned
    table (``action``, as Spark names the statement: ``ALTER TABLE ADD PARTITION``, ``ALTER TABLE DROP PARTITION``,
    ``TRUNCATE TABLE``), a column that is not a partition column (Spark's PARTITIONS_NOT_FOUND, with or without IF
    EXISTS), or, ``whole`` (ADD), a spec that does not name every partition column. Values are not looked at: the
    lookup of the partitions casts them (CAST_INVALID_INPUT where one does not convert, as Spark's)."""
    if not metadata.partitioned_by:
        if action == "TRUNCATE TABLE":
            raise InvalidDefinitionError(f"TRUNCATE TABLE ... PARTITION is not supported for tables that are not "
                                         f"partitioned: {name}", str(name), condition=TRUNCATE_UNPARTITIONED)
        if metadata.provider.lower() != "hive":
            raise InvalidDefinitionError(f"{action} is not allowed on {name} since its partition metadata is not "
                                         "stored in the Hive metastore", str(name), condition=NOT_IN_METASTORE)
    columns = {column.lower(): column for column in metadata.partitioned_by}
    unknown = [key for key in spec if key.lower() not in columns]
    if unknown:
        raise NoSuchObjectError.partition(f"the partition column(s) {', '.join(unknown)} cannot be found in table "
                                          f"{name}", str(name))
    lowered = {key.lower(): value for key, value in spec.items()}
    if whole and set(lowered) != set(columns):
        raise InvalidDefinitionError(f"partition spec ({', '.join(spec)}) must match the partition spec "
                                     f"({', '.join(metadata.partitioned_by)}) defined in table {name}", str(name),
                                     condition=NOT_EXACT)
    return {column: lowered[key] for key, column in columns.items() if key in lowered}

