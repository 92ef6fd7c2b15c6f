"""Real SIGKILLs of a driver on the standalone cluster (``make test-cluster`` only; ``make test`` has the driver
killed in its data job, :mod:`tests.cluster.test_driver_killed`): the kills of tests/spark/test_replace_kill.py
(``DDL_LOG_CRASH_AT``: the driver process and its JVM, at the swap, before and after the binlog write, before the
old files' deletion), each recovered by a new driver on the same cluster, with the data written by executors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cluster.conftest import LONG, driver_env
from tests.spark.test_replace_kill import CRASHES, Kill, check_kill, kill_each

pytestmark = pytest.mark.skipif(not LONG, reason="make test-cluster (DDL_LOG_CLUSTER_PROOFS=long) only")


@pytest.fixture(scope="module")
def kills_on_cluster(spark_cluster: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Kill]:
    return kill_each(tmp_path_factory.mktemp("sigkill-on-cluster") / "home", driver_env(spark_cluster))


@pytest.mark.parametrize(("crash_at", "committed"), CRASHES)
def test_a_driver_sigkilled_on_the_cluster_is_recovered_by_the_next_one(kills_on_cluster, crash_at, committed):
    check_kill(kills_on_cluster[crash_at], committed)
