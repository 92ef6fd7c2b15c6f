"""Faithful data: the replica's statement for an event that recorded its table version (:mod:`chains.version_records`).

The version's rows are read from the source's own files of that version, never by running the source's query again:
``rand()``, ``current_timestamp()`` and tables the replica lacks give the replica exactly the source's rows. The
replica installs them with its own atomic CREATE OR REPLACE (the swap: its readers see the old or the new version),
under the definition the event recorded. A version whose files are gone (the replica lags past the source's grace
period) stops the replica: installing the current version instead would silently skip history. A dropped version the
source moved out of its name's directory for a new table of that name is found where it went (:func:`moved_aside`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from chains.binlog import BinlogEvent
from chains.version_records import VersionRecord
from ddl_log.engine.create_statements import CreateOrReplaceTable
from ddl_log.engine.schema import table_spec
from ddl_log.engine.texts import sql_string
from ddl_log.engine.typed import Statement
from ddl_log.replication.errors import SourceVersionGoneError
from ddl_log.replication.file_wait import MOVE_WAIT_SECONDS, waiting_for_files
from ddl_log.replication.install import InstallVersion
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.version_moves import is_kept_directory_of

COPYABLE = frozenset({"parquet", "orc"})
"""Providers whose files are read back exactly as written; others (Hive serde, csv/json with options) replay text."""


def copyable(version: VersionRecord | None) -> bool:
    return version is not None and version.provider.lower() in COPYABLE


def schema_text(version: VersionRecord) -> str:
    """The version's columns as a Spark schema string, comments kept."""
    parts = []
    for name, type_text, comment in version.columns:
        part = f"{quote_ident(name)} {type_text}"
        parts.append(part + (f" COMMENT {sql_string(comment)}" if comment else ""))
    return ", ".join(parts)


Renames = Callable[[], Iterable[tuple[TableName, TableName]]]
"""The source's table renames after an event, in order (read only when a version's files moved)."""


def followed(version: VersionRecord, renames: Iterable[tuple[TableName, TableName]]) -> str:
    """Where the version's files are now (:func:`followed_location`)."""
    return followed_location(version.table, version.location, renames)


def followed_location(name: str, location: str, renames: Iterable[tuple[TableName, TableName]]) -> str:
    """Where the files of table ``name`` at ``location`` are now: a RENAME of a table at its default directory makes
    the metastore move the directory to the new name's (``<db>/<new name>``), so later source renames of the table
    are followed."""
    table = TableName.of(name)
    for old, new in renames:
        if old != table:
            continue
        table = new
        head, _, tail = location.rstrip("/").rpartition("/")
        if tail.lower() == old.name.lower():
            location = f"{head}/{new.name.lower()}"
    return location


def present_location(event: BinlogEvent, version: VersionRecord, later: Renames) -> str:
    """The version's files, followed through later renames; stop before the apply when they are gone (local paths;
    elsewhere the read fails instead)."""
    from storage.catalogs.spark.profile import local_path

    path = local_path(version.location)
    if path is None or holds(path, version.files):
        return version.location
    location = followed(version, later())
    path = local_path(location)
    if path is not None and not holds(path, version.files):
        moved = moved_aside(location, version.files)  # scans the database directory, the recorded location's too
        if moved is None:
            raise SourceVersionGoneError(event.seq, version.table, version.location)
        return moved
    return location


def moved_aside(location: str, files: tuple[str, ...] | None) -> str | None:
    """Where the source moved a version that was at ``location`` (or a table's directory since renamed onto another
    name), found by its files: the directory beside it that holds every file the version listed, the log's moved
    versions of that name first (``ddllog_<n>_kept_<name>``: a CREATE or RENAME onto the name moved a dropped
    version aside, :mod:`actions.kinds.relocate_version`), then every other one. Following renames by name cannot
    always tell where a directory went (a RENAME moves the table's current directory, not a version kept at
    ``<db>/<old name>``: found by the Spark soak, seed 9031), the version's own file names (a UUID each) can. Local
    paths only; a version that listed no file, or an event written before versions listed them, cannot be told
    apart from another: None."""
    from storage.catalogs.spark.profile import local_path

    path = local_path(location)
    if not files or path is None or not path.parent.is_dir():
        return None
    head = location.rstrip("/").rpartition("/")[0]
    siblings = sorted(child for child in path.parent.iterdir() if child.is_dir())
    ranked = sorted(siblings, key=lambda child: not is_kept_directory_of(child.name, path.name))
    for child in ranked:
        if holds(child, files):
            return f"{head}/{child.name}"
    return None


def holds(path: Path, files: tuple[str, ...] | None) -> bool:
    """The version's files are at ``path``: its directory, and every file it listed. A directory alone is not enough:
    a CREATE of the name on the source moves a dropped version kept at ``<db>/<name>`` aside and writes its own
    files there (found by the Spark replication soak: the replica installed the version empty, silently)."""
    return path.is_dir() and all((path / name).is_file() for name in files or ())


def copy_statement(spark: Any, event: BinlogEvent, text: str, later: Renames, *,
                   name: TableName | None = None, wait_seconds: float = MOVE_WAIT_SECONDS) -> Statement:
    """CREATE OR REPLACE of the event's table from its version's files: copied as files when the version is
    unpartitioned and both sides are local (:class:`~ddl_log.replication.install.InstallVersion`), else read with
    Spark when the statement fills its TMP, the version's empty partitions registered with them (Spark writes only
    the partitions rows go to). ``later``: the source's renames after this event (read only when the
    files moved). ``name``: the replica's table (``--rewrite-db``; default the version's own). Files not found are
    looked for again for ``wait_seconds`` (:mod:`~ddl_log.replication.file_wait`)."""
    from storage.catalogs.spark.profile import local_path

    version = event.version
    assert version is not None
    target = TableName.of(version.table) if name is None else name
    location = waiting_for_files(lambda: present_location(event, version, later), wait_seconds)
    warehouse = str(spark.conf.get("spark.sql.warehouse.dir"))
    if not version.partitioned_by and local_path(location) is not None and local_path(warehouse) is not None:
        spec = table_spec(schema=schema_text(version), using=version.provider,
                          properties=dict(version.properties) or None, comment=version.comment)
        return InstallVersion(name=target, spec=spec, files_from=location, files=version.files, text=text)
    reader = spark.read.schema(schema_text(version)).format(version.provider)
    if version.files is None:
        frame = reader.load(location)
    elif version.files:  # the version's own files, not what a later INSERT INTO put beside them
        frame = reader.option("basePath", location).load([f"{location.rstrip('/')}/{f}" for f in version.files])
    else:
        frame = spark.createDataFrame([], schema_text(version))
    statement = CreateOrReplaceTable.of(target, df=frame, using=version.provider,
                                        partitioned_by=version.partitioned_by,
                                        properties=dict(version.properties) or None, comment=version.comment,
                                        text=text)
    return attrs.evolve(statement, partitions=version.partitions or ())
