"""The reader loop: plain Spark queries on a table, over and over, each result or error kept with its interval.

Nothing here goes through this project: a reader is what a dashboard or a downstream job does, ``spark.sql`` on the
table's name. Usable in threads (one SparkSession is thread-safe for queries) and in a driver of its own
(:mod:`tests.readers.reader_process`).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import attrs

from tests.readers.model import Read, normalise

_CONDITION = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")


@attrs.frozen
class Target:
    """What to read: the table and the query whose result the model predicts."""

    table: str
    query: str


def read_query(table: str, *, partitioned: bool) -> str:
    if partitioned:
        return f"SELECT p, count(*), min(v), max(v), sum(a) FROM {table} GROUP BY p"
    return f"SELECT CAST(NULL AS INT) AS p, count(*), min(v), max(v), sum(a) FROM {table}"


def error_text(error: BaseException) -> str:
    """``CONDITION: first line`` (the error condition of a Spark error; the class name otherwise)."""
    condition = None
    for getter in ("getCondition", "getErrorClass"):
        method = getattr(error, getter, None)
        if callable(method):
            try:
                condition = method()
            except Exception:  # noqa: BLE001 - the condition is only a label
                condition = None
            if condition:
                break
    text = str(error).strip()
    if not condition:  # a Py4JJavaError from a failed job: the condition is in the Java message
        found = _CONDITION.search(text)
        condition = found.group(1) if found else None
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("An error occurred")]
    return f"{condition or type(error).__name__}: {(lines or [''])[0][:300]}"


def read_once(spark: Any, target: Target, who: str) -> Read:
    start = time.time()
    try:
        rows = spark.sql(target.query).collect()
    except Exception as error:  # noqa: BLE001 - every failure is a finding
        return Read(who, target.table, start, time.time(), None, error_text(error))
    return Read(who, target.table, start, time.time(), normalise(list(row) for row in rows))


def reader_loop(spark: Any, target: Callable[[], Target | None], stop: threading.Event, sink: Callable[[Read], None],
                *, who: str, refresh_every: int = 0, pause: float = 0.0) -> int:
    """Read ``target()`` until ``stop`` is set; every read goes to ``sink``. ``refresh_every`` > 0: run
    ``REFRESH TABLE`` before every n-th read (a reader in another driver that wants new versions must; its
    failure is recorded as a failed read). Returns the number of reads."""
    done = 0
    while not stop.is_set():
        current = target()
        if current is None:
            stop.wait(0.05)
            continue
        if refresh_every and done % refresh_every == 0:
            start = time.time()
            try:
                spark.sql(f"REFRESH TABLE {current.table}")
            except Exception as error:  # noqa: BLE001 - a failed refresh is a failed read
                sink(Read(who, current.table, start, time.time(), None, "REFRESH " + error_text(error)))
                done += 1
                continue
        sink(read_once(spark, current, who))
        done += 1
        if pause:
            stop.wait(pause)
    return done


class ReaderThreads:
    """``count`` reader threads on one session, collecting their reads in memory; ``with`` starts and stops them."""

    def __init__(self, spark: Any, target: Callable[[], Target | None], *, count: int = 2, who: str = "thread",
                 sink: Callable[[Read], None] | None = None) -> None:
        self.reads: list[Read] = []
        self._lock = threading.Lock()
        self._extra = sink
        self.stop = threading.Event()
        self.failures: list[BaseException] = []
        self._threads = [threading.Thread(target=self._run, args=(spark, target, f"{who}-{n}"), daemon=True,
                                          name=f"reader-{who}-{n}") for n in range(count)]

    def _sink(self, read: Read) -> None:
        with self._lock:
            self.reads.append(read)
        if self._extra is not None:
            self._extra(read)

    def _run(self, spark: Any, target: Callable[[], Target | None], who: str) -> None:
        try:
            reader_loop(spark, target, self.stop, self._sink, who=who)
        except BaseException as error:  # noqa: BLE001 - reported by __exit__
            self.failures.append(error)

    def __enter__(self) -> ReaderThreads:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout=300)
        if self.failures and exc[0] is None:
            raise self.failures[0]
