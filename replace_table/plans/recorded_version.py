"""The table version a statement records in its binlog event (:mod:`chains.version_records`), for replicas: a replace
records it only when its rows come from a query or a DataFrame, the ones a replica must not run again (the others:
columns, LIKE, TRUNCATE, ALTER rebuilds, are deterministic given the replica's own rows, and their text is enough);
RESTORE and UNDROP always."""

from __future__ import annotations

from actions.context import ActionContext
from chains.version_records import VersionRecord
from storage.catalogs.interface import TAG_KEYS, Fill, TableSpec
from storage.catalogs.names import TableName


def has_query(spec: TableSpec, fill: Fill | None) -> bool:
    """Whether the version's rows come from a query or a DataFrame (not from the table's own rows or nothing)."""
    if fill is not None and (fill.as_select is not None or fill.df is not None or fill.files_from is not None):
        return True
    return spec.as_select is not None or spec.df is not None


def version_record(ctx: ActionContext, table: TableName, spec: TableSpec, fill: Fill | None) -> VersionRecord | None:
    """The installed version of ``table`` as its event records it; None when nothing is to be recorded (binlog
    off, the setting off, no query, or a catalog that reports no location for it): :func:`installed_version`."""
    if not has_query(spec, fill):
        return None
    return installed_version(ctx, table)


def installed_version(ctx: ActionContext, table: TableName) -> VersionRecord | None:
    """The current version of ``table`` as an event records it (RESTORE and UNDROP record theirs always: a replica's
    own history does not number versions alike, so it installs the version's files); None when the binlog or the
    setting is off, or the catalog reports no location. One metastore read on a classic Spark session, and a listing
    of the version's data files (a later INSERT INTO adds files to its directory: the record says which are its);
    a partitioned version's partitions too (one more call: its empty ones have no file to tell them)."""
    if ctx.binlog is None or not ctx.record_versions:
        return None
    found = ctx.catalog.definitions.recorded_definition(table)
    if found is None:
        return None
    location, metadata = found
    return VersionRecord(
        table=table.quoted,
        location=location,
        columns=tuple((c.name, c.type, c.comment) for c in metadata.columns),
        partitioned_by=metadata.partitioned_by,
        provider=metadata.provider,
        properties=tuple((k, v) for k, v in metadata.properties if k not in TAG_KEYS),
        comment=metadata.comment,
        files=ctx.catalog.data.file_mover().data_files(location),
        partitions=tuple(tuple(partition.items()) for partition in ctx.catalog.definitions.list_partitions(table))
        if metadata.partitioned_by else None,
    )
