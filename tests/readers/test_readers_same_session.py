"""Readers in the writer's own session (a shared driver: a Thrift server, a notebook platform): two threads run
plain Spark queries on the table while each reader-atomic statement kind runs a few times; every read must be a
complete version that was live during the read (issue 14)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.readers.harness import measure_in_session
from tests.readers.model import IDLE, render, tally
from tests.readers.workload import KINDS

pytestmark = [pytest.mark.spark, pytest.mark.timeout(600)]

STATEMENTS = 2
"""Statements per kind (the emptying kinds also run a refilling INSERT OVERWRITE before each)."""
ROWS = 2000
MIN_READS_PER_KIND = 2
"""Reads that overlapped statements of each kind: fewer and the test proved nothing."""


def test_readers_in_the_writers_session_never_fail_nor_see_a_wrong_version(clean_spark: Any, tmp_path: Path) -> None:
    from ddl_log import AtomicDDL

    with AtomicDDL(spark=clean_spark, home=tmp_path / "home") as ddl:
        measured = measure_in_session(clean_spark, ddl=ddl, kinds=KINDS, statements=STATEMENTS, rows=ROWS)
    counts, errors, examples = tally(measured.events, measured.reads, stale_ok=False)
    report = render("readers in the writer's session", counts, errors, stale_ok=False)
    print(report)
    assert not measured.errors, f"statements failed: {measured.errors}"
    for kind in KINDS:
        assert counts.get(kind, Counter())["reads"] >= MIN_READS_PER_KIND, f"too few reads during {kind}\n{report}"
    assert counts["all"]["bad"] == 0, f"{report}\nexamples: {examples}"
    assert set(counts) - {"all", IDLE} <= set(KINDS)
