"""Readers in another driver (issue 14): a metastore service started from pyspark's jars, a writer driver running
each reader-atomic statement kind through AtomicDDL with 2 reader threads in its session, and a reader in a second
driver; then a writer SIGKILLed in the middle of a CREATE OR REPLACE and a recovery run on its home. No read may
fail or be wrong, in either place; the other driver may read an older complete version (its cached relation)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.readers.services import run_two_drivers
from tests.readers.workload import KINDS

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]

STATEMENTS = 1
ROWS = 2000


def test_readers_in_both_drivers_never_fail_also_when_the_writer_is_killed(tmp_path: Path) -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime")
    result = run_two_drivers(tmp_path, kinds=list(KINDS), statements=STATEMENTS, rows=ROWS, kill=True)
    report = result.report()
    print(report)
    assert not result.problems, report
    assert not result.statement_errors, report
    assert result.writer_session.reads() > 0 and result.other_driver.reads() > 0, report
    assert result.other_driver.reads("recovery") > 0 or result.other_driver.reads("cor_select") > 0, report
    assert result.writer_session.bad == 0, f"{report}\n{result.writer_session.examples}"
    assert result.other_driver.bad == 0, f"{report}\n{result.other_driver.examples}"
