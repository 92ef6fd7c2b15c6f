"""Reader threads in the soak worker's session (issue 14): plain Spark reads of the soak's tables while the workload
runs, each checked against the soak's model with :mod:`tests.readers.model`: a table's content is its per-label
aggregates (or ``absent``), every statement is an event from its ``before`` to its ``after`` state (``before`` when
it did not commit). A bad read overlapping only statements whose intermediate states are promised to readers (or
none) is a violation; during multi-table renames the name may vanish by design and is only counted."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from typing import Any

from tests.readers.loop import error_text
from tests.readers.model import GOOD, Content, Event, Read, classify, normalise, versions
from tests.soak.checker import aggregates

ABSENT: Content = (("<absent>",),)
NOT_PROMISED = frozenset({"rename_swap", "rename_rotate", "drop_database"})
"""Statements during which a name legitimately vanishes (several renames, as in MariaDB)."""


def content(state: dict[str, Any] | None) -> Content:
    if state is None:
        return ABSENT
    return normalise([label, *values] for label, values in aggregates(state["seg"]).items())


class SoakReaders:
    def __init__(self, spark: Any, model: dict[str, Any], pool: tuple[str, ...], *, threads: int, seed: str) -> None:
        now = time.time()
        self.spark = spark
        self.pool = pool
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.events = [Event(name, "setup", now, now, content(model["tables"].get(name))) for name in pool]
        self.reads: list[Read] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._loop, args=(f"soak-reader-{n}",), daemon=True)
                        for n in range(threads)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)

    def _loop(self, who: str) -> None:
        while not self.stop.is_set():
            name = self.rng.choice(self.pool)
            start = time.time()
            try:
                rows = self.spark.sql(f"SELECT w, count(*), sum(k), sum(k * k), min(k), max(k) FROM `default`.`{name}` "
                                      "GROUP BY w").collect()
                read = Read(who, name, start, time.time(), normalise(list(r) for r in rows))
            except Exception as error:  # noqa: BLE001 - every failure is a finding
                text = error_text(error)
                absent = text.startswith("TABLE_OR_VIEW_NOT_FOUND")
                read = Read(who, name, start, time.time(), ABSENT if absent else None, None if absent else text)
            with self.lock:
                self.reads.append(read)

    def statement(self, begin: dict[str, Any], start: float, end: float, committed: bool) -> None:
        state = begin["after"] if committed else begin["before"]
        with self.lock:
            for name in begin["before"]["tables"]:
                if name in self.pool:
                    self.events.append(Event(name, begin["kind"], start, end, content(state["tables"].get(name))))

    def settle(self, until: float) -> dict[str, Any]:
        """Classify the reads that ended by ``until`` (every statement they overlapped has ended) and forget them."""
        with self.lock:
            ready = [r for r in self.reads if r.end <= until]
            self.reads = [r for r in self.reads if r.end > until]
            events = list(self.events)
        known = versions(events)
        counts: dict[str, Counter[str]] = {}
        violations: list[dict[str, Any]] = []
        violating = 0
        for read in ready:
            verdict = classify(read, known.get(read.table, []))
            kinds = sorted({e.kind for e in events if e.table == read.table and e.kind != "setup"
                            and e.start <= read.end and e.end >= read.start}) or ["between statements"]
            for kind in kinds:
                counts.setdefault(kind, Counter())["reads"] += 1
                if verdict != GOOD:
                    counts[kind]["bad"] += 1
            if verdict != GOOD and not NOT_PROMISED & set(kinds):
                violating += 1
                if len(violations) < 3:
                    violations.append({"verdict": verdict, "during": kinds, **read.as_json()})
        return {"counts": {k: dict(v) for k, v in counts.items()}, "violating": violating, "examples": violations}
