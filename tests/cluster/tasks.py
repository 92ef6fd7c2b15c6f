"""Tasks that hold on purpose, so that a fault lands in the middle of a data job: a Python UDF that, on the first row
a task attempt sees, leaves a marker (which stage, partition and attempt, and the pid of the executor JVM it runs
in) and then waits, for some seconds or until a release file appears. The driver registers it as ``hold(x)``; the
test reads the markers to know when a task runs and which executor to kill.

The UDF runs in the executors' Python workers, which import this module by name (``spark.executorEnv.PYTHONPATH``
holds the repository: see :func:`tests.cluster.conftest.driver_env`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

RELEASE = "release"
"""The file whose appearance lets every held task go on."""
EXECUTOR_CLASS = b"CoarseGrainedExecutorBackend"


@attrs.frozen
class Marker:
    """A task attempt that began to hold: when, where."""

    stage: int
    partition: int
    attempt: int
    executor_pid: int
    path: Path

    @classmethod
    def read(cls, path: Path) -> Marker:
        stage, partition, attempt = (int(part) for part in path.name.removeprefix("started-").split("-"))
        return cls(stage, partition, attempt, int(path.read_text() or 0), path)


def executor_pid() -> int:
    """The executor JVM this Python worker serves: the nearest ancestor running CoarseGrainedExecutorBackend."""
    pid = os.getppid()
    while pid > 1:
        try:
            if EXECUTOR_CLASS in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return 0
    return 0


def hold_function(markers: Path, seconds: dict[int, float], default: float, until_release: float = 0.0,
                  late_writes: Path | None = None, until_copy: float = 0.0) -> Callable[[Any], Any]:
    """The UDF: on a task attempt's first row, mark and hold ``seconds[partition]`` (else ``default``) seconds, or,
    with ``until_release``, until ``markers/release`` exists (at most that long); every row passes unchanged.
    ``late_writes`` (the warehouse): the first attempt of partition 0 also starts the late writer
    (:mod:`tests.cluster.late_writer`), which outlives it. ``until_copy``: the first attempt of partition 0 holds
    until another attempt of it (a speculative copy) has begun, at most that long."""
    markers = Path(markers)

    def hold(value: Any) -> Any:
        from pyspark import TaskContext

        context = TaskContext.get()
        if context is None:
            return value
        marker = markers / f"started-{context.stageId()}-{context.partitionId()}-{context.attemptNumber()}"
        if not marker.exists():
            partial = marker.with_suffix(".partial")
            partial.write_text(str(executor_pid()))
            partial.replace(marker)
            if late_writes is not None and context.partitionId() == 0 and context.attemptNumber() == 0:
                start_late_writer(markers, late_writes)
            if until_copy and context.partitionId() == 0 and context.attemptNumber() == 0:
                deadline = time.monotonic() + until_copy
                while time.monotonic() < deadline and not any(
                        Marker.read(path).attempt > 0 for path in markers.glob(f"started-{context.stageId()}-0-*")
                        if path.suffix != ".partial"):
                    time.sleep(0.05)
            elif until_release:
                deadline = time.monotonic() + until_release
                while not (markers / RELEASE).exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
            else:
                time.sleep(seconds.get(context.partitionId(), default))
        return value

    return hold


def start_late_writer(markers: Path, warehouse: Path) -> None:
    """:mod:`tests.cluster.late_writer` in a session of its own (it outlives this task, its executor and driver)."""
    import subprocess
    import sys

    subprocess.Popen([sys.executable, "-m", "tests.cluster.late_writer", str(markers), str(warehouse)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)


def register_hold(spark: Any, markers: Path, *, seconds: dict[int, float] | None = None, default: float = 0.0,
                  until_release: float = 0.0, late_writes: Path | None = None, until_copy: float = 0.0) -> None:
    """Register ``hold(x)`` (BIGINT) in ``spark``'s session, its markers under ``markers`` (made empty)."""
    markers.mkdir(parents=True, exist_ok=True)
    for old in markers.iterdir():
        old.unlink()
    function = hold_function(markers, seconds or {}, default, until_release, late_writes, until_copy)
    spark.udf.register("hold", function, "bigint")


def markers_in(markers: Path) -> list[Marker]:
    return sorted((Marker.read(path) for path in Path(markers).glob("started-*") if path.suffix != ".partial"),
                  key=lambda marker: marker.path.stat().st_mtime)


def wait_for_marker(markers: Path, accept: Callable[[Marker], bool] = lambda marker: True,
                    timeout: float = 180.0) -> Marker:
    """The first marker ``accept`` takes, once there is one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [marker for marker in markers_in(markers) if accept(marker)]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no task started under {markers} within {timeout:.0f} s")


def release(markers: Path) -> None:
    (Path(markers) / RELEASE).write_text("")
