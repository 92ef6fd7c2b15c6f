"""The statement group on a Spark standalone cluster, each atomic statement beside its plain Spark equivalent on the
same cluster (issue 30): the scenarios and paired rounds of ``bench/test_statements.py``, with the data written by
executors in JVMs of their own."""

from __future__ import annotations

from typing import Any

import pytest

from bench.test_statements import (
    Scenario,
    cases,
    create_as_select,
    create_or_replace,
    insert_overwrite,
    rename_two,
    truncate,
)
from bench.test_statements import test_statement as paired_statement

ON_CLUSTER = [create_or_replace(0), create_or_replace(100_000), create_as_select(100_000), rename_two(),
              insert_overwrite(), truncate()]
"""DROP TABLE is not here: its setup makes the dropped tables again with plain Spark at their default directories,
which an atomic DROP keeps for the grace period (LOCATION_ALREADY_EXISTS); no job runs in a DROP anyway."""
GROUP_PREFIX = "Spark standalone cluster (2 workers of 1 core): "


@pytest.mark.parametrize(("scenario", "kind"), cases(ON_CLUSTER))
def test_statement_on_spark_cluster(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    paired_statement(benchmark, ddl, clean, scenario, kind)
    benchmark.group = GROUP_PREFIX + benchmark.group
