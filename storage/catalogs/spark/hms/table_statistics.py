"""What Spark's in-place statements (INSERT INTO, INSERT OVERWRITE, TRUNCATE) do to a table's statistics once their
files are in: ``CommandUtils.updateTableStats`` of the table as it was before the statement. Statistics Spark reads
are dropped (the metastore then counts the files again), or, where the session recomputes sizes after a write
(``spark.sql.statistics.size.autoUpdate.enabled``), set to the new files' size; a table without statistics on a
session that does not recompute keeps its record as it was. The engine installs the new version with the old
version's statistics and, where the session recomputes sizes, runs Spark's own function right after (before the
commit: undo puts the old record back); where Spark would only drop them, the install itself drops Spark's and has
the metastore count the files, in the one call (:func:`in_place`)."""

from __future__ import annotations

import attrs

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import Engine
from storage.catalogs.spark.hms.hive_record import SPARK_STATISTICS, HiveTable
from storage.catalogs.spark.jvm import static, table_identifier

SIZE_UPDATE = "spark.sql.statistics.size.autoUpdate.enabled"


def recomputes_sizes(engine: Engine) -> bool:
    """Whether the session sets a table's size after every write (``spark.sql.statistics.size.autoUpdate
    .enabled``)."""
    return str(engine.spark.conf.get(SIZE_UPDATE, "false")).strip().lower() == "true"


@attrs.frozen
class InPlaceStatistics:
    """The statistics of an in-place statement's new version: ``table`` the record to install with them,
    ``keep`` the metastore leaves them as given (else it counts the files at the install), ``update`` Spark's
    update (:func:`update_statistics`) runs right after the install."""

    table: HiveTable
    keep: bool
    update: bool


def changes_statistics(old: HiveTable, *, recomputes: bool) -> bool:
    """Whether Spark's in-place statement on ``old`` changes its statistics after its write (it has some Spark
    reads, or the session recomputes sizes); else the record stays as it was."""
    return recomputes or has_statistics(old)


def in_place(new: HiveTable, old: HiveTable, *, recomputes: bool) -> InPlaceStatistics:
    """``new`` (the new version's record) as Spark's in-place statement leaves ``old``'s statistics after its write;
    ``recomputes``: the session sets sizes after writes (:func:`recomputes_sizes`)."""
    carried = new.with_statistics_of(old)
    if recomputes:
        return InPlaceStatistics(carried, keep=True, update=True)
    if has_statistics(old):  # Spark drops its own and the metastore counts the files: the install does both
        spark_statistics = [key for key in carried.parameters if key.startswith(SPARK_STATISTICS)]
        return InPlaceStatistics(carried.with_parameters(remove=spark_statistics), keep=False, update=False)
    return InPlaceStatistics(carried, keep=True, update=False)


def has_statistics(table: HiveTable) -> bool:
    """Whether Spark reads statistics from ``table``'s record: any of its own (``spark.sql.statistics.*``), else
    the metastore's size, or its raw data size, above zero (Spark's ``HiveExternalCatalog`` and
    ``HiveClientImpl.readHiveStats``)."""
    parameters = table.parameters
    if any(key.startswith(SPARK_STATISTICS) for key in parameters):
        return True

    def above_zero(key: str) -> bool:
        value = parameters.get(key, "").strip()
        return value.lstrip("-").isdigit() and int(value) > 0

    return above_zero("totalSize") or above_zero("rawDataSize")


def update_statistics(engine: Engine, name: TableName) -> None:
    """Spark's ``CommandUtils.updateTableStats`` of ``name`` as its record is now; on a classic session (Spark
    Connect has no handle on it: the statistics stay as installed)."""
    jvm = engine.jvm
    if jvm is None:
        return
    table = jvm.session.sessionState().catalog().getTableMetadata(table_identifier(jvm, name.db, name.name))
    static(jvm.view, jvm.classes.command_utils, "updateTableStats")(jvm.session, table)
