"""Fixtures of attached sessions: a session of the shared test Spark with the extension turned on, attached to a
home of the test's own (the engine closed, and the catalog cleaned, after the test)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from ddl_log.frontends.extension import ENABLED, AttachedEngine, attach


@attrs.frozen
class Attached:
    """An attached session and its engine."""

    session: Any
    ddl: AttachedEngine


def attached_session(spark: Any) -> Any:
    """A new session of the shared Spark with the extension turned on (the shared session keeps it off)."""
    session = spark.newSession()
    session.conf.set(ENABLED, "true")
    return session


@pytest.fixture
def open_attached(clean_spark: Any, tmp_path: Path) -> Iterator[Callable[..., Attached]]:
    """Attach a new session to ``tmp_path/<label>`` (keywords: the engine's settings); every engine opened is
    closed afterwards."""
    opened: list[AttachedEngine] = []

    def opener(label: str = "home", **settings: Any) -> Attached:
        session = attached_session(clean_spark)
        settings.setdefault("grace_seconds", 0)
        ddl = attach(session, home=tmp_path / label, **settings)
        opened.append(ddl)
        return Attached(session, ddl)

    yield opener
    for ddl in opened:
        ddl.close()


@pytest.fixture
def attached(open_attached: Callable[..., Attached]) -> Attached:
    return open_attached()
