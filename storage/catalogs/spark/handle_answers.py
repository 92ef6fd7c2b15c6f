"""Answers fixed for the life of a JVM handle (a ``JavaSparkContext``, a JVM ``SparkSession``), asked of the JVM once
per handle: whether its JVM has the project's classes, how its session was built.

Kept by the handle's ``id`` with the handle itself, so that an id is never another handle's, and at most a few at once
(oldest out): every kept handle keeps its JVM object alive, and a server makes a session per client (a Thrift or
Connect server's), so an unbounded table would keep every session its clients ever had."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class HandleAnswers(Generic[T]):
    """One answer per handle, computed on the first ask; at most ``kept`` handles at once."""

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._answers: dict[int, tuple[object, T]] = {}

    def get(self, handle: object, compute: Callable[[], T]) -> T:
        """The answer for ``handle``; ``compute`` runs (outside the lock) where none is kept."""
        with self._lock:
            known = self._answers.get(id(handle))
        if known is not None and known[0] is handle:
            return known[1]
        answer = compute()
        with self._lock:
            self._answers.pop(id(handle), None)
            while len(self._answers) >= self._kept:
                del self._answers[next(iter(self._answers))]
            self._answers[id(handle)] = (handle, answer)
        return answer
