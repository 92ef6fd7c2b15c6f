"""How long ``ddl-log status`` and a no-op ``ddl-log recover`` take from process start (the target: under a
second, no JVM), beside a bare ``python -c pass`` measured in the same run. The tests only check that no JVM and
no pyspark are involved (tests/cli/test_cli.py); the time is measured here, where a busy machine cannot fail it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import clean_env, command

ROOT = Path(__file__).resolve().parents[1]


def run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, env=clean_env(), cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("what", ["python -c pass", "ddl-log status", "ddl-log recover"])
def test_cli_startup(benchmark, tmp_path, what):
    benchmark.group = "cli startup (target: under 1 s, no JVM)"
    home = str(tmp_path / "home")
    argv = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "ddl-log status": [*command(), "--home", home, "status"],
        "ddl-log recover": [*command(), "--home", home, "recover"],
    }[what]
    benchmark.pedantic(run, args=(argv,), rounds=5, warmup_rounds=1)
