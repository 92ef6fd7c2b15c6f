"""The statement group on a Spark standalone cluster, each atomic statement beside its plain Spark equivalent on the
same cluster (issue 30): the scenarios and paired rounds of ``bench/test_statements.py``, with the data written by
executors in JVMs of their own."""

from __future__ import annotations

from typing import Any

import pytest

from bench.test_statements import SIDE_BY_SIDE, Scenario, cases
from bench.test_statements import test_statement as paired_statement

ON_CLUSTER = SIDE_BY_SIDE
"""Every statement of ``bench/test_statements.py``, in its paired rounds."""
GROUP_PREFIX = "Spark standalone cluster (2 workers of 1 core): "


@pytest.mark.parametrize(("scenario", "kind"), cases(ON_CLUSTER))
def test_statement_on_spark_cluster(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    paired_statement(benchmark, ddl, clean, scenario, kind)
    benchmark.group = GROUP_PREFIX + benchmark.group
