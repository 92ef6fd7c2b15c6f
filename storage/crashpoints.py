"""Named crash points: where tests kill the process to prove that recovery restores atomicity.

Every point is declared once with :func:`declare` (module level), so :func:`names` lists them all for sweeps and
for ``ddl-log crash-points``. A point does nothing unless armed:

* in-process, with :func:`armed` / :func:`arm`: the n-th hit raises :class:`SimulatedCrash`, a ``BaseException`` so
  that no ``except Exception`` in the code under test can swallow it. The test then abandons every object and
  re-opens the home from disk, exactly as a restarted process would. :func:`acting` runs an action at the point
  instead (another writer acting at that instant).
* by the environment, ``DDL_LOG_CRASH_AT=<name>[:<n>]``: the n-th hit (default 1) SIGKILLs the process together
  with its children (the Spark JVM), and its whole process group when it leads one. A JVM left running after its
  driver died would finish in-flight metastore calls and hide the very bugs these tests look for.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import attrs

ENV_VAR = "DDL_LOG_CRASH_AT"


class SimulatedCrash(BaseException):
    """Raised by an armed crash point in-process; stands for the process dying at that instant."""

    def __init__(self, point: str) -> None:
        super().__init__(f"simulated crash at {point}")
        self.point = point


@attrs.frozen
class CrashPoint:
    name: str
    doc: str

    def __call__(self) -> None:
        hit(self.name)


_registry: dict[str, CrashPoint] = {}
_lock = threading.Lock()
_armed: dict[str, int] = {}
_actions: dict[str, Callable[[], None]] = {}
_hits: dict[str, int] = {}
_recording: list[str] | None = None
_env_target: tuple[str, int] | None = None
_env_hits = 0
_step_guard: Callable[[], None] | None = None


def declare(name: str, doc: str) -> CrashPoint:
    """Register a crash point; names are unique across the project."""
    with _lock:
        existing = _registry.get(name)
        if existing is not None:
            return existing
        point = CrashPoint(name, doc)
        _registry[name] = point
        return point


def names(prefix: str = "") -> list[str]:
    """Every declared point whose name starts with ``prefix``, sorted."""
    return sorted(name for name in _registry if name.startswith(prefix))


def describe() -> list[CrashPoint]:
    return [_registry[name] for name in names()]


def _parse_env() -> tuple[str, int] | None:
    spec = os.environ.get(ENV_VAR, "").strip()
    if not spec:
        return None
    name, _, count = spec.partition(":")
    return name, int(count) if count else 1


def reload_environment() -> None:
    """Re-read ``DDL_LOG_CRASH_AT`` (it is read once at import otherwise)."""
    global _env_target, _env_hits
    _env_target = _parse_env()
    _env_hits = 0


def set_step_guard(guard: Callable[[], None] | None) -> None:
    """Call ``guard`` before every crash point (None: no more): a named point precedes every catalog call and log
    write, so a fenced driver (:class:`~storage.errors.HomeFencedError`) stops there before it touches anything."""
    global _step_guard
    _step_guard = guard


def hit(name: str) -> None:
    """Pass a crash point. Cheap when nothing is armed: one dict lookup and one comparison."""
    global _env_hits
    guard = _step_guard
    if guard is not None:
        guard()
    if _recording is not None:
        _recording.append(name)
    if _env_target is not None and _env_target[0] == name:
        with _lock:
            _env_hits += 1
            fire = _env_hits == _env_target[1]
        if fire:
            kill_process_tree()
    if _armed:
        with _lock:
            remaining = _armed.get(name)
            if remaining is None:
                return
            _hits[name] = _hits.get(name, 0) + 1
            if remaining > 1:
                _armed[name] = remaining - 1
                return
            del _armed[name]
            action = _actions.pop(name, None)
        if action is not None:
            action()
            return
        raise SimulatedCrash(name)


def arm(name: str, nth: int = 1) -> None:
    """Make the ``nth`` next hit of ``name`` raise :class:`SimulatedCrash`."""
    if name not in _registry:
        raise KeyError(f"unknown crash point {name!r}")
    with _lock:
        _armed[name] = nth


def disarm_all() -> None:
    with _lock:
        _armed.clear()
        _actions.clear()
        _hits.clear()


def fires_next(name: str) -> bool:
    """Whether the next hit of ``name`` kills (in-process or by the environment): lets a writer tear its write
    in half first, as a crash in the middle of ``write`` would."""
    if _env_target is not None and _env_target[0] == name and _env_hits + 1 == _env_target[1]:
        return True
    return _armed.get(name) == 1


def hits(name: str) -> int:
    """How many times an armed point was passed (for tests that count steps)."""
    return _hits.get(name, 0)


@contextmanager
def armed(name: str, nth: int = 1) -> Iterator[None]:
    arm(name, nth)
    try:
        yield
    finally:
        disarm_all()


@contextmanager
def acting(name: str, action: Callable[[], None], nth: int = 1) -> Iterator[None]:
    """The ``nth`` hit of ``name`` runs ``action`` instead of crashing, once: another writer (plain Spark, a second
    session) acting at that instant of a statement, in process."""
    arm(name, nth)
    with _lock:
        _actions[name] = action
    try:
        yield
    finally:
        disarm_all()


@contextmanager
def recording() -> Iterator[list[str]]:
    """Collect the names of every point passed inside the block, in order (to enumerate a statement's sweep)."""
    global _recording
    trace: list[str] = []
    _recording = trace
    try:
        yield trace
    finally:
        _recording = None


def occurrences(trace: list[str]) -> list[tuple[str, int]]:
    """Turn a trace into ``(name, nth)`` pairs: every distinct instant at which a crash can be armed."""
    seen: dict[str, int] = {}
    result: list[tuple[str, int]] = []
    for name in trace:
        seen[name] = seen.get(name, 0) + 1
        result.append((name, seen[name]))
    return result


def _children_of(pid: int) -> list[int]:
    children: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            children.append(int(entry))
    return children


def kill_process_tree() -> None:
    """SIGKILL every descendant (the JVM first), then the process group if we lead it, then ourselves."""
    me = os.getpid()
    pending = [me]
    descendants: list[int] = []
    while pending:
        for child in _children_of(pending.pop()):
            descendants.append(child)
            pending.append(child)
    for pid in descendants:
        with suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if os.getpgid(0) == me:
        os.killpg(me, signal.SIGKILL)
    os.kill(me, signal.SIGKILL)


reload_environment()
