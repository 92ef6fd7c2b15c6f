"""A driver for the takeover tests: ``python -m tests.production.takeover_worker HOME URI WAREHOUSE STEP [ARG]``.

Every driver runs with a short lease (:data:`LEASE`) on the shared metastore service (tests/production/worker.py's
statement and old table). Steps:

``stop POINT``     make the old table, run the statement; at POINT print ``{"stopping": ...}`` and SIGSTOP itself
                   (before the point's fence check); once continued, print how the statement ended and what the
                   table is, then reopen the home (a restart with the same id) and print its recovery's note.
``kill POINT``     make the old table, run the statement with ``DDL_LOG_CRASH_AT=POINT`` (SIGKILL there, JVM too).
``takeover``       one takeover round now; print its report and the table.
``watch SECONDS``  take over every second, in the background, until a home is recovered (or SECONDS pass); print
                   when, and the table.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.cluster.takeover import TakeoverReport
from storage import crashpoints
from tests.production.worker import GRACE, TABLE, Driver
from tests.spark.sweep_support import table_state

LEASE = 3.0
INTERVAL = 1.0


class LeasedDriver(Driver):
    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.home, metastore_uri=self.uri, warehouse=self.warehouse, grace_seconds=GRACE,
                         lease_seconds=LEASE, takeover_interval=INTERVAL)


def emit(**fields: Any) -> None:
    print(json.dumps(fields, default=str), flush=True)


def stop(driver: LeasedDriver, point: str) -> None:
    emit(old=driver.fresh_old_table())
    original: Callable[[str], None] = crashpoints.hit
    stopped: list[bool] = []

    def hold(name: str) -> None:
        if name == point and not stopped:
            stopped.append(True)
            emit(stopping=point, at=time.time())
            os.kill(os.getpid(), signal.SIGSTOP)
            emit(continued=time.time())
        original(name)

    crashpoints.hit = hold  # type: ignore[assignment]  # CrashPoint.__call__ looks the function up at each call
    try:
        driver.statement(driver.ddl)
        error = None
    except Exception as exc:  # noqa: BLE001 - reported to the test
        error = type(exc).__name__
    finally:
        crashpoints.hit = original  # type: ignore[assignment]
    emit(error=error, table=table_state(driver.spark, TABLE), active=len(driver.ddl.active_chains()))
    driver.ddl.close()
    driver.ddl = driver.open()
    emit(note=driver.ddl.last_recovery.note, nothing_to_do=driver.ddl.last_recovery.nothing_to_do)


def describe(report: TakeoverReport) -> list[dict[str, Any]]:
    return [{"home": item.home, "outcome": item.outcome, "seconds": dict(item.seconds),
             "recovery": [o.outcome for o in item.recovery.outcomes] if item.recovery is not None else []}
            for item in report.homes]


def watch(driver: LeasedDriver, seconds: float) -> None:
    _ = driver.spark.sql("SELECT 1").collect()  # the session is up before the other driver dies
    emit(watching=time.time())
    deadline = time.monotonic() + seconds
    takeover = driver.ddl.takeover
    assert takeover is not None
    while time.monotonic() < deadline:
        last = takeover.last
        if last is not None and last.recovered:
            emit(recovered_at=time.time(), takeover=describe(last), table=table_state(driver.spark, TABLE))
            return
        time.sleep(0.1)
    emit(recovered_at=None)


def main(home: str, uri: str, warehouse: str, step: str, arg: str | None) -> int:
    driver = LeasedDriver(home, uri, warehouse)
    if step == "stop" and arg:
        stop(driver, arg)
    elif step == "kill" and arg:
        emit(old=driver.fresh_old_table())
        os.environ[crashpoints.ENV_VAR] = arg
        crashpoints.reload_environment()
        driver.statement(driver.ddl)
        emit(not_killed=True)
    elif step == "takeover":
        report = driver.ddl.take_over_dead()
        emit(takeover=describe(report), table=table_state(driver.spark, TABLE))
    elif step == "watch" and arg:
        watch(driver, float(arg))
    else:
        raise SystemExit(f"usage: takeover_worker HOME URI WAREHOUSE stop|kill POINT|takeover|watch SECONDS, "
                         f"not {step}")
    driver.ddl.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:5], sys.argv[5] if len(sys.argv) > 5 else None))
