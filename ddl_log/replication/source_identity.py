"""The source a replica follows is the one whose events it applied: at the replica's position the source's binlog
must hold the very event the replica applied there (its identity, :func:`~ddl_log.replication.origin.event_id`,
is in the replica's marker, as a MySQL GTID names its server's UUID). A source restored from a backup (its binlog
behind the position, or gone on with other events) or re-created at the same path holds none or another: the
applier stops with :class:`SourceRewoundError` before reading anything after it, never skipping the events between,
and ``replica status`` says so."""

from __future__ import annotations

from ddl_log.replication.errors import SourceRewoundError
from ddl_log.replication.origin import event_id
from ddl_log.replication.source import Source


def check_source_holds(source: Source, position: int, ident: str | None) -> None:
    """Raise :class:`SourceRewoundError` unless ``source`` holds, at seq ``position``, the event of identity
    ``ident`` the replica applied there (None: a position written before markers named it, checked by seq only)."""
    if position <= 0:
        return
    event = next(iter(source.events_after(position - 1)), None)
    if event is None or event.seq != position:
        head = source.head().seq
        raise SourceRewoundError(source.path, position, ident, None, head)
    found = event_id(event)
    if ident is not None and found != ident:
        raise SourceRewoundError(source.path, position, ident, found, source.head().seq)


def source_ident(source: Source, seq: int) -> str | None:
    """The identity of ``source``'s event ``seq`` (None: none, or seq 0), for a marker that moves a position there."""
    if seq <= 0:
        return None
    event = next(iter(source.events_after(seq - 1)), None)
    return None if event is None or event.seq != seq else event_id(event)
