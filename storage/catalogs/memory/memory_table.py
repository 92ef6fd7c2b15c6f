"""The in-memory catalog's table record (shared by :mod:`storage.catalogs.memory` and its swap)."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from storage.catalogs.fill import HIVE_DEFAULT_PARTITION


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
