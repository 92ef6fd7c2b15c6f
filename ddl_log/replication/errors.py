"""The errors of replication, rooted in :class:`storage.errors.DDLLogError` and re-exported from ``ddl_log``."""

from __future__ import annotations

from storage.errors import DDLLogError


class ReplicationError(DDLLogError):
    """A replica cannot go on; nothing was applied twice or skipped: the position is where the message says."""


class SourceMissingError(ReplicationError):
    """The source home named is not a home with a binlog."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"source {source}: {reason}")
        self.name = source


class FollowsAnotherSourceError(ReplicationError):
    """The replica home already applied events of another source; one home follows one source."""

    def __init__(self, replica: str, followed: str, asked: str) -> None:
        super().__init__(f"replica {replica} follows {followed}, not {asked}: use another home for that source")
        self.name = replica
        self.followed = followed


class SourceVersionGoneError(ReplicationError):
    """The files of the table version an event made are gone from the source (its grace period or retention is
    over, or the rename path moved them): copying the current version instead would skip the versions between, so
    the replica stops and asks for a re-bootstrap of that table."""

    def __init__(self, seq: int, table: str, location: str) -> None:
        super().__init__(f"source event {seq}: the files of the version it made of {table} ({location}) are gone "
                         "(the replica lags past the source's grace period): stopped before applying it; "
                         "re-bootstrap the replica")
        self.name = table
        self.seq = seq
        self.location = location


class ApplyFailedError(ReplicationError):
    """The replica refused a source event (its catalog differs from the source's: changed by hand, or an event it
    cannot read): the applier stopped before it, nothing of it applied."""

    def __init__(self, seq: int, statement: str, cause: BaseException | str) -> None:
        super().__init__(f"source event {seq} ({statement[:200]!r}) was not applied: {cause}")
        self.seq = seq
        self.statement = statement
        self.name = f"source event {seq}"


class SourceDamagedError(ReplicationError):
    """The source's binlog is damaged before its end: the applier applies up to the damage and stops there."""

    def __init__(self, location: str, offset: int, after_seq: int) -> None:
        super().__init__(f"source binlog {location} is damaged at offset {offset} (after event {after_seq}): "
                         "applied up to the damage, stopped")
        self.name = location
        self.offset = offset
        self.after_seq = after_seq


class SourceUnavailableError(ReplicationError):
    """The source's binlog cannot be read now (its PostgreSQL, or the file system of its directory, went away): the
    applier stops where it is, having applied whole events only; run it again once the source is back and it goes
    on from its position, each event once."""

    def __init__(self, origin: str, cause: BaseException | str) -> None:
        super().__init__(f"source {origin} cannot be read now ({cause}): stopped between two events; run the "
                         "applier again once it is back")
        self.name = origin


class SourceEventsMissingError(ReplicationError):
    """Events are missing from the source's binlog after the replica's position (a segment deleted, or the binlog
    cut at its head): applying what follows would skip them, so the applier stops and asks for a re-bootstrap (the
    gap HIVE-19219 met with purged notification events)."""

    def __init__(self, location: str, after_seq: int, found_seq: int) -> None:
        super().__init__(f"source binlog {location}: events {after_seq + 1} to {found_seq - 1} are missing (applied "
                         f"up to {after_seq}): stopped, nothing skipped; re-bootstrap the replica")
        self.name = location
        self.after_seq = after_seq
        self.found_seq = found_seq
