"""What today's code can do, asked in one place, so that the soak runs before and after issue 16's parts merge.

* :func:`ddl_options`: the AtomicDDL keyword arguments of the cluster (lease, lock wait, takeover interval) that
  its signature accepts;
* :func:`has_takeover`: whether AtomicDDL can take over dead homes (``take_over_dead``);
* :func:`binlog_events`: the committed statements of every home, from the catalog binlog (events name their
  ``driver``) or, today, from each home's own binlog (tagged with the home here);
* :func:`home_rows`: the homes registered in the shared database, with their takeover columns when they exist.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_OPTIONS = ("lease_seconds", "lock_wait_seconds", "takeover_interval")


def ddl_options(**wanted: float | None) -> dict[str, float]:
    """The options among ``wanted`` (None: not wanted) that ``AtomicDDL.__init__`` accepts."""
    from ddl_log import AtomicDDL

    accepted = inspect.signature(AtomicDDL.__init__).parameters
    return {name: value for name, value in wanted.items() if value is not None and name in accepted}


def has_takeover() -> bool:
    from ddl_log import AtomicDDL

    return callable(getattr(AtomicDDL, "take_over_dead", None))


def home_url(url: str, home: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}home={home}"


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("DDL_LOG_CRASH_AT", None)
    return subprocess.run([sys.executable, "-m", "ddl_log", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=timeout, check=False)


def binlog_of(location: str) -> list[dict[str, Any]]:
    """``ddl-log binlog --home LOCATION --json``: the events as dicts (read-only, no Spark)."""
    done = cli("binlog", "--home", location, "--json")
    if done.returncode != 0:
        raise RuntimeError(f"ddl-log binlog --home {location} exited with {done.returncode}: {done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def binlog_events(url: str, homes: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """``("catalog" | "per-home", events in commit order)``, each event with ``driver``.

    The catalog binlog (issue 16 part 3) shows the same history from any home, its events naming their driver and
    ordered by ``seq``, the commit order across drivers. Today each home has its own binlog; their events get the
    home as ``driver`` and are merged by timestamp (the commit order only when the statements did not overlap)."""
    if not homes:
        return "per-home", []
    first = binlog_of(home_url(url, homes[0]))
    if any("driver" in event for event in first):
        return "catalog", sorted(first, key=lambda event: event["seq"])
    events = [{**event, "driver": homes[0]} for event in first]
    for home in homes[1:]:
        events += [{**event, "driver": home} for event in binlog_of(home_url(url, home))]
    return "per-home", sorted(events, key=lambda event: (event["timestamp"], event["driver"], event["seq"]))


def home_rows(connection: Any) -> list[dict[str, Any]]:
    """Every row of ``ddl_log_homes`` (``taken_over_by`` / ``taken_over_at`` / ``epoch`` when the table has them)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM ddl_log_homes ORDER BY id")
        columns = [column.name for column in cursor.description or []]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def application_name(home: str) -> str:
    """The ``application_name`` of a database home's connections (issue 16 design: ``ddl-log:<home id>``)."""
    return f"ddl-log:{home}"


def home_log(location: str) -> dict[str, Any]:
    """A home's DDL log read without its lock (``ddl-log status``'s reading): its active chains (beside those only
    waiting for an old version's deletion to fall due), abandoned chains, the directories waiting for deletion, and
    any problem reading it."""
    import time

    from chains.deletions import deletion_of, waits
    from chains.entries import ChainState
    from ddl_log.cli.forensics import actions_of, log_state, scan_log

    records, problems, _, _ = scan_log(location)
    state = log_state(records, problems)
    now = time.time()
    active, abandoned, pending = [], [], []
    for position in sorted(state.chains):
        chain = state.chains[position]
        if chain.state is ChainState.ABANDONED:
            abandoned.append({"position": position, "statement": chain.statement})
        elif chain.state is ChainState.ACTIVE:
            actions = actions_of(chain, state)
            deletion = deletion_of(actions)
            if deletion is not None and waits(actions, now):
                pending.append(deletion[1].location)
            else:
                active.append({"position": position, "statement": chain.statement})
    return {"active": active, "abandoned": abandoned, "pending": pending,
            "problems": [p for p in problems if p.startswith("error:")]}
