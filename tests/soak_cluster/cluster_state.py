"""What the cluster soak reads of the shared state, in one place: the AtomicDDL options of its drivers, the catalog
binlog (every driver's committed statements in commit order), the homes registered in the shared database with
their takeover columns, and each home's DDL log read without its lock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def ddl_options(**wanted: float | None) -> dict[str, float]:
    """The AtomicDDL keyword arguments among ``wanted`` that are set (lease, lock wait, takeover interval)."""
    return {name: value for name, value in wanted.items() if value is not None}


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
    """``("catalog", events in commit order)``: the one catalog binlog, read through any home (its seq is the commit
    order across drivers, and each event names its driver)."""
    if not homes:
        return "catalog", []
    return "catalog", sorted(binlog_of(home_url(url, homes[0])), key=lambda event: event["seq"])


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
    waiting for an old version's deletion to fall due), abandoned chains, the directories waiting for deletion, the
    work-table directories of undone statements waiting for their sweep (on a cluster), and any problem reading it."""
    import time

    from actions.deletions import deletion_of, waits
    from actions.kinds.sweep_table import SweepTablePayload
    from chains.entries import ChainState
    from ddl_log.frontends.cli.forensics import actions_of, log_state, scan_log

    records, problems, _, _ = scan_log(location)
    state = log_state(records, problems)
    now = time.time()
    active, abandoned, pending, sweeps = [], [], [], []
    for position in sorted(state.chains):
        chain = state.chains[position]
        if chain.state is ChainState.ABANDONED:
            abandoned.append({"position": position, "statement": chain.statement})
        elif chain.state is ChainState.ACTIVE:
            actions = actions_of(chain, state)
            deletion = deletion_of(actions)
            if deletion is not None and waits(actions, now):
                # A waiting sweep's directory was removed by its undo: only a late task could make it again.
                (sweeps if isinstance(deletion[1], SweepTablePayload) else pending).append(deletion[1].location)
            else:
                active.append({"position": position, "statement": chain.statement})
    return {"active": active, "abandoned": abandoned, "pending": pending, "sweeps": sweeps,
            "problems": [p for p in problems if p.startswith("error:")]}
