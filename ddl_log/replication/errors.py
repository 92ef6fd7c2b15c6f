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
    over, or RELEASE TABLE NAME deleted them early): copying the current version instead would skip the versions
    between, so the replica stops and asks for a re-bootstrap of that table."""

    def __init__(self, seq: int, table: str, location: str) -> None:
        super().__init__(f"source event {seq}: the files of the version it made of {table} ({location}) are gone "
                         "(the replica lags past the source's grace period or retention, or RELEASE TABLE NAME on "
                         "the source deleted them): stopped before applying it; re-bootstrap the replica")
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


class AppliedThenStoppedError(ReplicationError):
    """The replica applied a source event (its position moved past it), then could not read its own catalog to
    note what the event's objects are now (its metastore went away): the next start settles those objects first."""

    def __init__(self, seq: int, statement: str, cause: BaseException | str) -> None:
        super().__init__(f"source event {seq} ({statement[:200]!r}) was applied, then the replica stopped: reading "
                         f"its catalog after it failed: {cause}; the next start checks that event's objects again")
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


class SourceRewoundError(ReplicationError):
    """The source's binlog no longer holds the event the replica applied last (its head is behind the replica's
    position), or holds another event at that seq (``found``, not ``applied``): a source restored from a backup or
    re-created at the same path. The applier stops before anything of it; nothing is skipped; re-bootstrap the
    replica (or bring back the source the replica followed)."""

    def __init__(self, source: str, position: int, applied: str | None, found: str | None, head: int) -> None:
        held = (f"holds another event there (identity {found}, the replica applied {applied})" if found is not None
                else f"no longer holds it (its head is event {head})")
        super().__init__(f"source {source}: the replica applied its event {position}, and its binlog {held}: it was "
                         "restored from a backup or re-created at the same path; stopped, nothing skipped; "
                         "re-bootstrap the replica from it, or point the replica at the source it followed")
        self.name = source
        self.position = position
        self.applied = applied
        self.found = found
        self.head = head


class ReplayedElsewhereError(ReplicationError):
    """A replayed statement names an event (origin, seq) the home already has, with another identity: the script
    comes from another home at the same path (re-created) or from before a restore. Nothing of it ran."""

    def __init__(self, origin: str, seq: int, script: str, have: str) -> None:
        super().__init__(f"the script's statement {origin} seq {seq} (identity {script}) is not the event this home "
                         f"has under that name (identity {have}): the script comes from another home at that path or "
                         "from before a restore; nothing of it was run from here on")
        self.name = f"{origin} seq {seq}"
        self.origin = origin
        self.seq = seq


class RewriteError(ReplicationError):
    """``--rewrite-db`` cannot rename the databases a statement's SQL text names (its parser, Spark's or sqlglot's,
    cannot read it): the statement is not applied rather than applied to the source's database."""

    def __init__(self, what: str, reason: str) -> None:
        super().__init__(f"{what}: {reason}")
        self.name = what


class ReplicaConfigError(ReplicationError):
    """The replica's filters (``--databases``, ``--rewrite-db``) or its catalog do not fit what was asked: changing
    them after events were applied would leave the replica matching no source position."""

    def __init__(self, replica: str, reason: str) -> None:
        super().__init__(f"replica {replica}: {reason}")
        self.name = replica


class SyncIncompleteError(ReplicationError):
    """A bootstrap (or a resync of a table) began and did not finish: the replica's catalog is part copied, so the
    applier does not run until the same command is run again (it restarts cleanly)."""

    def __init__(self, replica: str, what: str, command: str) -> None:
        super().__init__(f"replica {replica}: {what} began and did not finish; run `{command}` again (it restarts "
                         "cleanly), then the applier goes on")
        self.name = replica
        self.command = command


class ReplicaPromotedError(ReplicationError):
    """The replica home was promoted: it is a source now and applies no more of its old source's events."""

    def __init__(self, replica: str, origin: str, at: int) -> None:
        super().__init__(f"replica {replica} was promoted at seq {at} of {origin}: it is a source now (point the old "
                         "source at it with `replica run --source` on the old source's home)")
        self.name = replica
        self.at = at


class DivergedSourceError(ReplicationError):
    """This home committed statements the source it is asked to follow does not have (an old source that went on
    after its replica was promoted): following would lose them, so nothing is applied. ``events``: (seq, text)."""

    def __init__(self, home: str, source: str, events: list[tuple[int, str]]) -> None:
        listed = "; ".join(f"#{seq} {text[:120]!r}" for seq, text in events[:10])
        more = f" and {len(events) - 10} more" if len(events) > 10 else ""
        super().__init__(f"{home} committed {len(events)} statement(s) that {source} lacks: {listed}{more}; "
                         "re-bootstrap this home from it (or replay those statements there) before it follows")
        self.name = home
        self.events = events


class SnapshotNotConsistentError(ReplicationError):
    """The source kept changing the objects being copied (or had interrupted statements on them) through every
    attempt: no snapshot at one source position could be taken. Nothing is recorded as done."""

    def __init__(self, what: str, attempts: int, changed: list[str]) -> None:
        listed = ", ".join(changed[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")
        super().__init__(f"{what}: the source changed {listed} during each of {attempts} attempts (or a source "
                         "statement on them is interrupted: recover the source); retry when it is quieter")
        self.name = what
        self.changed = changed


class SourceCatalogError(ReplicationError):
    """The source's catalog cannot be read as asked (embedded Derby opened by its driver, no metastore given, the
    replica in the source's own metastore without renaming its databases)."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"source catalog of {source}: {reason}")
        self.name = source


class ReplicaReadOnlyError(ReplicationError):
    """A statement run on a replica home by hand: a replica changes only by applying its source (as MySQL's
    ``super_read_only``), so that it never holds what its source does not."""

    def __init__(self, replica: str, statement: str) -> None:
        super().__init__(f"replica {replica} is read-only (it follows a source): {statement[:120]!r} was not run; "
                         "write on the source, or `ddl-log replica promote` this home first")
        self.name = replica
