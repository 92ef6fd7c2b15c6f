"""CREATE OR REPLACE through the metastore service on PostgreSQL beside plain DROP + CTAS on the same service (issue
15): the same scenarios and paired rounds as ``bench/test_statements.py``, on the production shape."""

from __future__ import annotations

from typing import Any

import pytest

from bench.test_statements import Scenario, cases, create_or_replace
from bench.test_statements import test_statement as paired_statement

ON_SERVICE = [create_or_replace(0), create_or_replace(100_000), create_or_replace(1_000_000)]
GROUP_PREFIX = "metastore service on PostgreSQL, log in PostgreSQL: "


@pytest.mark.parametrize(("scenario", "kind"), cases(ON_SERVICE))
def test_statement_on_service(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    paired_statement(benchmark, ddl, clean, scenario, kind)
    benchmark.group = GROUP_PREFIX + benchmark.group
