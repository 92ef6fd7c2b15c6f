"""The object-store group runs in a test process of its own, whose one Spark session has its warehouse on the
simulated store (``DDL_LOG_TEST_OBJECT_STORE`` set: tests/conftest.py's ``spark`` fixture makes it). Elsewhere only
the launcher (test_group.py) is collected: it runs the group's short form in such a process, one Spark start for
all of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.object_store.store import run_mode

LAUNCHER = "test_group.py"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The launcher outside the object-store process, every other test module inside it."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    return True if (collection_path.name == LAUNCHER) == (run_mode() is not None) else None
