"""A short soak (``make soak-short``, outside ``make test``'s time): two iterations of a random workload killed at
a random instant (one of them also arming a crash point), each followed by recovery and the full check in the next
worker; zero violations."""

from __future__ import annotations

import io
import os
import shutil

import pytest

from tests.soak.run import render, run_soak

pytestmark = [pytest.mark.spark, pytest.mark.timeout(600),
              pytest.mark.skipif(not os.environ.get("DDL_LOG_SOAK_SHORT"),
                                 reason="`make soak-short` (DDL_LOG_SOAK_SHORT=1) runs it, outside make test's time")]


def test_short_soak(tmp_path):
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: the soak needs one")
    out = io.StringIO()
    summary = run_soak(2, workdir=tmp_path / "soak", kill_within=6, crash_fraction=0.34,
                       statements=15, out=out)
    report = out.getvalue()
    print(report)
    assert summary["iterations"] == 2 and summary["checks"] >= 2, report
    assert summary["kills"] >= 1, report
    assert summary["violations"] == [], render(summary)
    assert summary["worker_failures"] == [], render(summary)
