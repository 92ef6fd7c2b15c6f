"""A database home's catalog binlog as the source: every driver's events, in the catalog's commit order, applied
once; the position survives a crash of the applier; the source's password is never in the replica's state or
status."""

from __future__ import annotations

import json

import pytest

from ddl_log import AtomicDDL
from storage import crashpoints
from storage.crashpoints import SimulatedCrash
from tests.replication.test_apply_exactly_once import Replica, applied_seqs, ddl_log_cli
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog


def test_a_replica_of_a_database_home_applies_every_drivers_events_in_commit_order(postgres_url, tmp_path):
    shared = populated_catalog()  # the drivers' one catalog (a metastore service in production)
    first = AtomicDDL(home=f"{postgres_url}?home=etl-1", catalog=shared)
    second = AtomicDDL(home=f"{postgres_url}?home=etl-2", catalog=shared)
    first.create_table("c", like="a")
    second.rename_tables([("b", "b2")])
    first.create_view("v2", as_select="SELECT 2")
    second.drop_database("d2", cascade=True)
    first.close()
    second.close()
    source = f"{postgres_url}?home=etl-1".replace("postgres@", "postgres:s3cret@", 1)  # trust auth: any password
    assert "s3cret" in source
    replica = Replica(str(tmp_path / "replica"), source)
    ddl = replica.open()
    crashpoints.arm("replica.apply.after", 2)
    try:
        with pytest.raises(SimulatedCrash):
            replica.apply(ddl)
    finally:
        crashpoints.disarm_all()
        ddl.abandon()
    ddl = replica.open()
    assert ddl.replica_of(source).position == 2  # the second apply committed before the crash
    assert replica.apply(ddl).applied == 2
    assert applied_seqs(ddl) == [1, 2, 3, 4]
    ddl.close()
    assert catalog_state(replica.catalog) == catalog_state(shared)
    status = ddl_log_cli("--home", replica.home, "replica", "status", "--source", source, "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["events_behind"] == 0 and "s3cret" not in status.stdout
    with open(tmp_path / "replica" / "replication" / "state.json", encoding="utf-8") as handle:
        state = handle.read()
    assert "pg:127.0.0.1" in state and "s3cret" not in state
