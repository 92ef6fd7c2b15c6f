"""The driver killed during its data job, its database home taken over by another driver, with a task that writes
after the takeover undid the statement (issue 30): ``python -m tests.cluster.takeover_driver ROLE DATABASE URI
WAREHOUSE WORKDIR``, both roles on the standalone cluster (``DDL_LOG_SPARK_MASTER``) and on the metastore service
at ``URI``, their homes in the PostgreSQL ``DATABASE`` (:data:`VICTIM`, :data:`TAKER`), leases of :data:`LEASE` s.

``victim``: makes ``t`` (:data:`~tests.cluster.orphan_driver.OLD_ROWS` rows ``'old'``), prints its application,
then runs :data:`~tests.cluster.orphan_driver.STATEMENT` (orphan window :data:`ORPHAN_SECONDS`), whose tasks hold
until released, the first of them starting the late writer (:mod:`tests.cluster.late_writer`); the test SIGKILLs it
there.

``taker``: opens its own home (its periodic takeover every :data:`INTERVAL` s) and prints ``{"watching": ...}``;
once its takeover recovered the dead home it prints that report with the sweep the undo logged in the dead home's
log (location, due time), the tables and directories. Then it waits for ``WORKDIR/go`` (the test lets the late
writer write meanwhile) and for its periodic takeover to run the sweep once due, checks the end state and prints it:
tables, directories, stray files, late rows, what is left in either home's log, what one more takeover round and a
restart of the dead home with its id find.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from actions.deletions import deletion_of
from chains.entries import ActionType
from ddl_log import AtomicDDL
from ddl_log.cluster.takeover import Takeover, TakeoverReport
from storage.catalogs.names import RESERVED_PREFIX
from storage.catalogs.spark.profile import local_path
from tests.cluster.executor_kill import stray_files
from tests.cluster.orphan_driver import GO, OLD_ROWS, STATEMENT
from tests.cluster.tasks import register_hold
from tests.production.takeover_worker import describe
from tests.spark.sweep_support import table_dirs, user_tables, warehouse_dirs

VICTIM = "victim"
TAKER = "taker"
LEASE = 3.0
INTERVAL = 1.0
ORPHAN_SECONDS = 20.0
"""The orphan window the killed driver records: long enough for the takeover to be reported and the late write to
land before the sweep is due, on a loaded 2-core machine."""
WAIT_LIMIT = 300.0


def emit(**fields: Any) -> None:
    print(json.dumps(fields, default=str), flush=True)


def home_url(database: str, home: str) -> str:
    return f"{database}?home={home}"


def open_home(database: str, home: str, uri: str, warehouse: str, **settings: Any) -> AtomicDDL:
    return AtomicDDL(home=home_url(database, home), metastore_uri=uri, warehouse=warehouse, grace_seconds=0,
                     lease_seconds=LEASE, takeover_interval=INTERVAL, **settings)


def default_dir(spark: Any) -> Path:
    """The default database's directory (the tables' and the work table's parent)."""
    rows = spark.sql("DESCRIBE DATABASE default").collect()
    path = local_path(next(str(row["info_value"]) for row in rows if row["info_name"] == "Location"))
    assert path is not None, "the test warehouse is local"
    return path


def victim(database: str, uri: str, warehouse: str, workdir: Path) -> None:
    ddl = open_home(database, VICTIM, uri, warehouse, orphan_seconds=ORPHAN_SECONDS)
    spark = ddl.spark
    spark.sql(f"CREATE TABLE t USING parquet AS SELECT id, 'old' AS v FROM range({OLD_ROWS})")
    register_hold(spark, workdir / "markers", until_release=240.0, late_writes=default_dir(spark))
    emit(application=spark.sparkContext.applicationId, orphan=str(workdir))
    ddl.sql(STATEMENT)
    raise AssertionError("the statement finished: it was to be killed while its tasks held")


def scheduled(database: str, home: str) -> dict[str, Any]:
    """What ``home``'s log holds, read as a taker reads it (without its lock): its active chains, and the sweeps
    among them (location, due time)."""
    from chains.log import LOG_FILE, LOG_MAGIC
    from chains.log_state import replay_records
    from storage.records.pg_home import LOG_SPACE
    from storage.records.pg_store import PgRecordStore

    store = PgRecordStore(database, home, LOG_SPACE)
    try:
        records = store.read(LOG_FILE, LOG_MAGIC)[0] if LOG_FILE in store.names() else []
    finally:
        store.close()
    state, _ = replay_records(records)
    active = [position for position, chain in state.chains.items() if chain.active]
    sweeps = []
    for position in active:
        actions = state.chain_actions(position)
        found = deletion_of(actions)
        if found is not None and any(action.type is ActionType.SWEEP_TABLE for action in actions):
            sweeps.append({"location": found[1].location, "due": found[1].due})
    return {"active": len(active), "sweeps": sweeps}


def next_recovery(takeover: Takeover, outcome: str, after: TakeoverReport | None, limit: float) -> TakeoverReport:
    """The first takeover round after ``after`` in which the dead home's recovery had a chain with ``outcome``."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        last = takeover.last
        if last is not None and last is not after and any(
                item.home == VICTIM and item.recovery is not None and
                any(o.outcome == outcome for o in item.recovery.outcomes) for item in last.recovered):
            return last
        time.sleep(0.02)
    raise AssertionError(f"no takeover of {VICTIM} with a chain {outcome} within {limit:.0f} s")


def taker(database: str, uri: str, warehouse: str, workdir: Path) -> None:
    ddl = open_home(database, TAKER, uri, warehouse)
    spark = ddl.spark
    del os.environ["DDL_LOG_SPARK_MASTER"]  # the homes opened below are given the session; a master contradicts it
    directory = default_dir(spark)
    _ = spark.sql("SHOW TABLES").collect()  # the session is up before the victim dies (no executor needed)
    takeover = ddl.takeover
    assert takeover is not None, "a database home takes over"
    emit(watching=time.time())
    undone = next_recovery(takeover, "undone", None, WAIT_LIMIT)
    emit(recovered_at=time.time(), takeover=describe(undone), **scheduled(database, VICTIM),
         dirs=sorted(warehouse_dirs(directory)), tables=sorted(user_tables(spark)))
    while not (workdir / GO).exists():
        time.sleep(0.05)
    swept = next_recovery(takeover, "finished", undone, WAIT_LIMIT)
    swept_at = time.time()
    ddl.close()  # no takeover round from here on: the checks below see what the sweep left
    tables = user_tables(spark)
    late_rows = {name: spark.sql(f"SELECT count(*) AS n FROM `{name}` WHERE v = 'late'").collect()[0].n
                 for name in tables}
    row = spark.sql("SELECT count(*) AS n, count(DISTINCT id) AS d, min(v) AS lo, max(v) AS hi FROM t").collect()[0]
    found: dict[str, Any] = {
        "swept_at": swept_at, "takeover": describe(swept),
        "tables": sorted(tables), "work_tables": sorted(n for n in tables if n.startswith(RESERVED_PREFIX)),
        "dirs": sorted(warehouse_dirs(directory)), "table_dirs": sorted(table_dirs(spark, tables)),
        "stray": stray_files(directory), "late_rows": late_rows, "t": [row.n, row.d, row.lo, row.hi],
        "victim_log": scheduled(database, VICTIM), "taker_log": scheduled(database, TAKER)}
    again = AtomicDDL(spark=spark, home=home_url(database, TAKER), grace_seconds=0, lease_seconds=LEASE,
                      takeover_interval=3600.0)
    found["second_takeover"] = describe(again.take_over_dead())
    found["taker_nothing_to_do"] = again.last_recovery.nothing_to_do
    found["taker_pending"] = len(again.pending_deletions()) + len(again.active_chains())
    again.close()
    restarted = AtomicDDL(spark=spark, home=home_url(database, VICTIM), grace_seconds=0, lease_seconds=LEASE,
                          takeover_interval=3600.0)
    found["victim_restart"] = {"nothing_to_do": restarted.last_recovery.nothing_to_do,
                               "note": restarted.last_recovery.note,
                               "pending": len(restarted.pending_deletions()),
                               "active": len(restarted.active_chains()),
                               "binlog": [event.statement for event in restarted.binlog_events()]}
    restarted.close()
    emit(**found)
    spark.stop()


if __name__ == "__main__":
    os.environ.pop("DDL_LOG_CRASH_AT", None)
    role, arguments = sys.argv[1], sys.argv[2:6]
    {"victim": victim, "taker": taker}[role](*arguments[:3], Path(arguments[3]))
