"""Runs the writer's statements with reader threads on the same session, and keeps the record as JSON lines, so
that a test, ``make readers`` (:mod:`tests.readers.run`), the bench and the driver subprocesses share one path."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from tests.readers.loop import ReaderThreads, Target
from tests.readers.model import Event, Read
from tests.readers.workload import plan, run_plan, runner_for


@attrs.frozen
class Measurement:
    events: list[Event]
    reads: list[Read]
    errors: list[Event] = attrs.field(factory=list)
    """Statements that raised (the harness's own failure, not a reader's)."""


class CurrentTarget:
    """The table the readers read now; switched by the writer between kinds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._target: Target | None = None

    def __call__(self) -> Target | None:
        with self._lock:
            return self._target

    def set(self, target: Target | None) -> None:
        with self._lock:
            self._target = target


def measure_in_session(spark: Any, *, kinds: Iterable[str], statements: int, rows: int, mode: str = "atomic",
                       ddl: Any = None, readers: int = 2, prefix: str = "",
                       on_target: Callable[[Target | None], None] = lambda target: None,
                       on_record: Callable[[dict[str, Any]], None] = lambda record: None) -> Measurement:
    """For each kind: set its table up, then run ``statements`` statements while ``readers`` threads read it."""
    runner = runner_for(mode, ddl=ddl, spark=spark)
    current = CurrentTarget()
    events: list[Event] = []

    def switch(target: Target | None) -> None:
        current.set(target)
        on_target(target)

    def sink(read: Read) -> None:
        on_record(read.as_json())

    def keep(event: Event) -> None:
        on_record(event.as_json())

    with ReaderThreads(spark, current, count=readers, who=f"{mode}-session", sink=sink) as threads:
        for kind in kinds:
            events += run_plan(spark, plan(kind, statements, rows, prefix=prefix), runner, on_target=switch,
                               on_event=keep)
        switch(None)
    return Measurement(events, list(threads.reads), [e for e in events if e.error])


def measure_until(spark: Any, *, kind: str, statements: int, rows: int, min_reads: int, rounds: int = 4,
                  **options: Any) -> Measurement:
    """:func:`measure_in_session` of one ``kind``, run again (on a table of its own each round) until the readers
    overlapped its statements ``min_reads`` times, at most ``rounds`` rounds: how many reads meet a statement depends
    on the machine's load (a CI run once met 2 where the floor was 4); the reads of every round are judged."""
    from tests.readers.model import tally

    events: list[Event] = []
    reads: list[Read] = []
    errors: list[Event] = []
    first = options.pop("prefix", "")
    for round_ in range(rounds):
        prefix = first if round_ == 0 else f"again{round_}_"
        measured = measure_in_session(spark, kinds=[kind], statements=statements, rows=rows, prefix=prefix, **options)
        events += measured.events
        reads += measured.reads
        errors += measured.errors
        counts = tally(events, reads, stale_ok=False)[0]
        if errors or counts.get(kind, {}).get("reads", 0) >= min_reads:
            break
    return Measurement(events, reads, errors)


class JsonLines:
    """Append-only JSON lines, flushed per record (a SIGKILL loses at most the line being written), thread-safe."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, default=str) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


def records(path: Path) -> Iterator[dict[str, Any]]:
    """The readable records of a JSON-lines file (a torn last line is skipped)."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue


def load(path: Path) -> tuple[list[Event], list[Read], list[dict[str, Any]]]:
    """Events, reads and the other records (begin, recovered, ...) of a file."""
    events: list[Event] = []
    reads: list[Read] = []
    other: list[dict[str, Any]] = []
    for record in records(path):
        if record.get("type") == "event":
            events.append(Event.from_json(record))
        elif record.get("type") == "read":
            reads.append(Read.from_json(record))
        else:
            other.append(record)
    return events, reads, other


def write_target(path: Path, target: Target | None) -> None:
    """The control file a reader in another driver follows (replaced atomically)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(attrs.asdict(target) if target else {}), encoding="utf-8")
    os.replace(tmp, path)


def read_target(path: Path) -> Target | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return Target(value["table"], value["query"]) if value else None
