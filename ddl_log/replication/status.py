"""``replica status``: where a replica is, from files only (no Spark, no lock: it works while the applier runs).

The position and every fact about bootstraps, resyncs and promotion come from the replica's binlog
(:mod:`~ddl_log.replication.position`); the source's head from the source's binlog; the filters, the last error and
the background applier's pid from the state file. Passwords never appear: the state keeps sources without them, and
every URL shown is redacted again.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from chains.binlog import BinlogEvent
from ddl_log.replication.errors import SourceRewoundError
from ddl_log.replication.origin import AppliedPosition
from ddl_log.replication.position import ReplicaPosition
from ddl_log.replication.replica_state import ReplicaState, read_state
from ddl_log.replication.source import Source, open_source
from ddl_log.replication.source_identity import check_source_holds


def redacted(url: str | None) -> str | None:
    if url is None or "@" not in url:
        return url
    from storage.records.pg_store import redact

    return redact(url)


def replica_status(home_dir: str, replica_events: Iterable[BinlogEvent], source: Source | None) -> dict[str, Any]:
    """Applied position (and the identity of the source event there), source head, events and seconds behind, last
    error, filters, bootstrap/resync/promotion; ``source_rewound``: why the source does not hold the event the
    replica applied last (then nothing is "behind": it is not the source the replica followed)."""
    state: ReplicaState = read_state(home_dir)
    if source is None and state.source is not None:
        try:
            source = open_source(state.source)
        except Exception:  # noqa: BLE001 - gone, or a database whose password is not kept: status says less
            source = None
    events = list(replica_events)
    applied = AppliedPosition.read(events)
    origin = source.origin if source is not None else state.origin
    position = applied.of(origin) if origin is not None else 0
    facts = ReplicaPosition.read(events, origin) if origin is not None else ReplicaPosition()
    status: dict[str, Any] = {
        "source": redacted(state.source) if source is None else redacted(source.path),
        "origin": origin, "applied": position, "source_head": None, "events_behind": None, "seconds_behind": None,
        "last_error": state.last_error, "pid": state.pid,
        "databases": None if state.databases is None else list(state.databases),
        "rewrite": {a: b for a, b in state.rewrite}, "source_catalog": redacted(state.source_catalog),
        "promoted": facts.promoted_at is not None, "promoted_at": facts.promoted_at,
        "bootstrapping": facts.bootstrapping, "resyncing": sorted(map(str, facts.resyncing)),
    }
    status["applied_id"] = applied.ident_of(origin) if origin is not None else None
    status["source_rewound"] = None
    if source is not None:
        head = source.head()
        status["source_head"] = head.seq
        try:
            check_source_holds(source, position, status["applied_id"])
        except SourceRewoundError as rewound:  # behind or not "0 behind": the source is not the one it followed
            status["source_rewound"] = str(rewound)
            return status
        status["events_behind"] = max(0, head.seq - position)
        pending = next(iter(source.events_after(position)), None)
        status["seconds_behind"] = 0.0 if pending is None else round(time.time() - pending.timestamp, 3)
    return status
