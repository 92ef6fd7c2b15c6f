"""Regression tests of issue 36, findings 5 and 6, on the in-memory catalog: replaying a home's own ``binlog --sql``
into it (and failback by script) is a no-op for what it has, as MySQL's GTIDs make it, with a property test over
random scripts and targets; a replica's position names its source's event, so a source restored from a backup or
re-created at the same path stops the replica with a typed error (never a silent skip), and ``replica status`` says
so. Each failed on the code before its fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddl_log import AtomicDDL, ReplayedElsewhereError, SourceRewoundError
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.frontends.cli.forensics import script_lines
from ddl_log.replication.origin import origin_for
from tests.replication.test_apply_exactly_once import ddl_log_cli
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog

STATEMENTS = {
    "like": lambda d, n: d.create_table(f"c{n}", like="a"),
    "view": lambda d, n: d.create_view(f"w{n}", as_select=f"SELECT {n} AS n"),
    "props": lambda d, n: d.alter_table("a", SetProperties({"k": str(n)})),
    "insert": lambda d, n: d.sql(f"INSERT INTO b VALUES ({n})"),
    "truncate": lambda d, n: d.truncate_table("a"),
    "database": lambda d, n: d.create_database(f"db{n}"),
    "drop_view": lambda d, n: d.drop_views([f"w{n - 1}"], if_exists=True),
}


def script_of(ddl: AtomicDDL) -> str:
    """What ``ddl-log --home H binlog --sql`` prints (the same function, without a process per example)."""
    origin = origin_for(ddl.home.location)
    return "\n".join(script_lines(origin, event) for event in ddl.binlog_events())


def state(ddl: AtomicDDL, catalog: Any) -> tuple[Any, int]:
    return catalog_state(catalog), len(ddl.binlog_events())


def test_finding5_replaying_a_homes_own_script_into_it_changes_nothing(tmp_path):
    """Issue 36, finding 5: it ran every statement again (INSERT INTO rows doubled)."""
    catalog = populated_catalog()
    with AtomicDDL(home=str(tmp_path / "s"), catalog=catalog) as ddl:
        for name in ("like", "insert", "props", "view"):
            STATEMENTS[name](ddl, 1)
        before, script = state(ddl, catalog), script_of(ddl)
        assert {r.kind for r in ddl.sql(script)} == {"skipped"}
        assert state(ddl, catalog) == before


def test_finding5_failback_by_script_skips_what_the_old_source_made_and_applies_the_rest(tmp_path):
    """S's script replayed into R; R promoted, goes on; R's script replayed into S applies only R's own statements
    (those that came from S name S as their origin and are skipped), and again changes nothing."""
    s_catalog, r_catalog = populated_catalog(), populated_catalog()
    source = AtomicDDL(home=str(tmp_path / "s"), catalog=s_catalog)
    replica = AtomicDDL(home=str(tmp_path / "r"), catalog=r_catalog)
    try:
        STATEMENTS["like"](source, 1)
        STATEMENTS["insert"](source, 2)
        replica.sql(script_of(source))
        STATEMENTS["database"](replica, 3)  # the old replica, now a source
        STATEMENTS["props"](replica, 4)
        kinds = [r.kind for r in source.sql(script_of(replica))]
        assert kinds == ["skipped", "skipped", "ddl", "ddl"]
        assert catalog_state(s_catalog) == catalog_state(r_catalog)
        before = state(source, s_catalog)
        assert {r.kind for r in source.sql(script_of(replica))} == {"skipped"}
        assert state(source, s_catalog) == before
    finally:
        source.close()
        replica.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=st.lists(st.sampled_from(sorted(STATEMENTS)), min_size=1, max_size=6),
       target=st.sampled_from(["fresh", "origin", "part"]), cut=st.integers(0, 6))
def test_finding5_replaying_a_script_twice_is_replaying_it_once_against_any_home(script, target, cut,
                                                                                  tmp_path_factory):
    root = tmp_path_factory.mktemp("replay")
    catalog = populated_catalog()
    with AtomicDDL(home=str(root / "s"), catalog=catalog) as source:
        for n, name in enumerate(script):
            STATEMENTS[name](source, n)
        text = script_of(source)
        origin = origin_for(source.home.location)
        first = "\n".join(script_lines(origin, event) for event in source.binlog_events()[:cut]) or "SELECT 1"
        if target == "origin":
            once = source.sql(text)
            after_once = state(source, catalog)
            source.sql(text)
            assert {r.kind for r in once} <= {"skipped"} and state(source, catalog) == after_once
            return
    other_catalog = populated_catalog()
    with AtomicDDL(home=str(root / "r"), catalog=other_catalog) as other:
        if target == "part":  # a home that replayed the script's first statements before
            other.sql(first)
        other.sql(text)
        after_once = state(other, other_catalog)
        again = other.sql(text)
        assert {r.kind for r in again} <= {"skipped"} and state(other, other_catalog) == after_once
        assert catalog_state(other_catalog) == catalog_state(catalog)


def test_finding5_a_script_of_another_home_at_the_same_path_is_refused_not_skipped(tmp_path):
    """The home's own event at that seq is another one (the home was re-created at its path): a typed refusal."""
    home = tmp_path / "s"
    with AtomicDDL(home=str(home), catalog=populated_catalog()) as ddl:
        STATEMENTS["like"](ddl, 1)
        old_script = script_of(ddl)
    shutil.rmtree(home)
    with AtomicDDL(home=str(home), catalog=populated_catalog()) as ddl:
        STATEMENTS["database"](ddl, 2)
        with pytest.raises(ReplayedElsewhereError) as refused:
            ddl.sql(old_script)
        assert refused.value.seq == 1


def source_with(home: Path, statements: list[str]) -> None:
    with AtomicDDL(home=str(home), catalog=populated_catalog()) as ddl:
        for index, name in enumerate(statements):
            STATEMENTS[name](ddl, index + 1)


@pytest.mark.parametrize("how", ["re-created", "restored and went on", "restored"])
def test_finding6_a_source_that_no_longer_holds_the_applied_event_stops_the_replica_and_status_says_so(
        tmp_path, how):
    """Issue 36, finding 6: the replica skipped the source's new events while the source's binlog was behind its
    position, and ``replica status`` said 0 behind."""
    source, backup = tmp_path / "s", tmp_path / "backup"
    source_with(source, ["like", "database"])
    shutil.copytree(source, backup)
    with AtomicDDL(home=str(source), catalog=populated_catalog()) as ddl:
        STATEMENTS["props"](ddl, 3)
        STATEMENTS["view"](ddl, 4)
    replica_home = str(tmp_path / "r")
    with AtomicDDL(home=replica_home, catalog=populated_catalog()) as replica:
        assert replica.replica_of(str(source)).apply_available().position == 4
    shutil.rmtree(source)
    if how == "re-created":
        source_with(source, ["truncate", "database", "props", "like", "view"])
    else:
        shutil.copytree(backup, source)
        if how == "restored and went on":
            with AtomicDDL(home=str(source), catalog=populated_catalog()) as ddl:
                for n in range(3):
                    STATEMENTS["database"](ddl, 10 + n)
    with AtomicDDL(home=replica_home, catalog=populated_catalog()) as replica:
        applier = replica.replica_of(str(source))
        with pytest.raises(SourceRewoundError) as stopped:
            applier.apply_available()
        assert stopped.value.position == 4 and applier.position == 4
        assert (stopped.value.found is None) == (how == "restored")
        events = len(replica.binlog_events())
        with pytest.raises(SourceRewoundError):
            applier.run(until_caught_up=True)
        assert len(replica.binlog_events()) == events  # nothing applied, nothing skipped
    done = ddl_log_cli("--home", replica_home, "replica", "status", "--json")
    status = json.loads(done.stdout)
    assert done.returncode == 1 and status["events_behind"] is None and "event 4" in status["source_rewound"]


def test_finding6_the_same_source_restored_with_the_applied_event_goes_on(tmp_path):
    """A backup that holds the event the replica applied last is the same source: the replica goes on from there."""
    source, backup = tmp_path / "s", tmp_path / "backup"
    source_with(source, ["like", "database"])
    replica_home = str(tmp_path / "r")
    with AtomicDDL(home=replica_home, catalog=populated_catalog()) as replica:
        replica.replica_of(str(source)).apply_available()
    shutil.copytree(source, backup)
    with AtomicDDL(home=str(source), catalog=populated_catalog()) as ddl:
        STATEMENTS["props"](ddl, 3)
    shutil.rmtree(source)
    shutil.copytree(backup, source)
    with AtomicDDL(home=str(source), catalog=populated_catalog()) as ddl:
        STATEMENTS["view"](ddl, 4)  # other than the event 3 the source had before the restore
    with AtomicDDL(home=replica_home, catalog=populated_catalog()) as replica:
        assert replica.replica_of(str(source)).apply_available().position == 3
