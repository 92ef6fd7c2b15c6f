"""What a replica home notes beside its binlog: which source it follows and the applier's last error, for
``replica status``. Never the position: that lives only in the replica's binlog (:mod:`~ddl_log.replication.origin`),
so no crash can make the two disagree (Hive's ``repl.last.id``, updated apart from the change, could: HIVE-19130)."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import attrs

REPLICATION_DIR = "replication"
STATE_FILE = "state.json"


def _names(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(a), str(b)) for a, b in value or ())


@attrs.frozen
class ReplicaState:
    source: str | None = None
    origin: str | None = None
    last_error: str | None = None
    error_at: float | None = None
    pid: int | None = None
    """The background applier's process (``replica start``), while it runs."""
    databases: tuple[str, ...] | None = attrs.field(default=None, converter=_names)
    """``--databases``: the source databases replicated (None: all)."""
    rewrite: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_pairs)
    """``--rewrite-db``: (source database, replica database) pairs."""
    source_catalog: str | None = None
    """Where bootstrap, check and resync read the source's catalog: a metastore URI (None: the replica's own)."""
    promoted_at: int | None = None
    """Set by ``replica promote`` (the binlog's promotion note is the record; this is what the read-only check reads
    first)."""

    def as_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


def state_path(home_dir: str) -> str:
    return os.path.join(home_dir, REPLICATION_DIR, STATE_FILE)


def read_state(home_dir: str) -> ReplicaState:
    try:
        with open(state_path(home_dir), encoding="utf-8") as handle:
            raw = json.load(handle)
    except FileNotFoundError:
        return ReplicaState()
    fields = {field.name for field in attrs.fields(ReplicaState)}
    return ReplicaState(**{key: value for key, value in raw.items() if key in fields})


def write_state(home_dir: str, state: ReplicaState) -> None:
    """Replace the state file in one rename (a reader sees the old or the new one)."""
    path = state_path(home_dir)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    temporary = f"{path}.tmp.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(state.as_dict(), handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def note_error(home_dir: str, error: BaseException | None) -> None:
    state = read_state(home_dir)
    message = None if error is None else str(error)
    write_state(home_dir, attrs.evolve(state, last_error=message, error_at=None if error is None else time.time()))
