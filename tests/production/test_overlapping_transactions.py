"""Two drivers (processes, each its own JVM and database home) on the shared metastore service run transactions that
replace the same two tables in opposite orders, at once: the locks of a transaction are held to its end, so each
transaction commits whole or gives up on the other's lock and is rolled back whole; never a hang, never a mix.

Where they meet, each holding its first table, PostgreSQL's deadlock check ends one wait after about a second: that
transaction gets MetadataLockTimeoutError and rolls back, the other goes on. (Its first run in CI found that wait
ending with an untyped StorageError: storage/records/pg_locks.py now types it.) So every meeting still commits one
of the two, whatever the machine's load."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.postgres import PostgresServer
from tests.production.drivers import OVERLAPPING_TRANSACTIONS, READY_LIMIT, binlog_in_commit_order, start_two
from tests.servers.postgres import advisory_locks_left

pytestmark = [pytest.mark.servers, pytest.mark.xdist_group("production_service")]
LOCK_WAIT = 60.0
"""Seconds a driver waits for a lock the other holds without a cycle: longer than a transaction on a busy machine."""


def test_two_drivers_with_overlapping_transactions_commit_each_whole_or_roll_it_back_whole(
        service: MetastoreService, postgres_server: PostgresServer, drivers: list[Any], tmp_path: Path) -> None:
    two = start_two(drivers, service, postgres_server, tmp_path, OVERLAPPING_TRANSACTIONS, "txn",
                    ("one", ("t1,t2", LOCK_WAIT)), ("two", ("t2,t1", LOCK_WAIT)))
    db, names, homes, barrier, read = two.db, two.names, two.homes, two.barrier, two.read
    barrier.touch()
    outcomes = [driver.expect("outcome", READY_LIMIT) for driver in drivers]
    read.touch()
    final = drivers[0].expect("final", 120)
    for driver in drivers:
        assert driver.process.wait(timeout=120) == 0, "".join(driver.stderr)[-3000:]
    print(f"\n[measured] overlapping transactions: {json.dumps(outcomes)}")

    assert all(outcome["errors"] == [] for outcome in outcomes), outcomes
    committed = [value for outcome in outcomes for value in outcome["committed"]]
    assert len(committed) >= 3, f"a transaction rolled back only where the other's committed: {outcomes}"
    groups: dict[int, list[str]] = defaultdict(list)
    for _, event in binlog_in_commit_order(homes):
        if f"`{db}`." in event.statement:
            assert event.txn is not None, f"a statement of a transaction binlogged alone: {event.statement}"
            groups[event.xid].append(event.statement)
    values = [next(value for value in committed if f"'{value}'" in statements[0]) for statements in groups.values()]
    assert sorted(values) == sorted(committed), "exactly the committed transactions are in the binlog"
    for statements, value in zip(groups.values(), values, strict=True):
        assert len(statements) == 2 and all(f"'{value}'" in statement for statement in statements), statements
    assert final["rows"] == {"t1": [values[-1]], "t2": [values[-1]]}, "both tables from the last committed one"
    assert final["reserved"] == [] and final["chains"] == 0
    url = homes[0].split("?", 1)[0]
    assert all(advisory_locks_left(url, f"ddl-log:{name}") == 0 for name in names), "nothing held by ended drivers"
