"""The kept versions as ``ddl-log history TABLE`` and ``ddl-log status`` show them: read from the log without its
lock and without Spark (sizes measured on local file systems; elsewhere ``DESCRIBE HISTORY`` through Spark
measures them)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from actions.versions import Version
    from chains.state import LogState


def local_size(location: str) -> int | None:
    """Bytes under a ``file:`` location (None elsewhere, or when it is gone)."""
    path = unquote(location)
    if path.startswith("file:"):
        path = "/" + path[len("file:"):].lstrip("/")
    if not path.startswith("/") or not os.path.isdir(path):
        return None
    return sum(os.path.getsize(os.path.join(top, name)) for top, _, names in os.walk(path) for name in names)


def versions_of_state(state: LogState, table: Any = None) -> list[Version]:
    from actions.versions import versions_in

    chains = [state.chains[position] for position in sorted(state.chains)]
    return versions_in(chains, lambda p: [state.actions[a] for a in state.chains[p].actions if a in state.actions],
                       lambda p: p in state.chains and state.chains[p].active, table)


def version_dict(version: Version) -> dict[str, Any]:
    from actions.versions import time_text

    return {"version": version.number, "table": str(version.table), "operation": version.kept.operation,
            "timestamp": time_text(version.kept.kept_at),
            "statement": version.statement, "xid": version.kept.xid, "dropped": version.dropped,
            "restorable_until": time_text(version.due),
            "location": version.location, "size_bytes": local_size(version.location)}
