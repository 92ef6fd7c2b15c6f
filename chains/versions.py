"""What a binlog event records of the table version its statement made, for a replica to copy it.

A replica must not re-run the statement's query (``rand()``, ``current_timestamp()``, tables the replica lacks): it
reads the committed version's own files. So the event of a statement that builds a table version carries where that
version's files are and the definition to install them under. Optional on the wire (key ``ver``): an event written
before, or of any other statement, has none, and readers of older binlogs see none.
"""

from __future__ import annotations

from typing import Any

import attrs


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

    def to_wire(self) -> dict[str, Any]:
        return {"table": self.table, "loc": self.location, "cols": [list(c) for c in self.columns],
                "parts": list(self.partitioned_by), "provider": self.provider,
                "props": [list(p) for p in self.properties], "comment": self.comment}

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> VersionRecord:
        return cls(table=wire["table"], location=wire["loc"],
                   columns=tuple((c[0], c[1], c[2]) for c in wire["cols"]),
                   partitioned_by=tuple(wire["parts"]), provider=wire["provider"],
                   properties=tuple((p[0], p[1]) for p in wire["props"]), comment=wire["comment"])
