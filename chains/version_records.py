"""What a binlog event records of the table version its statement made, for a replica to copy it.

A replica must not re-run the statement's query (``rand()``, ``current_timestamp()``, tables the replica lacks): it
reads the committed version's own files. So the event of a statement that builds a table version carries where that
version's files are and the definition to install them under. Optional on the wire (key ``ver``): an event written
before, or of any other statement, has none, and readers of older binlogs see none.
"""

from __future__ import annotations

from typing import Any

import attrs

PartitionValues = tuple[tuple[str, str], ...]
"""A partition as ``((column, value), ...)`` in the table's partition column order, values as the metastore stores
them (NULL as ``__HIVE_DEFAULT_PARTITION__``); ``()`` for an unpartitioned table."""


@attrs.frozen
class VersionRecord:
    """The version a statement installed: its location and the definition it was made with (the log's tag aside)."""

    table: str
    location: str
    columns: tuple[tuple[str, str, str | None], ...]
    """(name, type, comment) in schema order, partition columns last, as the metastore stores them."""
    partitioned_by: tuple[str, ...] = ()
    provider: str = "parquet"
    properties: tuple[tuple[str, str], ...] = ()
    comment: str | None = None
    files: tuple[str, ...] | None = None
    """The version's data files when it committed, relative to ``location`` (``k=1/part-0...``): a later INSERT INTO
    adds files to the same directory, which a replica must not take as the version's (it applies that INSERT's own
    event). None in events written before (a replica then takes every file there)."""
    partitions: tuple[PartitionValues, ...] | None = None
    """A partitioned version's registered partitions when it committed, empty ones too (``ALTER TABLE ADD
    PARTITION`` makes partitions no file is in, which an INSERT OVERWRITE of other partitions keeps): a replica
    that installs the version by reading its rows registers them as well. None: unpartitioned, or an event written
    before (a replica then has the partitions its rows go to; found by the Spark replication soak, seed 9031)."""

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "table": self.table, "loc": self.location, "cols": [list(c) for c in self.columns],
            "parts": list(self.partitioned_by), "provider": self.provider,
            "props": [list(p) for p in self.properties], "comment": self.comment}
        if self.files is not None:
            wire["files"] = list(self.files)
        if self.partitions is not None:
            wire["partitions"] = [[list(p) for p in partition] for partition in self.partitions]
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> VersionRecord:
        files, partitions = wire.get("files"), wire.get("partitions")
        return cls(table=wire["table"], location=wire["loc"],
                   columns=tuple((c[0], c[1], c[2]) for c in wire["cols"]),
                   partitioned_by=tuple(wire["parts"]), provider=wire["provider"],
                   properties=tuple((p[0], p[1]) for p in wire["props"]), comment=wire["comment"],
                   files=None if files is None else tuple(str(f) for f in files),
                   partitions=None if partitions is None else tuple(
                       tuple((str(c), str(v)) for c, v in partition) for partition in partitions))


@attrs.frozen
class AddedFile:
    """One data file an INSERT INTO moved into a table: where it lies in the table now, and its partition."""

    path: str
    partition: PartitionValues = ()


@attrs.frozen
class AddedFiles:
    """What an INSERT INTO added to a table, for a replica to add exactly those rows without running the query: the
    files it moved in (where they lie now), the partitions it registered (new ones, also empty ones: a static
    partition insert of no row registers its partition, as Spark's does), and the version of the table they were
    added to (its identity tag and directory, with its columns for the replica's check). Optional on the wire
    (key ``ins``): events without one are read as before."""

    table: str
    location: str
    identity: str | None
    files: tuple[AddedFile, ...] = ()
    partitions: tuple[PartitionValues, ...] = ()
    columns: tuple[tuple[str, str], ...] = ()
    """(name, type) of the table's columns, partition columns last."""
    partitioned_by: tuple[str, ...] = ()
    provider: str = "parquet"

    def to_wire(self) -> dict[str, Any]:
        return {"table": self.table, "loc": self.location, "id": self.identity,
                "files": [[f.path, [list(p) for p in f.partition]] for f in self.files],
                "parts": [[list(p) for p in partition] for partition in self.partitions],
                "cols": [list(c) for c in self.columns], "pby": list(self.partitioned_by), "provider": self.provider}

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> AddedFiles:
        def values(raw: Any) -> PartitionValues:
            return tuple((str(c), str(v)) for c, v in raw)

        return cls(table=wire["table"], location=wire["loc"], identity=wire["id"],
                   files=tuple(AddedFile(str(path), values(part)) for path, part in wire["files"]),
                   partitions=tuple(values(p) for p in wire["parts"]),
                   columns=tuple((str(n), str(t)) for n, t in wire["cols"]), partitioned_by=tuple(wire["pby"]),
                   provider=wire["provider"])
