"""``replica promote``: the replica stops following its source and becomes a source (a failover, or a planned
switchover with ``catch_up``), and the read-only rule of a replica home.

Promotion happens with the home open (its lock held, so no applier runs, and recovery has just put every interrupted
apply at 0 or 1: a consistent point). A note ``/* ddl-log promoted from O at N */`` in the replica's binlog records
it; from then on the home's statements are its own events, its binlog goes on, and the applier refuses the old
source. The old source can follow the new one (``replica run --source NEW`` on its home): events that originated
there are skipped, and it is refused, naming them, if it committed anything the new source lacks
(:func:`~ddl_log.replication.follow.check_not_diverged`).
"""

from __future__ import annotations

import attrs

from ddl_log.engine.core import DDLEngine
from ddl_log.engine.history_statements import DescribeHistory, ShowTablesDropped
from ddl_log.engine.release_name import ReleaseTableName
from ddl_log.engine.typed import Statement
from ddl_log.replication.errors import ReplicaConfigError, ReplicaReadOnlyError, SyncIncompleteError
from ddl_log.replication.origin import AppliedPosition
from ddl_log.replication.position import ReplicaPosition, first_origin, promoted
from ddl_log.replication.replica_state import read_state, write_state
from storage import crashpoints
from storage.records.home import is_database_url

PROMOTED = crashpoints.declare("replica.promote.noted", "the promotion note is durable; the state file not updated")
READS = (DescribeHistory, ShowTablesDropped, ReleaseTableName)
"""Statements a replica allows by hand: they change no replicated object (reads of its history, freeing a name's
directory of a version the replica itself keeps)."""


@attrs.frozen
class PromoteReport:
    origin: str
    position: int
    already: bool = False


def promote(ddl: DDLEngine) -> PromoteReport:
    """Promote the replica home of ``ddl`` (opened: its recovery ran) at its applied position."""
    home_dir = ddl.home.spark_directory()
    state = read_state(home_dir)
    if state.origin is None:
        raise ReplicaConfigError(ddl.home.location, "it follows no source: there is nothing to promote")
    events = list(ddl.binlog_file.events())
    position = ReplicaPosition.read(events, state.origin)
    already = position.promoted_at is not None
    if not already:
        if position.bootstrapping or position.resyncing:
            raise SyncIncompleteError(ddl.home.location, "a bootstrap or resync", "ddl-log replica bootstrap|resync")
        at = AppliedPosition.read(events).of(state.origin)
        ddl.binlog_file.append(promoted(state.origin, at), xid=None)
        PROMOTED()
    else:
        at = position.promoted_at or 0
    write_state(home_dir, attrs.evolve(read_state(home_dir), promoted_at=at, pid=None))
    give_role(ddl)
    return PromoteReport(state.origin, at, already)


@attrs.frozen
class ReadOnlyReplica:
    """The role of a replica home that follows a source and was not promoted: it takes only what it applies (each
    carries a marker of its source) and :data:`READS`; anything run by hand is refused, nothing done."""

    location: str

    def check(self, statement: Statement) -> None:
        if isinstance(statement, READS) or first_origin(statement.binlog_text) is not None:
            return
        raise ReplicaReadOnlyError(self.location, statement.binlog_text)


def give_role(ddl: DDLEngine) -> None:
    """Set the home's write gate from its replication state: read when the home opens and after each change of its
    role (following a source, a bootstrap, a promotion), never on a statement's path. The state file answers first;
    the binlog settles a promotion whose state was not written yet (a crash between the two)."""
    ddl.write_gate = None if is_database_url(ddl.home.location) or not _follows(ddl) else (
        ReadOnlyReplica(ddl.home.location))


def _follows(ddl: DDLEngine) -> bool:
    """Whether the home follows a source and was not promoted."""
    home_dir = ddl.home.spark_directory()
    state = read_state(home_dir)
    if state.origin is None or state.promoted_at is not None:
        return False
    position = ReplicaPosition.read(ddl.binlog_file.events(), state.origin)
    if position.promoted_at is not None:
        write_state(home_dir, attrs.evolve(state, promoted_at=position.promoted_at))
        return False
    return True
