"""DDL_LOG_CRASH_AT kills for real: the process and its children (as the Spark JVM is) die by SIGKILL at the n-th hit
of the named point, and what was durable before survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from chains.log import open_log
from storage import crashpoints

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import subprocess, sys, time
    from actions.kinds.create_table import CreateTablePayload
    from chains.entries import ActionType, ChainKind
    from chains.log import open_log
    from storage.catalogs.names import TableName
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    open(sys.argv[2], "w").write(str(helper.pid))
    log = open_log(sys.argv[1])
    for n in range(10):
        position = log.new_chain(ChainKind.UNDO, f"s{n}")
        log.add_action(
            position,
            ActionType.CREATE_TABLE,
            name=TableName("default", f"t{n}"),
            payload=CreateTablePayload(),
        )
    helper.kill()
    print("survived", flush=True)
    """
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"


def run_child(tmp_path: Path, crash_at: str) -> tuple[subprocess.CompletedProcess[str], int]:
    pid_file = tmp_path / "helper.pid"
    env = {**os.environ, "PYTHONPATH": str(ROOT), crashpoints.ENV_VAR: crash_at}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path), str(pid_file)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    return result, int(pid_file.read_text())


def test_the_nth_hit_sigkills_the_process_and_its_children(tmp_path):
    result, helper_pid = run_child(tmp_path, "record.after_sync:4")
    assert result.returncode == -signal.SIGKILL
    assert "survived" not in result.stdout
    deadline = time.monotonic() + 5
    while alive(helper_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(helper_pid), "the child process outlived its parent"
    assert len(open_log(str(tmp_path)).chains()) == 4


def test_a_kill_in_the_middle_of_a_write_leaves_a_torn_tail_that_is_cut(tmp_path):
    result, _ = run_child(tmp_path, "record.torn_write:3")
    assert result.returncode == -signal.SIGKILL
    log = open_log(str(tmp_path))
    assert [c.statement for c in log.chains()] == ["s0", "s1"]


def test_without_the_variable_nothing_dies(tmp_path):
    result, _ = run_child(tmp_path, "")
    assert result.returncode == 0 and "survived" in result.stdout


def test_every_crash_point_has_a_unique_documented_name():
    import ddl_log  # noqa: F401 - registers the points of every layer
    import replace_table.machine  # noqa: F401

    described = crashpoints.describe()
    assert len({p.name for p in described}) == len(described) > 20
    assert all(p.doc for p in described)
