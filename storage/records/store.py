"""The seam between the log and where its records live: a record store holds named append-only streams.

``chains/`` (the DDL log and the binlog) talks only to these two protocols, so the second store (PostgreSQL,
:mod:`storage.records.pg_store`, next to the file store of :mod:`storage.records.file_store`) is a module here,
not a fork of the log. A store keeps the
file store's semantics wherever they apply: an append is durable on return and all-or-nothing per call (one call is
one group commit), a stream is created complete or not at all, and a failed write refuses every later write until
the stream is reopened. Offsets are opaque positions: a stream hands them out and accepts them back, nothing else
computes with them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from storage.errors import LogWriteFailedError

Records = list[tuple[int, Any]]
"""``(offset, record)`` pairs in stream order."""


class RecordStream(Protocol):
    """One open append-only stream. Not thread-safe on its own: its owner serialises appends."""

    syncs: int
    """Durable writes made so far (one per append call): what group commit saves is counted here."""

    @property
    def location(self) -> str:
        """Where the stream lives, for messages (a path, or a database and a stream name)."""

    @property
    def size(self) -> int:
        """Offset where the next record goes."""

    @property
    def failed(self) -> LogWriteFailedError | None:
        """The error that poisoned the stream (every write is refused until it is reopened), or None."""

    def append(self, record: Any) -> int:
        """Durably write one record; return its offset."""

    def append_batch(self, records: Sequence[Any]) -> list[int]:
        """Durably write ``records`` in one write (one group commit); return their offsets."""

    def append_encoded(self, encoded: Sequence[bytes]) -> list[int]:
        """:meth:`append_batch` for records already encoded (:func:`storage.records.format.encode_record`)."""

    def truncate_to(self, offset: int) -> None:
        """Durably cut the stream at a record boundary (its owner found an incomplete group of records there)."""

    def close(self) -> None: ...


class RecordStore(Protocol):
    """A namespace of record streams (the DDL log and its backup, binlog segments). ``magic`` names a stream's kind,
    checked on every read so that a log is never read as a binlog."""

    @property
    def location(self) -> str:
        """Where the store lives, for messages."""

    def location_of(self, name: str) -> str:
        """Where stream ``name`` lives, for messages."""

    def names(self) -> list[str]:
        """The streams that exist, in no particular order."""

    def exists(self, name: str) -> bool: ...

    def open(self, name: str, magic: bytes) -> tuple[RecordStream, Records]:
        """Open or create stream ``name`` for appending; return it and its records. A torn tail is cut off
        durably, and what was read is durable before anything builds on it."""

    def read(self, name: str, magic: bytes, start: int | None = None) -> tuple[Records, int, int]:
        """Read-only scan from ``start`` (the first record when None): records, end of the valid prefix, and the
        stream's size. Writes nothing, even where a torn tail would be cut on open."""

    def create(self, name: str, magic: bytes, records: Iterable[Any] = (), *,
               before_publish: Callable[[], None] | None = None) -> None:
        """Create stream ``name`` holding ``records``, appearing complete or not at all; never over an existing
        one. ``before_publish`` runs when the stream is durable but not yet visible (a crash point of the caller)."""

    def replace(self, name: str, magic: bytes, records: Iterable[Any], *, keep_previous_as: str | None = None) -> None:
        """Atomically replace stream ``name`` by one holding ``records`` (compaction); keep the previous one under
        ``keep_previous_as`` when given."""

    def remove(self, name: str) -> None:
        """Durably remove stream ``name``."""
