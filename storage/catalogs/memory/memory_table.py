"""The in-memory catalog's records: a table, and the state of its "file system" (:class:`SwapState`: what left the
catalog without its files, moved files, notes), with where a table's rows live (:func:`location_of`)."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from storage.catalogs.fill import HIVE_DEFAULT_PARTITION
from storage.catalogs.names import TableName


@attrs.define
class MemoryTable:
    identity: str
    columns: tuple[str, ...]
    rows: list[tuple[object, ...]]
    types: dict[str, str] = attrs.field(factory=dict)
    comments: dict[str, str] = attrs.field(factory=dict)
    properties: dict[str, str] = attrs.field(factory=dict)
    partitioned_by: tuple[str, ...] = ()
    partitions: list[dict[str, str]] = attrs.field(factory=list)
    location: str | None = None
    """Where the rows live when not at the name's default location (a swapped table)."""
    external: bool = False
    held: str | None = None
    """A holder's: the identity of the table whose definition it keeps."""


def partition_of(table: MemoryTable, row: tuple[object, ...]) -> tuple[str, ...]:
    """A row's partition values as the metastore names them (NULL as ``__HIVE_DEFAULT_PARTITION__``)."""
    values = dict(zip(table.columns, row, strict=True))
    return tuple(HIVE_DEFAULT_PARTITION if values[c] is None else str(values[c]) for c in table.partitioned_by)


def with_static(columns: tuple[str, ...], static: dict[str, str], given: Iterator[object]) -> tuple[object, ...]:
    """A full row from the query's values (by position) and the static partition values."""
    return tuple(static[c] if c in static else next(given) for c in columns)


def register_partition(table: MemoryTable, partition: dict[str, str]) -> None:
    if partition not in table.partitions:
        table.partitions.append(dict(partition))


@attrs.define
class SwapState:
    enabled: bool = True
    """False: every table is refused (tests of the rename path)."""
    orphans: set[str] = attrs.field(factory=set)
    """Locations whose table left the catalog without its files (a forgotten holder): what ``delete_data`` removes."""
    orphan_window: float | None = None
    """What ``orphan_window`` answers: None, tasks end with the driver; else an engine whose tasks outlive it (a test
    makes a late write of one by adding its table's name to ``MemoryState.leftovers``)."""
    files: dict[str, MemoryTable] = attrs.field(factory=dict)
    """The rows (the "files") at each orphan location, as the table that left them had them: a kept version."""
    moved: set[str] = attrs.field(factory=set)
    """The "files" (one per row) moved out of an INSERT's work table into its table
    (:class:`~storage.catalogs.memory.memory_files.MemoryFileMover`)."""
    notes: dict[str, str] = attrs.field(factory=dict)
    """The note of each kept directory (``write_kept_note``), by location."""
    jobs_named: bool = True
    """What ``names_jobs`` answers: False, INSERT INTO writes aside and moves its "files" in (a test of that path)."""
    jobs: dict[str, tuple[str, list[tuple[object, ...]]]] = attrs.field(factory=dict)
    """The rows (the "files") each INSERT written in place added, by its job id, with the identity of the table they
    went into: what an undo deletes."""


def default_location(name: TableName) -> str:
    return f"memory:/{name.db}/{name.name}"


def database_location(db: str) -> str:
    return f"memory:/{db}"


def location_of(name: TableName, table: MemoryTable) -> str:
    """Where the rows of the table ``name`` live: its own location after a swap, else the name's default one."""
    return table.location or default_location(name)
