"""A driver process on the shared metastore service: ``python -m tests.production.worker HOME URI WAREHOUSE STEP...``.

Steps (run in order, in one process and so one JVM):

``sweep``          CREATE OR REPLACE TABLE ... AS SELECT crashed in-process at every catalog-level crash point of
                   its trace; after each crash the home is opened again (recovery) and inspected; one JSON report.
``inspect``        open the home (recovery of what a kill or a dead service interrupted), print what is there, open
                   it again (that recovery must have nothing to do).
``run POINT``      make the old table afresh outside the log, then run the statement with ``DDL_LOG_CRASH_AT=POINT``:
                   the process dies there by SIGKILL, JVM included.
``pause POINT GO`` make the old table, run the statement; at POINT print ``{"paused": POINT}`` and wait until the
                   file GO exists (the test kills the service meanwhile), then go on; print how the statement ended.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from storage import crashpoints
from storage.catalogs.names import RESERVED_PREFIX
from storage.crashpoints import SimulatedCrash
from storage.errors import DDLLogError
from tests.spark.sweep_support import catalog_points, table_dirs, table_state, user_tables, warehouse_dirs

DB = "prod"
TABLE = f"{DB}.t"
OLD = (f"CREATE TABLE {TABLE} USING parquet AS SELECT CAST(id AS INT) AS a, concat('x', id % 3) AS b "
       "FROM range(50)")
NEW = "SELECT id AS n, 'new' AS w FROM range(30)"
GRACE = 0.0
"""The old files are due at once: crashes reach their deletion too."""
PAUSE_LIMIT = 120.0


class Driver:
    """One home on the service; reopened (recovery) after every crash, always on the process's one Spark session."""

    def __init__(self, home: str, uri: str, warehouse: str) -> None:
        self.home, self.uri, self.warehouse = home, uri, warehouse
        self.ddl = self.open()
        self.events_seen = 0

    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.home, metastore_uri=self.uri, warehouse=self.warehouse, grace_seconds=GRACE)

    @property
    def spark(self) -> Any:
        return self.ddl.spark

    def fresh_old_table(self) -> Any:
        """The old table, made outside the log (its own database keeps other tests' tables out of the checks)."""
        self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {DB}")
        self.spark.sql(f"DROP TABLE IF EXISTS {TABLE} PURGE")
        self.spark.sql(OLD)
        return table_state(self.spark, TABLE)

    def statement(self, ddl: AtomicDDL) -> Any:
        return ddl.create_or_replace_table(TABLE, as_select=NEW)

    def inspect(self) -> dict[str, Any]:
        """What the last open's recovery left; the home is then opened again, whose recovery must do nothing."""
        ddl = self.ddl
        events = ddl.binlog_events()
        tables = sorted(user_tables(self.spark, DB))
        location = self.spark.sql(f"DESCRIBE DATABASE {DB}").collect()
        db_dir = next(str(r["info_value"]) for r in location if r["info_name"] == "Location")
        report = {
            "recovery": [o.outcome for o in ddl.last_recovery.outcomes],
            "active": len(ddl.active_chains()),
            "abandoned": len(ddl.abandoned_chains()),
            "new_events": [e.statement for e in events[self.events_seen:]],
            "events": len(events),
            "table": table_state(self.spark, TABLE),
            "tables": tables,
            "reserved": reserved_tables(self.spark),
            "dirs": sorted(warehouse_dirs(Path(db_dir.removeprefix("file:")))),
            "table_dirs": sorted(table_dirs(self.spark, set(tables), DB)),
        }
        self.events_seen = len(events)
        ddl.close()
        self.ddl = self.open()
        report["second_recovery_nothing_to_do"] = self.ddl.last_recovery.nothing_to_do
        return report


def reserved_tables(spark: Any) -> list[str]:
    """Every table of every database whose name has the reserved prefix (a TMP or a holder left behind)."""
    found = []
    for row in spark.sql("SHOW DATABASES").collect():
        found += [f"{row[0]}.{t}" for t in user_tables(spark, row[0]) if t.startswith(RESERVED_PREFIX)]
    return found


ALSO_SWEPT = ("replace.exchange.after", "commit.before_binlog")
"""Beside the instants around each catalog call: swapped and not committed, and committed but not binlogged."""


def sweep_points(trace: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The instants around each catalog call and the commit (tests/spark/sweep_support.py), and :data:`ALSO_SWEPT`;
    every log-level point is swept on the in-memory catalog already."""
    chosen = set(catalog_points(trace))
    return [(name, nth) for name, nth in trace if (name, nth) in chosen or name in ALSO_SWEPT]


def sweep(driver: Driver) -> dict[str, Any]:
    began = time.monotonic()
    old = driver.fresh_old_table()
    with crashpoints.recording() as passed:
        driver.statement(driver.ddl)
    new = table_state(driver.spark, TABLE)
    driver.events_seen = len(driver.ddl.binlog_events())
    cases = []
    for point, nth in sweep_points(crashpoints.occurrences(passed)):
        case_began = time.monotonic()
        driver.fresh_old_table()
        crashed = False
        crashpoints.arm(point, nth)
        try:
            driver.statement(driver.ddl)
        except SimulatedCrash:
            crashed = True
        finally:
            crashpoints.disarm_all()
            driver.ddl.abandon()
        driver.ddl = driver.open()
        report = driver.inspect()
        state = "old" if report["table"] == old else "new" if report["table"] == new else "other"
        cases.append({"point": point, "nth": nth, "crashed": crashed, "state": state,
                      "seconds": round(time.monotonic() - case_began, 2),
                      **{k: v for k, v in report.items() if k != "table"}})
    return {"sweep": cases, "old": old, "new": new, "seconds": round(time.monotonic() - began, 1)}


def run(driver: Driver, point: str) -> None:
    print(json.dumps({"old": driver.fresh_old_table(), "events": len(driver.ddl.binlog_events())}), flush=True)

    os.environ[crashpoints.ENV_VAR] = point
    crashpoints.reload_environment()
    driver.statement(driver.ddl)
    print(json.dumps({"not_killed": table_state(driver.spark, TABLE)}), flush=True)


def pause(driver: Driver, point: str, go: Path) -> dict[str, Any]:
    """Run the statement, held at ``point`` until ``go`` exists; how it ended, and how long it took after that."""
    old = driver.fresh_old_table()
    events = len(driver.ddl.binlog_events())
    resumed: list[float] = []
    original: Callable[[str], None] = crashpoints.hit

    def hold(name: str) -> None:
        if name == point and not resumed:
            print(json.dumps({"paused": point, "old": old, "events": events}), flush=True)
            deadline = time.monotonic() + PAUSE_LIMIT
            while not go.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            resumed.append(time.monotonic())
        original(name)

    crashpoints.hit = hold  # type: ignore[assignment]  # CrashPoint.__call__ looks the function up at each call
    outcome: dict[str, Any] = {"old": old, "events": events}
    try:
        driver.statement(driver.ddl)
        outcome["error"] = None
    except BaseException as error:  # noqa: BLE001 - reported to the test, which asserts on it
        outcome["error"] = {"type": type(error).__name__, "typed": isinstance(error, DDLLogError),
                            "message": str(error)[:3000],
                            "cause": type(getattr(error, "cause", None)).__name__,
                            "rollback_error": type(getattr(error, "rollback_error", None)).__name__}
    finally:
        crashpoints.hit = original  # type: ignore[assignment]
    outcome["seconds_to_fail"] = round(time.monotonic() - resumed[0], 2) if resumed else None
    outcome["active"] = len(driver.ddl.active_chains())
    return outcome


def main(home: str, uri: str, warehouse: str, steps: list[str]) -> int:
    driver = Driver(home, uri, warehouse)
    while steps:
        step, steps = steps[0], steps[1:]
        if step == "sweep":
            print(json.dumps(sweep(driver)), flush=True)
        elif step == "inspect":
            print(json.dumps({"inspect": driver.inspect()}), flush=True)
        elif step == "run" and steps:
            run(driver, steps[0])
            steps = steps[1:]
        elif step == "pause" and len(steps) >= 2:
            print(json.dumps({"pause": pause(driver, steps[0], Path(steps[1]))}), flush=True)
            steps = steps[2:]
        else:
            raise SystemExit(f"usage: worker HOME URI WAREHOUSE [sweep|inspect|run POINT|pause POINT GO]..., "
                             f"not {step}")
    driver.ddl.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
