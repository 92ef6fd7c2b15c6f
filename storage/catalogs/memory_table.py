"""The in-memory catalog's table record (shared by :mod:`storage.catalogs.memory` and its swap)."""

from __future__ import annotations

import attrs


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
