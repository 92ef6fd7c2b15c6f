"""The "readers" group (issue 14): failed or wrong reads per 100 reads while a statement repeats, the atomic
statement beside plain Spark (DROP + CREATE TABLE AS SELECT; Spark's own INSERT OVERWRITE and TRUNCATE TABLE), with
the same 2 reader threads on the same session, in the same run (:mod:`tests.readers`: a read is good only if it
is a complete version live during the read). The figure is in ``extra_info["bad_per_100"]``; the timing is the
whole measurement's and means nothing by itself. Atomic must read 0.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.readers.harness import measure_in_session
from tests.readers.model import tally

STATEMENTS = 8
ROWS = 100_000
KINDS = ("cor_select", "insert_overwrite", "truncate")


@pytest.mark.benchmark(group="readers")
@pytest.mark.parametrize("mode", ["plain", "atomic"])
@pytest.mark.parametrize("kind", KINDS)
def test_readers(benchmark: Any, spark: Any, ddl: Any, clean: Any, kind: str, mode: str) -> None:
    found: dict[str, Any] = {}

    def measure() -> None:
        found["m"] = measure_in_session(spark, ddl=ddl, kinds=[kind], statements=STATEMENTS, rows=ROWS, mode=mode,
                                        prefix=f"{mode}_")

    benchmark.pedantic(measure, rounds=1, iterations=1)
    measured = found["m"]
    counts, errors, _ = tally(measured.events, measured.reads, stale_ok=False)
    mine = counts.get(kind, Counter())
    reads, bad = mine.get("reads", 0), mine.get("bad", 0)
    benchmark.extra_info.update({
        "baseline": mode == "plain", "kind": kind, "reads": reads, "failed": mine.get("failed", 0),
        "wrong": mine.get("wrong", 0) + mine.get("stale", 0), "bad_per_100": round(100.0 * bad / reads, 1)
        if reads else None, "errors": dict(errors.most_common(3)),
    })
    assert not measured.errors, measured.errors
