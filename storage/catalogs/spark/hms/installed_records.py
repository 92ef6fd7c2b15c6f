"""The ``Table`` record a statement just wrote for a name (installed or created), kept for the statement: the version
record of its binlog event reads it instead of reading the record back (one metastore call of every replace that
records a version). A data source table's only: the metastore adds to what it stores only keys that Spark's catalog
leaves out of such a table (its statistics, the keys Hive generates), where a Hive serde table keeps
``transient_lastDdlTime`` among its properties. ``tests/spark/test_version_record_written.py`` compares it with a
fresh read after every kind of statement that records a version."""

from __future__ import annotations

from storage.catalogs import lookup_scope
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import INSTALLED_RECORD, Engine
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.restored_schema import PROVIDER_PROPERTY


def keep_installed(engine: Engine, name: TableName, table: HiveTable) -> None:
    """Keep ``table``, just written as the record of ``name``, for :func:`installed_record` (every change of the name
    forgets it, ``Engine.forget``)."""
    if PROVIDER_PROPERTY in table.parameters and not table.is_view:
        lookup_scope.remember(engine, (INSTALLED_RECORD, name), table)


def installed_record(engine: Engine, name: TableName) -> HiveTable | None:
    """The record this statement wrote as ``name`` (a data source table) since it last changed the name otherwise;
    None where there is none (the caller reads the record)."""
    known = lookup_scope.cached(engine, (INSTALLED_RECORD, name))
    return None if known is lookup_scope.MISSING_ENTRY else known  # type: ignore[no-any-return]
