"""Two drivers (processes, each its own JVM and home) on the shared metastore service replace the same table at the
same moment: the cross-driver metadata lock makes them run one after the other (or the second fails with
MetadataLockTimeoutError, having written nothing), and the binlog's order is the final table's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.postgres import PostgresServer
from tests.production.drivers import READY_LIMIT, TWO_DRIVERS, Driver, binlog_in_commit_order, start_two
from tests.servers.postgres import advisory_locks_left

pytestmark = [pytest.mark.servers, pytest.mark.xdist_group("production_service")]


def test_two_drivers_replacing_the_same_table_at_once_run_one_after_the_other(
        service: MetastoreService, postgres_server: PostgresServer, drivers: list[Driver], tmp_path: Path) -> None:
    two = start_two(drivers, service, postgres_server, tmp_path, TWO_DRIVERS, "two", ("drv-a", ()), ("drv-b", ()))
    db, names, homes, barrier, read = two.db, two.names, two.homes, two.barrier, two.read
    barrier.touch()
    outcomes = {driver.name: driver.expect("statement", READY_LIMIT) for driver in drivers}
    read.touch()
    final = drivers[0].expect("final", 120)
    for driver in drivers:
        assert driver.process.wait(timeout=120) == 0, "".join(driver.stderr)[-3000:]

    succeeded = [name for name, outcome in outcomes.items() if outcome["error"] is None]
    for outcome in outcomes.values():
        assert outcome["error"] is None or outcome["error"]["type"] == "MetadataLockTimeoutError", outcome
    assert succeeded, outcomes
    events = [(home, event) for home, event in binlog_in_commit_order(homes)
              if f"`{db}`.`t`" in event.statement]
    assert [home.rsplit("=", 1)[1] for home, _ in events] == sorted(
        succeeded, key=lambda name: outcomes[name]["ended"]), "one event per statement that succeeded, in its order"
    last = events[-1][0].rsplit("=", 1)[1]
    assert final["rows"] == [[n, last] for n in range(20)], "the table is the last binlogged statement's"
    assert final["reserved"] == []
    print(f"\n[measured] two drivers at once: {json.dumps(outcomes)}")
    if len(succeeded) == 2:
        first, second = sorted(outcomes.values(), key=lambda outcome: outcome["ended"])
        assert abs(first["began"] - second["began"]) < 5.0, "they started at once"
        assert second["locked_at"][0] >= events[0][1].timestamp, "the second took the table once the first committed"
    url = homes[0].split("?", 1)[0]
    assert all(advisory_locks_left(url, f"ddl-log:{name}") == 0 for name in names), "nothing held by ended drivers"
