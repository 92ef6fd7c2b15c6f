"""The kept versions as ``ddl-log history TABLE`` and ``ddl-log status`` show them: read from the log without its
lock and without Spark (sizes measured on local file systems; elsewhere ``DESCRIBE HISTORY`` through Spark
measures them)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from storage.catalogs.directory_walk import local_data_files

if TYPE_CHECKING:
    from actions.kept_versions import Version
    from chains.log_state import LogState


def local_size(location: str) -> int | None:
    """Bytes of the data files under a ``file:`` location, as ``DESCRIBE HISTORY`` counts them (None elsewhere, or
    when it is gone)."""
    path = unquote(location)
    if path.startswith("file:"):
        path = "/" + path[len("file:"):].lstrip("/")
    if not path.startswith("/") or not os.path.isdir(path):
        return None
    return sum(entry.size for entry in local_data_files(Path(path)))


def versions_of_state(state: LogState, table: Any = None) -> list[Version]:
    from actions.kept_versions import versions_in

    chains = [state.chains[position] for position in sorted(state.chains)]
    return versions_in(chains, lambda p: [state.actions[a] for a in state.chains[p].actions if a in state.actions],
                       lambda p: p in state.chains and state.chains[p].active, table)


def version_dict(version: Version) -> dict[str, Any]:
    """A kept version as ``ddl-log history`` prints it: DESCRIBE HISTORY's fields (the current version, which only
    the catalog knows, is DESCRIBE HISTORY's to show), and the text of the statement that retired it."""
    from actions.kept_versions import time_text
    from actions.version_history import kept_entry

    entry = kept_entry(version)

    def text(seconds: float | None) -> str | None:
        return None if seconds is None or abs(seconds) == float("inf") else time_text(seconds)

    return {"version": entry.number, "table": str(version.table), "timestamp": text(entry.made_at),
            "operation": entry.made_by, "statement": entry.statement, "current": False, "dropped": entry.dropped,
            "retired_at": text(entry.retired_at), "retired_by": entry.retired_by,
            "retired_statement": version.statement, "restorable_until": time_text(version.due),
            "periods": [[text(start), text(end)] for start, end, _ in entry.all_periods()],
            "location": version.location, "size_bytes": local_size(version.location)}
