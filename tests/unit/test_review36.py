"""Regression tests of the hostile review of versions, replication and replay (issue 36), on the in-memory catalog;
each failed on the code before its fix. (The same findings on Spark: tests/spark/test_review36.py.)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from actions.kept_versions import kept_versions
from chains.retention import MAX_RETENTION_SECONDS, RETENTION_PROPERTY
from ddl_log import AtomicDDL, InvalidTablePropertyError
from ddl_log.engine.alter_ops import SetProperties
from storage.catalogs.memory import MemoryTable
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog, tn
from tests.unit.test_versions import table_state

NEW_ROWS = MemoryTable("", ("x",), [(7,)])


@pytest.fixture
def world(tmp_path):
    catalog = populated_catalog()
    catalog.backend.tables[tn("a")].location = "memory:/default/ddllog_0_a_tmp"  # replaced once: kept for its retention
    home = str(tmp_path / "home")

    def open_home(**settings) -> AtomicDDL:
        settings.setdefault("retention_seconds", 86400)
        return AtomicDDL(home=home, catalog=catalog, **settings)

    return catalog, open_home, home


def ddl_log_cli(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ddl_log", "--home", home, *args], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e300", "-5", "a week", ""])
def test_finding12_a_retention_that_is_not_a_number_of_seconds_is_refused_when_set(world, value):
    catalog, open_home, _ = world
    before = catalog_state(catalog)
    with open_home() as ddl:
        with pytest.raises(InvalidTablePropertyError) as refused:
            ddl.alter_table("a", SetProperties({RETENTION_PROPERTY: value}))
        assert refused.value.condition == "INVALID_CONF_VALUE" and refused.value.name == "default.a"
        assert RETENTION_PROPERTY in str(refused.value) and repr(value) in str(refused.value)
        with pytest.raises(InvalidTablePropertyError):
            ddl.create_table("n", schema="x INT", properties={RETENTION_PROPERTY: value})
        assert ddl.binlog_events() == [] and ddl.active_chains() == []
    assert catalog_state(catalog) == before


def test_finding12_a_valid_retention_is_accepted_up_to_the_documented_maximum(world):
    catalog, open_home, _ = world
    with open_home() as ddl:
        ddl.alter_table("a", SetProperties({RETENTION_PROPERTY: str(int(MAX_RETENTION_SECONDS))}))
        ddl.alter_table("a", SetProperties({RETENTION_PROPERTY: "0"}))
        with pytest.raises(InvalidTablePropertyError):
            ddl.alter_table("a", SetProperties({RETENTION_PROPERTY: str(MAX_RETENTION_SECONDS + 1)}))
    assert catalog.backend.tables[tn("a")].properties[RETENTION_PROPERTY] == "0"


@pytest.mark.parametrize("value", ["inf", "1e300", "-5", "garbage"])
def test_finding12_a_retention_set_outside_the_log_never_breaks_history_status_or_a_replace(world, value):
    """Plain Spark sets what it likes: the value is read clamped (a number above the maximum: the maximum; below 0:
    0; not a number: the home's setting), and every reader of the log shows the versions."""
    catalog, open_home, home = world
    catalog.backend.tables[tn("a")].properties[RETENTION_PROPERTY] = value
    with open_home(grace_seconds=60) as ddl:
        replaced = ddl.create_or_replace_table("a", df=NEW_ROWS)
        rows = ddl.describe_history("a").rows
        kept = next(row for row in rows if row.version == replaced.version)
        assert kept.restorable_until is not None
        due = {"inf": MAX_RETENTION_SECONDS, "1e300": MAX_RETENTION_SECONDS, "-5": 60, "garbage": 86400}[value]
        [version] = [v for v in kept_versions(ddl.log) if v.number == replaced.version]
        assert abs(version.due - version.kept.kept_at - due) < 5
    for command in (("status",), ("status", "--json"), ("history", "a")):
        done = ddl_log_cli(home, *command)
        assert done.returncode == 0, (command, done.stderr)
        assert "Traceback" not in done.stderr


def test_finding12_a_log_written_with_an_endless_due_is_shown_not_raised(world):
    """A log written before the fix could hold a due of infinity: its readers show it, never raise."""
    from actions.kinds.delete_data import KeptVersion, log_delete_data
    from chains.entries import ChainKind
    from storage.catalogs.names import TableName

    _, open_home, home = world
    with open_home() as ddl:
        log = ddl.log
        chain = log.new_chain(ChainKind.FORWARD, "CREATE OR REPLACE TABLE a ...")
        log_delete_data(log, chain, TableName("default", "a"), "memory:/default/old", float("inf"),
                        KeptVersion("{}", 1.0, "CREATE OR REPLACE TABLE", False, 3))
        assert ddl.describe_history("a").rows  # no OverflowError
    done = ddl_log_cli(home, "history", "a")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["restorable_until"] == "never"
    assert ddl_log_cli(home, "status").returncode == 0


class RelationFacts:
    """Session facts of the custom catalog, with a relation ``history`` in the current database or not."""

    def __init__(self, relations: tuple[str, ...] = ()) -> None:
        from ddl_log.frontends.sql.name_resolution import NoSparkFacts

        self.base, self.relations = NoSparkFacts(), relations

    def __getattr__(self, name: str):
        return getattr(self.base, name)

    def relation_exists(self, name: str) -> bool:
        return name.lower() in self.relations


@pytest.mark.parametrize("text", ["DESCRIBE history.orders", "DESC history.orders", "DESC EXTENDED history",
                                  "DESCRIBE `history`.orders"])
def test_finding3_describe_of_a_table_or_database_named_history_goes_to_spark_as_spark_reads_it(text):
    """Issue 36, finding 3: these were refused (read as DESCRIBE HISTORY with a malformed name). (Without a Spark
    session sqlglot checks the syntax, which refuses a few more of Spark's forms: the Spark test has them all.)"""
    from ddl_log.frontends.sql import plan_script

    [plan] = plan_script(text)
    assert plan.kind == "query" and plan.draft is None


def test_finding3_describe_history_x_is_spark_s_describe_of_column_x_while_a_relation_history_exists():
    """Spark reads ``DESCRIBE history x`` as DESCRIBE of the column x of the table ``history``: so it is, while a
    relation of that name resolves in the session; otherwise (Spark would fail to find it) it is this project's
    DESCRIBE HISTORY of x."""
    from ddl_log.engine.history_statements import DescribeHistory
    from ddl_log.frontends.sql import plan_script

    [plan] = plan_script("DESCRIBE history x")
    assert plan.label == "DESCRIBE HISTORY"
    assert plan.resolved(RelationFacts(("history",))) is None  # Spark runs the text
    statement = plan.resolved(RelationFacts())
    assert isinstance(statement, DescribeHistory) and str(statement.name) == "default.x"


class Clock:
    """``time.time`` for the test: still until moved (every log record and tag of one statement has its instant)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float = 10.0) -> float:
        """Move on; returns the instant halfway through the step (between the statements around it)."""
        self.now += seconds
        return self.now - seconds / 2


@pytest.fixture
def clock(monkeypatch) -> Clock:
    import time

    fake = Clock()
    monkeypatch.setattr(time, "time", fake)
    return fake


def test_finding2_describe_history_lists_every_version_current_first_each_with_the_operation_that_made_it(
        world, clock):
    """Issue 36, finding 2: only the kept versions were listed, each labelled with the statement that retired it, so
    RESTORE TO VERSION AS OF the row picked for its statement gave another table than that statement made."""
    catalog, open_home, _ = world
    original = table_state(catalog, "a")
    with open_home() as ddl:
        clock.step()
        made = ddl.create_or_replace_table("a", df=NEW_ROWS)
        replaced = table_state(catalog, "a")
        clock.step()
        ddl.truncate_table("a")
        rows = ddl.describe_history("a").rows
        assert [(row.current, row.operation) for row in rows] == [
            (True, "TRUNCATE TABLE"), (False, "CREATE OR REPLACE TABLE"), (False, None)]
        assert rows[1].version == made.event.xid and rows[2].version == made.version  # numbers: the making XIDs
        assert len({row.version for row in rows}) == 3 and rows[1].retired_by == "TRUNCATE TABLE"
        assert rows[1].statement is not None and rows[1].statement.startswith("CREATE OR REPLACE TABLE")
        clock.step()
        restored = ddl.restore_table("a", version=rows[1].version)  # the row of the CREATE OR REPLACE
        assert table_state(catalog, "a") == replaced and restored.version == rows[1].version
        again = ddl.describe_history("a").rows
        assert (again[0].version, again[0].current, again[0].operation) == (rows[1].version, True, "RESTORE TABLE")
        assert len(again[0].periods) == 2  # current before the TRUNCATE, and again since the RESTORE
        assert {row.version for row in again} == {row.version for row in rows}  # numbers are stable
        ddl.restore_table("a", version=rows[2].version)
        assert table_state(catalog, "a") == original


def test_finding1_restore_to_a_timestamp_installs_the_version_current_then_and_twice_is_once(world, clock):
    """Issue 36, finding 1: run twice, the second RESTORE installed the version the first one had replaced."""
    catalog, open_home, _ = world
    with open_home() as ddl:
        clock.step()
        ddl.create_or_replace_table("a", df=NEW_ROWS)
        first = table_state(catalog, "a")
        between = clock.step()
        ddl.create_or_replace_table("a", df=MemoryTable("", ("y",), [(8,), (9,)]))
        clock.step()
        ddl.restore_table("a", timestamp=between)
        assert table_state(catalog, "a") == first
        clock.step()
        events = len(ddl.binlog_events())
        result = ddl.restore_table("a", timestamp=between)  # the same version: it is current, nothing changes
        assert table_state(catalog, "a") == first and result.event is None and len(ddl.binlog_events()) == events


def test_finding1_restore_to_a_timestamp_refuses_saying_why_nothing_was_current_then(world, clock):
    """Expired (the version of that time is no longer kept), before the table existed, while it was dropped: each a
    typed refusal naming why; before the fix the next kept version was installed in each case."""
    from ddl_log import NoSuchVersionError

    _, open_home, _ = world
    with open_home(retention_seconds=100, grace_seconds=100) as ddl:
        before = clock.step()
        first = ddl.create_table("n", schema="x INT")
        clock.step()
        ddl.create_or_replace_table("n", schema="y INT")
        during_second = clock.step()
        ddl.restore_table("n", version=ddl.describe_history("n").rows[1].version)  # the first: current again
        clock.step()
        ddl.create_or_replace_table("n", schema="z INT")  # the first retired again: kept longer than the second
        clock.step(93)  # the second version's retention is over, the first's not (until 100 s after the COR)
        ddl.drop_tables(["n"])
        dropped = clock.step(2)
        ddl.create_table("n", schema="w INT")
        clock.step(2)
        assert first.replaced is False
        for at, reason in ((before, "not_created"), (during_second, "expired"), (dropped, "dropped")):
            with pytest.raises(NoSuchVersionError) as refused:
                ddl.restore_table("n", timestamp=at)
            assert refused.value.reason == reason and refused.value.name == "default.n", at


def test_finding9_names_up_to_the_metastores_limits_work_in_every_statement(world):
    """Issue 36, finding 9: every statement refused a name over 128 characters, DROP included. The metastore takes
    table and view names up to 256 characters (databases and functions 128): so does the log; a longer name is
    refused where it would be created, as the metastore refuses it, and names nothing elsewhere (not found)."""
    from ddl_log import InvalidNameError, NoSuchObjectError

    catalog, open_home, _ = world
    long, other, view = "t" * 200, "u" * 250, "v" * 256
    with open_home(grace_seconds=60) as ddl:
        ddl.create_table(long, like="a")
        ddl.insert_into(long, df=MemoryTable("", ("x",), [(3,)]))
        ddl.create_or_replace_table(long, df=NEW_ROWS)
        ddl.truncate_table(long)
        ddl.alter_table(long, SetProperties({"k": "v"}))
        ddl.restore_table(long, version=ddl.describe_history(long).rows[1].version)
        ddl.rename_tables([(long, other)])
        ddl.drop_tables([other])
        ddl.create_table(other, like="b")  # its dropped version moves aside, to a shortened directory name
        [moved] = ddl.show_tables_dropped().rows
        assert len(moved.location.rsplit("/", 1)[1]) <= 255
        ddl.drop_tables([other])
        ddl.undrop_table(other)
        ddl.create_view(view, as_select="SELECT 1 AS one")
        ddl.drop_views([view])
        ddl.create_database("d" * 128)
        with pytest.raises(InvalidNameError, match="maximum length of 256"):
            ddl.create_table("w" * 257, like="a")
        with pytest.raises(InvalidNameError, match="maximum length of 128"):
            ddl.create_database("d" * 129)
        with pytest.raises(NoSuchObjectError):
            ddl.drop_tables(["x" * 300])
    assert tn(other) in catalog.backend.tables and tn(view) not in catalog.backend.views
