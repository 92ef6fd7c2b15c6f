"""Paired rounds: a benchmark's plain baseline run right before each of its measured rounds.

The load of a shared machine drifts, so a ratio of two benchmarks measured a minute apart also measures the drift.
A baseline run right before each round sees the same load as that round: the median of the per-round ratios
(``extra_info["paired_ratio"]``, which bench/summary.py reports beside ``paired_plain_median_s``) is steadier."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def timed(call: Callable[[], object]) -> float:
    """The seconds ``call`` took: a baseline timed here rather than by itself."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def run_paired(benchmark: Any, target: Callable[[], object], baseline: Callable[[], float], *, rounds: int,
               warmup: int = 0, setup: Callable[[], None] | None = None, plain_key: str = "paired_plain_median_s",
               rounded: bool = True) -> list[float]:
    """``target`` measured by pytest-benchmark (``rounds`` after ``warmup``), with ``baseline`` run right before
    each round (the warm-up ones too) and ``setup`` after it, both outside the timing. ``baseline`` returns its own
    seconds: :func:`timed` times it here, a client that times its statements where it issues them reports its own.

    Stores the median of the per-round ratios target / baseline as ``paired_ratio`` and the baseline's median under
    ``plain_key`` (rounded to 3 and 6 places unless ``rounded`` is false); returns the baseline's measured seconds."""
    plain: list[float] = []

    def before_round() -> None:
        plain.append(baseline())
        if setup is not None:
            setup()

    benchmark.pedantic(target, setup=before_round, rounds=rounds, warmup_rounds=warmup, iterations=1)
    plain = plain[warmup:]
    ratio = statistics.median(t / p for t, p in zip(benchmark.stats.stats.data, plain, strict=True))
    plain_median = statistics.median(plain)
    benchmark.extra_info[plain_key] = round(plain_median, 6) if rounded else plain_median
    benchmark.extra_info["paired_ratio"] = round(ratio, 3) if rounded else ratio
    return plain
