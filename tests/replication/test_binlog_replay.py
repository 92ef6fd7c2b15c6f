"""Replaying a binlog with a tool (FR5 of WL#13355): ``ddl-log binlog --sql`` prints a script that ``ddl-log sql -f``
(the SQL front end) replays atomically, each statement once. Every statement carries its origin and sequence; the
replaying home's binlog records them with the statement, so running the script again, or again after a crash in the
middle, skips exactly what was applied. A RESTORE, whose version number is the source home's own, is refused."""

from __future__ import annotations

import time

import pytest

from ddl_log import AtomicDDL, UnsupportedStatementError
from ddl_log.frontends.sql import plan_script
from ddl_log.replication.origin import mark_of, origin_of
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests import crashkit
from tests.replication.test_apply_exactly_once import SOURCE_SCRIPT, ddl_log_cli, source_home
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog


def script_of(source: str, *options: str) -> str:
    done = ddl_log_cli("--home", source, "binlog", "--sql", *options)
    assert done.returncode == 0, done.stderr
    return done.stdout


def applied(ddl: AtomicDDL) -> list[int]:
    return [mark.seq for mark in map(mark_of, (e.statement for e in ddl.binlog_events())) if mark is not None]


def test_a_binlog_script_replays_each_statement_once_however_often_it_runs(tmp_path):
    source, source_catalog = source_home(tmp_path)
    script = script_of(source)
    assert f"/* ddl-log origin {origin_of(source)} seq 1 id " in script
    catalog = populated_catalog()
    with AtomicDDL(home=str(tmp_path / "replay"), catalog=catalog) as ddl:
        results = ddl.sql(script)
        assert [r.kind for r in results] == ["ddl"] * (len(SOURCE_SCRIPT) + 1)
        assert applied(ddl) == list(range(1, len(SOURCE_SCRIPT) + 2))
        assert catalog_state(catalog) == catalog_state(source_catalog)
        again = ddl.sql(script)
        assert [r.kind for r in again] == ["skipped"] * len(results) and len(ddl.binlog_events()) == len(results)


def test_a_replay_crashed_in_the_middle_and_run_again_applies_every_statement_exactly_once(tmp_path):
    source, source_catalog = source_home(tmp_path)
    script = script_of(source)
    points = crashkit.trace(lambda: AtomicDDL(home=str(tmp_path / "trace"), catalog=populated_catalog()),
                            lambda d: d.sql(script))
    chosen = [p for p in points if p[0] in ("commit.before_binlog", "commit.after_binlog")][2:6]
    for index, (point, nth) in enumerate(chosen):
        catalog, home = populated_catalog(), str(tmp_path / f"r{index}")

        def opener(home: str = home, catalog: Catalog = catalog) -> AtomicDDL:
            return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

        assert crashkit.crash_at(opener, lambda d: d.sql(script), point, nth)
        with opener() as ddl:  # recovery, then the whole script again
            ddl.sql(script)
            assert applied(ddl) == list(range(1, len(SOURCE_SCRIPT) + 2)), (point, nth)
        assert catalog_state(catalog) == catalog_state(source_catalog), (point, nth)


def test_since_until_and_until_time_choose_the_events(tmp_path):
    source, _ = source_home(tmp_path)
    seqs = [mark_of(line).seq for line in script_of(source, "--since", "2", "--until", "5").splitlines()
            if mark_of(line) is not None]
    assert seqs == [3, 4, 5]
    assert script_of(source, "--until-time", "2000-01-01 00:00:00").strip() == ""
    tomorrow = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + 86400))
    assert script_of(source, "--until-time", tomorrow) == script_of(source)
    refused = ddl_log_cli("--home", source, "binlog", "--sql", "--until", "3", "--until-time", tomorrow)
    assert refused.returncode == 2


def test_a_restore_from_another_homes_binlog_is_refused_before_anything_runs(tmp_path):
    script = ("/* ddl-log origin file:/elsewhere seq 4 */ CREATE TABLE t2 LIKE a;\n"
              "/* ddl-log origin file:/elsewhere seq 5 */ RESTORE TABLE a TO VERSION AS OF 7;")
    with pytest.raises(UnsupportedStatementError, match="RESTORE TABLE replayed from another home"):
        plan_script(script)
    assert plan_script("RESTORE TABLE a TO VERSION AS OF 7")[0].label == "RESTORE TABLE"  # the home's own: fine


def test_finding4_a_statement_ending_in_a_line_comment_is_ended_where_it_ends_and_the_script_replays(tmp_path):
    """Issue 36, finding 4: the ``;`` after a statement whose text ends in a ``--`` comment (a Python API
    ``as_select`` ending in one) went into the comment, so the next statement was read as part of it."""
    home, catalog = str(tmp_path / "source"), populated_catalog()
    with AtomicDDL(home=home, catalog=catalog) as ddl:
        ddl.create_view("v2", as_select="SELECT 2 AS two -- the last column")
        ddl.create_table("c", like="a")
    script = script_of(home)
    replay = populated_catalog()
    with AtomicDDL(home=str(tmp_path / "replay"), catalog=replay) as ddl:
        assert [r.kind for r in ddl.sql(script)] == ["ddl", "ddl"]
        assert applied(ddl) == [1, 2]
    assert replay.backend.views[TableName("default", "v2")].query == "SELECT 2 AS two"  # the comment ends with the text
    replay.backend.views[TableName("default", "v2")] = catalog.backend.views[TableName("default", "v2")]
    assert catalog_state(replay) == catalog_state(catalog)
