"""Crash proofs on the production shape: drivers in separate processes on a shared Hive metastore service backed by
PostgreSQL, CREATE OR REPLACE TABLE ... AS SELECT (the swap path) crashed in every way we can cause.

Five driver processes share one home (:func:`shared_home`) and run one after the other; each recovers and inspects
what the previous one left, then takes the next crash (one JVM start per process):

1. the in-process sweep (every catalog-level crash point, recovery after each), then SIGKILLed at
   ``replace.exchange.between`` (TMP holds the old definition, ORIG not swapped yet);
2. SIGKILLed at ``commit.after_binlog`` (committed, its chain still open);
3. held at ``replace.exchange.before`` while the test SIGKILLs the metastore service: the statement fails with a
   typed error and leaves its chain; the service is started again (same database, same port);
4. held at ``replace.exchange.between`` while the test SIGKILLs PostgreSQL; it is started again;
5. recovers and inspects.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from ddl_log.ops import postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.postgres import PostgresServer
from tests.production.conftest import (
    json_lines,
    kill_service,
    last_with,
    restart,
    shared_home,
    worker,
    worker_command,
    worker_env,
)

pytestmark = [pytest.mark.servers, pytest.mark.xdist_group("production_service")]
REPLACE = "CREATE OR REPLACE TABLE `prod`.`t`"
FAIL_WITHIN = 30.0
"""Seconds a statement may take to fail once the service or its database died (measured: about 10 s on a busy
2-core machine; Hive's retries would take a minute on a dead database without the service's retry settings)."""


@attrs.frozen
class Step:
    """One driver process: what it printed (JSON lines), how it ended, and the time it took."""

    name: str
    process: subprocess.CompletedProcess[str]
    seconds: float

    def report(self, key: str) -> dict[str, Any] | None:
        return last_with(self.process.stdout, key)

    def lines(self) -> list[dict[str, Any]]:
        return json_lines(self.process.stdout)

    def tail(self) -> str:
        return self.process.stderr[-3000:]


def timed(name: str, run: Any) -> Step:
    began = time.monotonic()
    process = run()
    step = Step(name, process, round(time.monotonic() - began, 1))
    print(f"\n[measured] {name}: {step.seconds} s")
    return step


def paused_run(home: str, service: MetastoreService, point: str, go: Path, kill: Any,
               *before: str) -> subprocess.CompletedProcess[str]:
    """A worker that runs ``before`` steps, then the statement held at ``point``; once it says it is held, ``kill``
    runs, then the statement goes on against the dead component."""
    process = subprocess.Popen(worker_command(home, service, *before, "pause", point, str(go)), env=worker_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               cwd=Path(__file__).resolve().parents[2])
    assert process.stdout is not None
    out: list[str] = []
    try:
        for line in process.stdout:
            out.append(line)
            if line.startswith('{"paused"'):
                kill()
                go.touch()
        stderr = process.stderr.read() if process.stderr is not None else ""
        process.wait(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, "".join(out), stderr)


@pytest.fixture(scope="module")
def steps(service: MetastoreService, postgres_server: PostgresServer,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Step]]:
    scratch = tmp_path_factory.mktemp("production")
    home = shared_home(postgres_server)
    done: dict[str, Step] = {}
    done["sweep"] = timed("sweep + SIGKILL at replace.exchange.between",
                          lambda: worker(home, service, "sweep", "run", "replace.exchange.between"))
    done["killed_between"] = done["sweep"]
    done["killed_after_binlog"] = timed("recovery + SIGKILL at commit.after_binlog",
                                        lambda: worker(home, service, "inspect", "run", "commit.after_binlog"))
    done["service_died"] = timed("recovery + metastore service killed at replace.exchange.before", lambda: paused_run(
        home, service, "replace.exchange.before", scratch / "go-service", lambda: kill_service(service), "inspect"))
    began = time.monotonic()
    restart(service)
    print(f"\n[measured] service restart: {time.monotonic() - began:.1f} s")
    cluster = service.postgres_root
    assert cluster is not None
    server = postgres.status(cluster)
    assert server is not None

    def kill_postgres() -> None:
        postgres.kill(cluster)

    done["postgres_died"] = timed("recovery + PostgreSQL killed at replace.exchange.between", lambda: paused_run(
        home, service, "replace.exchange.between", scratch / "go-postgres", kill_postgres, "inspect"))
    postgres.start(cluster, port=server.port)
    done["final"] = timed("recovery after PostgreSQL came back", lambda: worker(home, service, "inspect"))
    yield done


def inspected_after(steps: dict[str, Step], name: str) -> dict[str, Any]:
    """What the process after ``name`` found once its recovery ran."""
    order = ["killed_between", "killed_after_binlog", "service_died", "postgres_died", "final"]
    following = steps[order[order.index(name) + 1]]
    found = following.report("inspect")
    assert found is not None, following.tail()
    report: dict[str, Any] = found["inspect"]
    return report


def last_line_with(step: Step, key: str) -> dict[str, Any]:
    found = step.report(key)
    assert found is not None, step.tail()
    return found


def assert_clean(report: dict[str, Any]) -> None:
    assert report["active"] == 0 and report["abandoned"] == 0, report
    assert report["second_recovery_nothing_to_do"], report
    assert report["tables"] == ["t"] and report["reserved"] == [], "no TMP or holder table is left"
    assert report["dirs"] == report["table_dirs"], "no orphan directory"


def test_sweep_on_the_service_leaves_the_old_or_the_new_table_whole(steps: dict[str, Step]) -> None:
    step = steps["sweep"]
    report = step.report("sweep")
    assert report is not None, step.tail()
    cases = report["sweep"]
    points = [case["point"] for case in cases]
    assert {"replace.exchange.before", "replace.exchange.between", "replace.exchange.after",
            "commit.before_binlog", "commit.after_binlog"} <= set(points), points
    for case in cases:
        assert case["crashed"], case
        assert_clean(case)
        committed = case["new_events"] != []
        assert case["state"] == ("new" if committed else "old"), case
        assert len(case["new_events"]) <= 1 and all(REPLACE in s for s in case["new_events"]), case
    states = [case["state"] for case in cases]
    assert states == sorted(states, key=lambda s: s == "new") and "old" in states and "new" in states, states
    print(f"\n[measured] sweep of {len(cases)} points on the service: {report['seconds']} s "
          f"({', '.join(str(c['seconds']) for c in cases)})")


@pytest.mark.parametrize(("name", "committed"), [("killed_between", False), ("killed_after_binlog", True)])
def test_sigkill_on_the_service_then_recovery_in_a_new_process(steps: dict[str, Step], name: str,
                                                               committed: bool) -> None:
    step = steps[name]
    assert step.process.returncode == -signal.SIGKILL, step.tail()
    report = inspected_after(steps, name)
    assert_clean(report)
    before = last_line_with(step, "old")
    if committed:
        assert report["events"] == before["events"] + 1 and REPLACE in report["new_events"][-1]
        assert report["table"][1] == 30
    else:
        assert report["events"] == before["events"]
        assert report["table"] == before["old"]


@pytest.mark.parametrize(("name", "component"), [("service_died", "metastore service"),
                                                 ("postgres_died", "PostgreSQL")])
def test_a_dead_component_fails_the_statement_cleanly_and_recovery_puts_everything_back(
        steps: dict[str, Step], name: str, component: str) -> None:
    step = steps[name]
    assert step.process.returncode == 0, step.tail()
    found = step.report("pause")
    assert found is not None, step.tail()
    outcome = found["pause"]
    print(f"\n[measured] {component} killed: the statement failed after {outcome['seconds_to_fail']} s: "
          f"{outcome['error']}")
    error = outcome["error"]
    assert error is not None, f"the statement succeeded although the {component} was dead"
    assert error["typed"] and error["type"] == "StatementFailedError", error
    assert "Traceback" not in error["message"] and "py4j" not in error["message"].lower(), error["message"]
    assert "prod.t" in error["message"], "the error names the table"
    assert error["rollback_error"] == "ActionFailedError", "its rollback could not reach the catalog either"
    assert outcome["active"] == 1, "the chain stays for recovery"
    assert outcome["seconds_to_fail"] < FAIL_WITHIN
    report = inspected_after(steps, name)
    assert_clean(report)
    assert report["recovery"] == ["undone"]
    assert report["table"] == outcome["old"] and report["events"] == outcome["events"]
