"""A real SIGKILL of a driver (Python and its JVM) while ``spark.sql("CREATE OR REPLACE TABLE ...")`` runs on an
attached session, inside the engine's callback; then a new driver attaches a session to the home (recovery): the
old table before the commit point, the new one after it, nothing left over either way. Each driver that recovers
and inspects one kill runs the next one (4 driver starts for 3 kills). The third kill is of a transaction opened
with ``spark.sql("START TRANSACTION")``, in its COMMIT before the commit point: the next attach undoes it whole."""

from __future__ import annotations

import pytest

from tests.spark.test_replace_kill import Kill, check_kill, kill_each, module_worker

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("sigkill_attached")]

CRASHES = [
    ("commit.before_binlog", False),   # swapped, XID stored, binlog event not written: undone
    ("commit.after_binlog", True),     # committed: finished
    ("txn.commit.before_binlog", False),  # the session's transaction, its COMMIT before the commit point: undone
]


driver = module_worker("tests.attached.kill_worker", timeout=900)


@pytest.fixture(scope="module")
def kills(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Kill]:
    return kill_each(tmp_path_factory.mktemp("sigkill-attached") / "home", crashes=CRASHES, run=driver)


@pytest.mark.parametrize(("crash_at", "committed"), CRASHES)
def test_a_killed_driver_leaves_the_old_or_the_new_table_for_the_next_attached_session(kills, crash_at, committed):
    check_kill(kills[crash_at], committed)
