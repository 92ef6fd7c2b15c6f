"""Atomicity with executors in JVMs of their own, on a standalone cluster this test process starts (issue 30).

Each driver is a process of its own on the cluster (:mod:`tests.cluster.proof_driver`), running several proofs in
one application; a test here checks one of them. ``make test`` runs a representative part, ``make test-cluster``
(``DDL_LOG_CLUSTER_PROOFS=long``) every form, point and statement.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.cluster.conftest import LONG, SPECULATIVE, run_proof_driver, scenario

SWEEP_FORMS = (("columns", "like", "select", "select-no-binlog", "partitioned", "partitioned-swap", "dataframe")
               if LONG else ("select",))
SWEEP_MODE = "all" if LONG else "some"
KILLED = ("ctas", "replace", "overwrite") if LONG else ("ctas",)
WRITTEN_BY = {"ctas": "create", "replace": "write", "overwrite": "write"}
"""The path each statement takes on the cluster, with the project's jar loaded as every driver of the project loads it
(:mod:`tests.cluster.proof_driver`): a replace writes the new version's directory with no work table."""


@pytest.fixture(scope="module")
def plain_driver(spark_cluster: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One driver, speculation off: an executor killed in each data job of :data:`KILLED` (and in ``make proofs`` the
    sweep too: one application less to start)."""
    sweeps = [] if LONG else [f"sweep:{form}:{SWEEP_MODE}" for form in SWEEP_FORMS]
    return run_proof_driver(spark_cluster, tmp_path_factory.mktemp("plain-driver"),
                            sweeps + [f"kill-executor:{statement}" for statement in KILLED])


@pytest.mark.parametrize("form", SWEEP_FORMS)
def test_a_crash_at_each_point_of_create_or_replace_leaves_the_old_or_the_new_table(request, spark_cluster, form,
                                                                                   tmp_path):
    """The sweep of tests/spark/test_replace_sweep.py with the data written by executors: recovery gives exactly the
    old table or exactly the new one, never a TMP table or an orphan directory; old before the commit, new after.
    (``make test-cluster``: a driver per form, every point.)"""
    name = f"sweep:{form}:{SWEEP_MODE}"
    results = (run_proof_driver(spark_cluster, tmp_path, [name], timeout=3600) if LONG
               else request.getfixturevalue("plain_driver"))
    found = scenario(results, name)
    assert found["old"] > 0 and found["new"] > 0, found


@pytest.mark.parametrize("statement", KILLED)
def test_an_executor_killed_during_the_data_job_gives_every_row_once_or_the_old_table(plain_driver, statement):
    """CTAS, CREATE OR REPLACE, INSERT OVERWRITE: Spark retries the dead executor's tasks, so the statement completes
    with every row exactly once, one binlog event, and no work table or stray file remains (the proof also accepts a
    failure that leaves the old table whole; with Spark's 4 tries per task none came)."""
    found = scenario(plain_driver, f"kill-executor:{statement}")
    assert found["outcome"] == "completed", found
    assert found["task_attempts"] > 4 and found["later_attempts"] >= 1, found
    assert found["path"] == WRITTEN_BY[statement], found


@pytest.mark.parametrize("statement", SPECULATIVE)
def test_with_speculation_an_executor_killed_gives_every_row_once_or_the_old_table(speculative_driver, statement):
    """The same with speculative copies of a slow task (:data:`tests.cluster.conftest.SPECULATION`): two attempts
    of one partition write, one commits."""
    found = scenario(speculative_driver, f"kill-executor:{statement}")
    assert found["speculation"] is True, found
    assert found["outcome"] == "completed" or found["outcome"].startswith("failed"), found
    assert found["outcome"] != "completed" or found["path"] == WRITTEN_BY[statement], found
    assert found["task_attempts"] > 4 and found["later_attempts"] >= 1, found


def test_the_cluster_runs_the_drivers_on_executors_of_their_own(plain_driver: dict[str, Any]) -> None:
    """The proofs ran in a driver of the standalone master (executors in the workers' JVMs), which exited cleanly."""
    assert str(plain_driver["driver"].get("master", "")).startswith("spark://"), plain_driver["driver"]
    assert plain_driver["driver"]["returncode"] == 0, plain_driver["driver"]

