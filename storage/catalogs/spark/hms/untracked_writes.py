"""Writes from a session that does not manage file source partitions (``spark.sql.hive.manageFilesourcePartitions``
false) into a data source table whose partitions are metastore records.

Spark's own INSERT OVERWRITE and TRUNCATE on such a session change the files under the table's directory and leave
its partition records as they were: no record for a value the statement wrote first, the record of a partition it
emptied kept (its directory gone or empty). A session that manages partitions then reads the old set of partitions
with their new files; one that does not lists the directory. A new version the log writes at a directory of its own
takes ORIG's records as they were, each placed at the same path under the new directory (:func:`records_as_they_were`,
each directory made where the version has none), so that both kinds of reader read what they would read after
Spark's statement. Found by a differential run of the statements on such a session (2026-12-04): the log registered
the partitions the job wrote, and TRUNCATE failed on its work table's ``ADD PARTITION``, which such a session
refuses. TRUNCATE of a partitioned table now keeps its records so on every session, as Spark's TRUNCATE does."""

from __future__ import annotations

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import Engine
from storage.catalogs.spark.hms.hive_record import HivePartition

MANAGE_PARTITIONS = "spark.sql.hive.manageFilesourcePartitions"


def manages_partitions(engine: Engine) -> bool:
    """Whether the session reads and writes a data source table's partitions as metastore records (Spark's default;
    one round trip)."""
    return str(engine.spark.conf.get(MANAGE_PARTITIONS, "true")).strip().lower() != "false"


def untracked_refusal(name: TableName) -> str:
    """Why a write of ``name`` from such a session is refused: its version cannot be written at a directory of its
    own with its records as they were (a partition located away from the path Spark writes its values to, whose
    record Spark's statement would leave reading the old rows; or a table the log builds under a work table, whose
    partitions such a session cannot register)."""
    return (f"cannot write {name} from a session that does not manage file source partitions ({MANAGE_PARTITIONS}"
            "=false): a partition of it is not at the path Spark writes its values to, or its new version needs a "
            "work table; run it on a session that manages them")


def paths_under(records: list[HivePartition], root: str) -> list[str] | None:
    """Each record's location relative to ``root`` (no trailing ``/``); None where one is located outside it."""
    prefix = root.rstrip("/") + "/"
    if any(not p.location.startswith(prefix) for p in records):
        return None
    return [p.location[len(prefix):].rstrip("/") for p in records]


def placed(name: TableName, record: HivePartition, into: str, relative: str) -> HivePartition:
    """``record`` as a partition of ``name`` at ``relative`` under ``into`` (its path property, where it has one,
    pointing at ``into`` as Spark's own records of the table do)."""
    location = f"{into.rstrip('/')}/{relative}"
    moved = record.placed(name, location)
    return moved if record.path_property is None else moved.with_path_property(into)


def records_as_they_were(name: TableName, records: list[HivePartition], root: str,
                         into: str) -> list[HivePartition] | None:
    """ORIG's partition ``records`` (located under its directory ``root``) for its new version at ``into``: the same
    values at the same paths; None where one is located outside ``root`` (Spark's statement would write its rows
    under ``root`` and leave that record reading its own directory, which a version of its own cannot mirror)."""
    relatives = paths_under(records, root)
    if relatives is None:
        return None
    return [placed(name, record, into, relative) for record, relative in zip(records, relatives, strict=True)]
