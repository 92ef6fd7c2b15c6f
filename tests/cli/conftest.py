"""Helpers for the ``ddl-log`` command tests: run the real console script in a subprocess with a private home."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent / "ddl-log"


def command() -> list[str]:
    """The installed console script when there is one (what users run), else ``python -m ddl_log``."""
    return [str(BIN)] if BIN.exists() else [sys.executable, "-m", "ddl_log"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DDL_LOG_HOME", "DDL_LOG_CRASH_AT")}
    env.update(extra)
    return env


Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def cli(home: Path, tmp_path: Path) -> Runner:
    """``cli("status", "--json")`` runs ``ddl-log --home <tmp home> status --json`` and returns the finished
    process (text stdout/stderr)."""

    def run(
        *args: str,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 600,
        with_home: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        argv = [*command(), *(["--home", str(home)] if with_home else []), *args]
        return subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env if env is not None else clean_env(),
            timeout=timeout,
            check=False,
        )

    return run


def needs_java() -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: Spark tests need one")
