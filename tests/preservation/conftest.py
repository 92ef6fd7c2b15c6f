"""How the preservation properties run.

Each property draws shapes and statements with hypothesis and runs every example on the one shared Spark session:
fresh table names per example, dropped again after it (cheaper than resetting the catalog each time), and the
catalog reset once after each test.

Budget: the normal suite runs each property on a few derandomized examples (the same ones every run, so the strict
xfail marks of the known defects stay reliable) without shrinking (each shrink step is a Spark round trip; the
failure message prints the whole reproduction anyway). Environment variables widen it:

* ``PRESERVATION_EXAMPLES=N``: N examples per property, randomized, with hypothesis' example database;
* ``PRESERVATION_SHRINK=1``: shrink a failing example to a minimal one;
* ``PRESERVATION_RECORD=file.jsonl``: a discovery run, which records every difference instead of failing and puts
  back into each property what it leaves out for a known defect (see :func:`tests.preservation.harness.space`);
  ``python -m tests.preservation.report file.jsonl`` groups what it found into classes, smallest example first.

A long discovery run of the six general properties (about 30 minutes on 2 cores)::

    PRESERVATION_RECORD=/tmp/found.jsonl PRESERVATION_EXAMPLES=100 pytest tests/preservation \
        -k "leaves_what or changes_that or removes_those" --hypothesis-show-statistics
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, settings

from tests.conftest import reset_spark
from tests.preservation.harness import Bench

F = TypeVar("F", bound=Callable[..., Any])


def budget(examples: int) -> Callable[[F], F]:
    """The hypothesis settings of a property that runs ``examples`` examples in the normal suite."""
    wider = os.environ.get("PRESERVATION_EXAMPLES")
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if os.environ.get("PRESERVATION_SHRINK"):
        phases.append(Phase.shrink)
    return settings(  # type: ignore[return-value]
        max_examples=int(wider) if wider else examples,
        deadline=None,
        derandomize=not wider,
        database=settings.default.database if wider else None,
        phases=phases,
        print_blob=False,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


@pytest.fixture
def bench(spark: Any, warehouse: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Bench]:
    """The test's bench on the shared session; afterwards the catalog is reset (every table, every directory)."""
    yield Bench(spark, tmp_path, request.node.name)
    reset_spark(spark, warehouse)
