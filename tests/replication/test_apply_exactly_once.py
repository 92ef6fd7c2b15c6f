"""A replica applies each committed source event exactly once, crash-safe, on the in-memory catalog (fast and
exhaustive; the same on real Spark, with data and real kills, is in test_replica_spark.py).

The applier is crashed at every point one whole apply passes (its own and those of every replica statement): after
recovery the replica's position (read from its own binlog) moved by 0 or 1 from where the applier stood, and the
replica's catalog is exactly the catalog after that many source events; going on from there reaches the source's
final catalog with every source event applied once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ddl_log import ApplyFailedError, AtomicDDL, FollowsAnotherSourceError, SourceMissingError
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.replication.origin import mark_of
from storage import crashpoints
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.crashpoints import SimulatedCrash
from tests import crashkit
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog

ROOT = Path(__file__).resolve().parents[2]
SOURCE_SCRIPT = [
    lambda d: d.create_table("c", like="a"),
    lambda d: d.rename_tables([("a", "x"), ("b", "a")]),
    lambda d: d.alter_table("x", SetProperties({"team": "blue"})),
    lambda d: d.create_view("v2", as_select="SELECT 2"),
    lambda d: d.truncate_table("x"),
    lambda d: d.create_database("d3"),
    lambda d: d.create_function("f2", class_name="com.example.F2"),
    lambda d: d.drop_database("d2", cascade=True),
]


class Replica:
    """A replica home over its own catalog, which starts as the source's did (a bootstrap's copy)."""

    def __init__(self, home: str, source: str) -> None:
        self.home, self.source = home, source
        self.catalog = populated_catalog()

    def open(self) -> AtomicDDL:
        return AtomicDDL(home=self.home, catalog=self.catalog, compact_bytes=0)

    def apply(self, ddl: AtomicDDL) -> Any:
        return ddl.replica_of(self.source).apply_available()

    def position(self) -> int:
        ddl = self.open()
        try:
            return ddl.replica_of(self.source).position
        finally:
            ddl.close()


def source_home(tmp_path) -> tuple[str, Catalog]:
    """A source whose binlog holds the script, a DROP that recovery finished (a generated event) and no trace of
    a statement that crashed before its commit."""
    home = str(tmp_path / "source")
    catalog = populated_catalog()

    def open_source() -> AtomicDDL:
        return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

    ddl = open_source()
    for statement in SOURCE_SCRIPT:
        statement(ddl)
    ddl.close()
    assert crashkit.crash_at(open_source, lambda d: d.create_table("never", like="a"), "commit.before_binlog", 1)
    assert crashkit.crash_at(open_source, lambda d: d.drop_tables(["c"]), "forward.drop_table.after_drop", 1)
    ddl = open_source()  # recovery undoes the CREATE, finishes the DROP and binlogs it as generated
    events = ddl.binlog_events()
    ddl.close()
    assert len(events) == len(SOURCE_SCRIPT) + 1 and events[-1].generated_by_recovery
    assert not any("never" in event.statement for event in events)
    return home, catalog


def expected_states(tmp_path, source: str) -> list[Any]:
    """The replica's catalog after 0, 1, ... n source events, applied one at a time without crashes."""
    replica = Replica(str(tmp_path / "expected"), source)
    ddl = replica.open()
    applier = ddl.replica_of(source)
    states = [catalog_state(replica.catalog)]
    for event in list(applier.source.events_after(0)):
        applier.apply(event)
        states.append(catalog_state(replica.catalog))
    ddl.close()
    return states


def applied_seqs(ddl: AtomicDDL) -> list[int]:
    marks = [mark_of(event.statement) for event in ddl.binlog_events()]
    return [mark.seq for mark in marks if mark is not None]


def test_a_replica_applies_every_source_event_once_and_ends_equal_to_the_source(tmp_path):
    source, source_catalog = source_home(tmp_path)
    replica = Replica(str(tmp_path / "replica"), source)
    ddl = replica.open()
    report = replica.apply(ddl)
    assert report.applied == len(SOURCE_SCRIPT) + 1 and report.position == report.applied
    assert replica.apply(ddl).applied == 0  # nothing twice
    assert applied_seqs(ddl) == list(range(1, report.applied + 1))
    ddl.close()
    assert catalog_state(replica.catalog) == catalog_state(source_catalog)
    assert replica.position() == report.applied  # the position is the replica's binlog's, read again


def test_a_crash_of_the_applier_anywhere_moves_the_position_by_0_or_1_and_the_catalog_agrees(tmp_path):
    source, source_catalog = source_home(tmp_path)
    states = expected_states(tmp_path, source)
    final = len(states) - 1
    traced = Replica(str(tmp_path / "trace"), source)
    points = crashkit.trace(traced.open, traced.apply)
    assert {"replica.apply.before", "replica.apply.after", "commit.before_binlog"} <= {p for p, _ in points}
    for index, (point, nth) in enumerate(points):
        replica = Replica(str(tmp_path / f"r{index}"), source)
        ddl = replica.open()
        applier = ddl.replica_of(source)
        crashpoints.arm(point, nth)
        try:
            with pytest.raises(SimulatedCrash):
                applier.apply_available()
        finally:
            crashpoints.disarm_all()
            ddl.abandon()
        stood = applier.position
        ddl = replica.open()  # recovery
        assert ddl.active_chains() == [] and ddl.abandoned_chains() == [], (point, nth)
        position = ddl.replica_of(source).position
        assert position in (stood, stood + 1), (point, nth, stood, position)
        assert catalog_state(replica.catalog) == states[position], (point, nth, position)
        assert replica.apply(ddl).position == final
        assert applied_seqs(ddl) == list(range(1, final + 1)), (point, nth)
        ddl.close()
        assert catalog_state(replica.catalog) == catalog_state(source_catalog), (point, nth)


def test_a_replica_home_follows_one_source_and_a_missing_source_is_named(tmp_path):
    source, _ = source_home(tmp_path)
    other = AtomicDDL(home=str(tmp_path / "other"), catalog=populated_catalog())
    other.create_database("d4")
    other.close()
    replica = Replica(str(tmp_path / "replica"), source)
    ddl = replica.open()
    replica.apply(ddl)
    with pytest.raises(FollowsAnotherSourceError, match="follows"):
        ddl.replica_of(str(tmp_path / "other"))
    with pytest.raises(SourceMissingError, match="no binlog"):
        ddl.replica_of(str(tmp_path / "nowhere"))
    ddl.close()


def ddl_log_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_HOME", None)
    return subprocess.run([sys.executable, "-m", "ddl_log", *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def test_replica_status_says_where_the_replica_is_without_spark_and_binlog_sql_prints_a_range(tmp_path):
    source, _ = source_home(tmp_path)
    replica = Replica(str(tmp_path / "replica"), source)
    ddl = replica.open()
    applier = ddl.replica_of(source)
    applier.apply_available(until=3)
    ddl.close()
    done = ddl_log_cli("--home", replica.home, "replica", "status", "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert (status["applied"], status["source_head"], status["events_behind"]) == (3, len(SOURCE_SCRIPT) + 1,
                                                                                     len(SOURCE_SCRIPT) - 2)
    assert status["last_error"] is None and status["seconds_behind"] > 0
    script = ddl_log_cli("--home", source, "binlog", "--sql", "--since", "1", "--until", "3")
    assert script.returncode == 0, script.stderr
    assert [line.split()[1] for line in script.stdout.splitlines() if line.startswith("-- #")] == ["#2", "#3"]


def test_a_replica_stops_at_an_event_its_catalog_refuses_names_it_and_applies_nothing_of_it(tmp_path):
    source, _ = source_home(tmp_path)
    replica = Replica(str(tmp_path / "replica"), source)
    # changed by hand under the applier: the source's RENAME fails
    del replica.catalog.backend.tables[TableName.of("b")]
    ddl = replica.open()
    with pytest.raises(ApplyFailedError, match="source event 2") as failure:
        replica.apply(ddl)
    assert failure.value.seq == 2 and ddl.replica_of(source).position == 1
    ddl.close()
    status = json.loads(ddl_log_cli("--home", replica.home, "replica", "status", "--json").stdout)
    assert status["applied"] == 1 and "source event 2" in status["last_error"]


def ended(pid: int) -> bool:
    """The process is gone, or a zombie nobody has reaped yet (its parent, the `replica start` command, exited and
    the container's init reaps late): it runs nothing either way."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rpartition(")")[2].split()[0] == "Z"


def test_replica_start_runs_the_applier_in_the_background_and_stop_ends_it_between_events(tmp_path):
    source = str(tmp_path / "source")
    AtomicDDL(home=source, catalog=memory_catalog()).close()  # a home with an empty binlog: nothing starts Spark
    replica = str(tmp_path / "replica")
    started = ddl_log_cli("--home", replica, "replica", "start", "--source", source, "--poll", "0.1")
    assert started.returncode == 0 and "applier started" in started.stdout, started.stderr
    status = json.loads(ddl_log_cli("--home", replica, "replica", "status", "--json").stdout)
    pid = status["pid"]
    assert pid is not None and status["applied"] == 0
    assert ddl_log_cli("--home", replica, "replica", "start", "--source", source).returncode == 1  # one applier
    stopped = ddl_log_cli("--home", replica, "replica", "stop")
    assert stopped.returncode == 0 and stopped.stdout.strip() == "stopped"
    assert ended(pid)
    assert json.loads(ddl_log_cli("--home", replica, "replica", "status", "--json").stdout)["pid"] is None
