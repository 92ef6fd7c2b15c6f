"""Real kills on a database home: a driver SIGKILLed at a crash point of an append leaves exactly the transactions it
committed, and the home's advisory lock goes with the process that held it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chains.log import DDLLog
from storage import crashpoints
from storage.errors import HomeLockedError
from storage.records.home import open_home

ROOT = Path(__file__).resolve().parents[2]

APPENDER = textwrap.dedent(
    """
    import sys
    from actions.kinds.create_table import CreateTablePayload
    from chains.entries import ActionType, ChainKind
    from chains.log import DDLLog
    from storage.catalogs.names import TableName
    from storage.records.home import open_home
    home = open_home(sys.argv[1])
    log = DDLLog(home.log_store())
    for n in range(10):
        position = log.new_chain(ChainKind.UNDO, f"s{n}")
        log.add_action(
            position,
            ActionType.CREATE_TABLE,
            name=TableName("default", f"t{n}"),
            payload=CreateTablePayload(),
        )
    print("survived", flush=True)
    """
)

HOLDER = textwrap.dedent(
    """
    import sys, time
    from storage.records.home import open_home
    home = open_home(sys.argv[1])
    print("locked", flush=True)
    time.sleep(120)
    """
)


def child(script: str, location: str, crash_at: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), crashpoints.ENV_VAR: crash_at}
    return subprocess.Popen([sys.executable, "-c", script, location], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def statements_after_reopen(location: str) -> list[str]:
    home = open_home(location, wait_seconds=30)
    try:
        return [chain.statement for chain in DDLLog(home.log_store()).chains()]
    finally:
        home.release()


@pytest.mark.parametrize(("crash_at", "committed"), [
    ("record.before_write:3", 2),
    ("record.torn_write:3", 2),
    ("record.before_sync:3", 2),  # the INSERT ran, COMMIT never came: the server rolls it back
    ("record.after_sync:3", 3),
])
def test_a_driver_killed_at_a_crash_point_leaves_exactly_its_committed_records(postgres_url, crash_at, committed):
    location = f"{postgres_url}?home=killed"
    process = child(APPENDER, location, crash_at)
    out, err = process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL, err
    assert "survived" not in out
    assert statements_after_reopen(location) == [f"s{n}" for n in range(committed)]


def test_the_home_lock_is_released_when_its_holder_is_sigkilled(postgres_url):
    location = f"{postgres_url}?home=holder"
    process = child(HOLDER, location)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "locked"
        with pytest.raises(HomeLockedError):
            open_home(location)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    home = open_home(location, wait_seconds=30)  # the server ends the dead session, and its lock with it
    home.release()
