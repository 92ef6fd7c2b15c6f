"""The short cluster soak (``make soak-short``, outside ``make test``'s time): 3 drivers on the same tables of one
PostgreSQL-backed metastore service, 45 s of workload with 2 SIGKILLs of a random driver (JVM included), each
replaced by a driver with a new home; the survivors take the dead homes over. Zero violations: every committed
statement in the catalog binlog once, every table as the binlog says, nothing left behind, no lock held by a dead
driver, no active chain, every read whole."""

from __future__ import annotations

import io
import os
import shutil

import pytest

from tests.soak_cluster.run import render, run_cluster_soak

pytestmark = [pytest.mark.spark, pytest.mark.servers, pytest.mark.xdist_group("soak_cluster"),
              pytest.mark.timeout(900),
              pytest.mark.skipif(not os.environ.get("DDL_LOG_SOAK_SHORT"),
                                 reason="`make soak-short` (DDL_LOG_SOAK_SHORT=1) runs it, outside make test's time")]


def test_short_cluster_soak():
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: the soak needs one")
    out = io.StringIO()
    summary = run_cluster_soak(seconds=45, drivers=3, kills=2, out=out)
    report = out.getvalue() + "\n" + render(summary)
    print(report)
    assert summary["kills"] == 2, report
    assert summary["commits"] > 0 and summary["reads"] > 0, report
    assert summary["violations"] == 0, report
