"""``dbt run`` SIGKILLed (with its JVM) at random moments, one of them timed from the moment the adapter sends the
model's CREATE OR REPLACE: after each kill the next run's recovery leaves the model's table the old version or the new
one, whole (never missing, never partial), no work table and no stray directory, no chain to do; and that run
succeeds. Each run is a process of its own (:mod:`tests.dbt.driver`): the embedded metastore admits one JVM."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from storage.catalogs.spark.session import embedded_settings
from tests.dbt.conftest import FULL
from tests.dbt.driver import MODEL, SCHEMA

ROWS = 100_000
ROOT = Path(__file__).resolve().parents[2]


def write_project(tmp: Path) -> tuple[Path, Path, Path]:
    project, profiles, home = tmp / "project", tmp / "profiles", tmp / "home"
    (project / "models").mkdir(parents=True)
    profiles.mkdir()
    (project / "dbt_project.yml").write_text(yaml.safe_dump(
        {"name": "kills", "version": "1.0", "config-version": 2, "profile": "kills"}))
    (project / "models" / f"{MODEL}.sql").write_text(
        "{{ config(materialized='table') }}\n"
        f"select id, {{{{ var('version') }}}} as version, repeat('x', 50) as pad from range({ROWS})")
    target = {"type": "spark_ddl_log", "method": "session", "host": "localhost", "schema": SCHEMA, "threads": 1,
              "ddl_log_home": str(home / "ddl"), "grace_seconds": 0,
              "server_side_parameters": embedded_settings(home / "spark")}
    (profiles / "profiles.yml").write_text(yaml.safe_dump({"kills": {"target": "dev", "outputs": {"dev": target}}}))
    return project, profiles, home


def start(project: Path, profiles: Path, home: Path, version: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tests.dbt.driver", str(project), str(profiles), str(home),
                             str(version)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)


def reports(process: subprocess.Popen[str], *, kill_after: float | None = None,
            kill_after_statement: float | None = None) -> list[dict[str, Any]]:
    """The driver's JSON reports; with ``kill_after`` the process group is SIGKILLed that many seconds after
    recovery, with ``kill_after_statement`` that long after dbt logs the model's CREATE OR REPLACE."""
    assert process.stdout is not None
    found: list[dict[str, Any]] = []
    deadline: float | None = None
    for line in process.stdout:
        if line.startswith('{"phase"'):
            found.append(json.loads(line))
            if kill_after is not None and found[-1]["phase"] == "recovered":
                deadline = time.monotonic() + kill_after
        elif kill_after_statement is not None and deadline is None and "create" in line and \
                "spark_ddl_log: any kind" in line and f"{SCHEMA}.{MODEL}" in line:
            deadline = time.monotonic() + kill_after_statement
        if deadline is not None:
            time.sleep(max(0.0, deadline - time.monotonic()))
            os.killpg(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=600)
    return found


def check_recovered(report: dict[str, Any], versions: set[int]) -> None:
    assert report["phase"] == "recovered"
    assert report["table"] is not None, "the model's table is missing"
    assert report["table"]["rows"] == ROWS and len(report["table"]["versions"]) == 1, report["table"]
    assert set(report["table"]["versions"]) <= versions, report["table"]
    assert report["relations"] == [MODEL], report["relations"]
    assert report["stray"] == [] and report["active_chains"] == 0 and report["abandoned_chains"] == 0, report


def test_a_killed_dbt_run_leaves_the_old_or_the_new_table_and_the_next_run_succeeds(tmp_path: Path) -> None:
    rng = random.Random(os.environ.get("DBT_KILL_SEED", "27"))
    project, profiles, home = write_project(tmp_path)
    first = reports(start(project, profiles, home, 1))
    assert first[-1]["phase"] == "ran" and first[-1]["success"], first
    kills: list[dict[str, float]] = [{"kill_after_statement": rng.uniform(0.0, 2.0)}]
    if FULL:  # make test-dbt: more kills, at random moments of the whole run too
        kills += [{"kill_after": rng.uniform(1.0, 12.0)}, {"kill_after_statement": rng.uniform(0.0, 3.0)},
                  {"kill_after": rng.uniform(1.0, 12.0)}]
    committed = {1}
    for version, kill in enumerate(kills, start=2):
        killed = reports(start(project, profiles, home, version), **kill)
        check_recovered(killed[0], committed)
        committed.add(version)  # the killed run may have committed
    last = reports(start(project, profiles, home, 9))
    check_recovered(last[0], committed)
    assert last[-1]["phase"] == "ran" and last[-1]["success"], last
    assert last[-1]["table"] == {"rows": ROWS, "versions": [9]}
    assert last[-1]["stray"] == [] and last[-1]["active_chains"] == 0
