"""INSERT INTO through the project on real Spark: it leaves what plain Spark's own INSERT INTO leaves (rows,
partitions, statistics, refusals) for forms the differential runs write seldom (column lists, BY NAME, a static
partition of no row; a Hive serde table in ``make replication``), its binlog event records the files it moved in, and
crashed at any instant it adds all the rows or none (in-process here; real SIGKILLs in test_insert_into_kill.py and
tests/replication/test_two_services.py).

``make replication`` (``DDL_LOG_REPLICATION_LONG=1``) sweeps every crash point on Spark; the default run the points
around each catalog operation, the commit and the moves (every point is swept on the in-memory catalog in
tests/unit/test_statement_sweeps.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL, DDLLogError, NotAtomicError
from tests import crashkit
from tests.spark.sweep_support import crash_then_recover, spark_worthy, table_state, user_tables

pytestmark = pytest.mark.spark
ASIDE_PROTOCOL = "org.apache.spark.internal.io.HadoopMapReduceCommitProtocol"
"""A commit protocol other than Spark's default for SQL (its parent class): the session cannot name jobs, so INSERT
INTO writes aside, as on a session configured with a cloud committer."""
LONG = os.environ.get("DDL_LOG_REPLICATION_LONG") == "1"

SHAPES = {
    "t": "CREATE TABLE {t} (a INT, b STRING) USING parquet",
    "p": "CREATE TABLE {t} (v INT, a STRING, k STRING) USING parquet PARTITIONED BY (a, k)",
    "h": "CREATE TABLE {t} (a INT, b STRING) STORED AS parquet",
}
SCRIPTS = {
    "t": ["INSERT INTO {t} VALUES (1, 'x'), (2, 'y')", "ANALYZE TABLE {t} COMPUTE STATISTICS",
          "INSERT INTO TABLE {t} SELECT id, CAST(id AS STRING) FROM range(3)",
          "INSERT INTO {t} (b, a) VALUES ('q', 9)", "INSERT INTO {t} (a) VALUES (5)",
          "INSERT INTO {t} BY NAME SELECT 'n' AS b, 4 AS a", "INSERT INTO {t} VALUES (1)",
          "INSERT INTO {t} SELECT 'abc', 'x'", "INSERT INTO {t} SELECT * FROM {t}", "INSERT INTO {t} VALUES (2.5, 7)"],
    "p": ["INSERT INTO {t} VALUES (1, 'x', 'k1'), (2, 'y', NULL)",
          "INSERT INTO {t} PARTITION (a='s', k='t') VALUES (3)",
          "INSERT INTO {t} PARTITION (a='e', k='e') SELECT 1 WHERE false",
          "INSERT INTO {t} PARTITION (a='x', k) VALUES (4, 'k1')",
          "INSERT INTO {t} PARTITION (a, k) VALUES (5, 'a/b', 'c=d')",
          "INSERT INTO {t} PARTITION (k='z') VALUES (6, 'a')"],
    "h": ["INSERT INTO {t} VALUES (1, 'x')", "INSERT INTO {t} SELECT 2, 'y' UNION ALL SELECT 3, 'z'"],
}


def table_facts(spark: Any, name: str) -> tuple[Any, ...]:
    rows = sorted(tuple(map(str, row)) for row in spark.table(name).collect())
    partitioned = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").filter("col_name = '# Partition Information'").count()
    partitions = sorted(str(r[0]) for r in spark.sql(f"SHOW PARTITIONS {name}").collect()) if partitioned else []
    statistics = [str(r[1]) for r in spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect() if r[0] == "Statistics"]
    return rows, partitions, spark.table(name).schema.simpleString(), statistics


@pytest.mark.parametrize("shape", sorted(SHAPES) if LONG else ["p", "t"])
def test_insert_into_leaves_what_plain_sparks_insert_into_leaves(clean_spark, tmp_path, shape):
    spark = clean_spark
    for name in ("ours", "plain"):
        spark.sql(SHAPES[shape].format(t=name))
    with AtomicDDL(spark=spark, home=str(tmp_path / "home")) as ddl:
        for statement in SCRIPTS[shape]:
            try:
                spark.sql(statement.format(t="plain"))
                plain_error = None
            except Exception as error:  # noqa: BLE001 - plain Spark's refusal, compared below
                plain_error = error
            before = len(ddl.binlog_events())
            try:
                results = ddl.sql(statement.format(t="ours"))
                ours_error = None
            except DDLLogError as error:
                ours_error = error
            assert (plain_error is None) == (ours_error is None), (statement, plain_error, ours_error)
            if ours_error is None:
                inserted = statement.startswith("INSERT")
                assert results[-1].kind == ("ddl" if inserted else "query"), statement
                assert len(ddl.binlog_events()) == before + inserted, statement
            else:
                assert "ours" in str(getattr(ours_error, "name", "")) and "ddllog_" not in str(ours_error)
                assert len(ddl.binlog_events()) == before, statement
            assert table_facts(spark, "ours") == table_facts(spark, "plain"), statement
        assert not [t for t in user_tables(spark) if t.startswith("ddllog_")]


def test_an_external_table_is_refused_as_not_atomic_and_runs_on_spark_when_allowed(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql(f"CREATE TABLE e (a INT) USING parquet LOCATION '{tmp_path / 'ext'}'")
    with AtomicDDL(spark=spark, home=str(tmp_path / "home")) as ddl:
        with pytest.raises(NotAtomicError, match="external"):
            ddl.sql("INSERT INTO e VALUES (1)")
        assert spark.table("e").count() == 0
        assert ddl.sql("INSERT INTO e VALUES (1)", allow_non_atomic=True)[-1].kind == "query"
        assert spark.table("e").count() == 1


def test_the_binlog_event_records_the_files_moved_in_and_the_table_version(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql(SHAPES["p"].format(t="p"))
    with AtomicDDL(spark=spark, home=str(tmp_path / "home")) as ddl:
        result = ddl.insert_into("p", as_select="SELECT 1, 'x', 'k1' UNION ALL SELECT 2, 'y', NULL",
                                 statement="INSERT INTO p ...")
        added = result.event.added
        location = spark.sql("DESCRIBE TABLE EXTENDED p").filter("col_name = 'Location'").collect()[0][1]
    assert added.table == "default.p" and added.location == location and added.identity is not None
    assert result.files == len(added.files) >= 2 and added.partitioned_by == ("a", "k")
    null = "__HIVE_DEFAULT_PARTITION__"
    assert {f.partition for f in added.files} == {(("a", "x"), ("k", "k1")), (("a", "y"), ("k", null))}
    assert all(Path(f.path.removeprefix("file:")).is_file() for f in added.files)  # where they lie in the table now


def plan_of(spark: Any, home: Path, statement: str) -> str:
    """Which plan ran ``statement`` (its crash points say)."""
    points = crashkit.trace(lambda: AtomicDDL(spark=spark, home=home), lambda d: d.sql(statement))
    return "in_place" if any(p.startswith("insert_in_place.") for p, _ in points) else "aside"


def test_an_insert_in_place_leaves_nothing_of_its_commit_protocol_in_the_sessions_settings(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql(SHAPES["t"].format(t="t"))
    before = spark.conf.get("spark.sql.sources.commitProtocolClass")
    assert plan_of(spark, tmp_path / "home", "INSERT INTO t VALUES (1, 'x')") == "in_place"
    assert spark.conf.get("spark.sql.sources.commitProtocolClass") == before
    assert "NamedJob" not in str(spark.sql("SET -v").collect())


@pytest.mark.parametrize("setting, plan", [(("spark.sql.sources.commitProtocolClass", ASIDE_PROTOCOL), "aside"),
                                           (("hive.exec.stagingdir", "/tmp/ddl-log-staging-elsewhere"), "aside"),
                                           (("hive.exec.stagingdir", ".staging-of-my-own"), "in_place")])
def test_a_session_whose_job_cannot_be_named_writes_aside(clean_spark, tmp_path, setting, plan):
    """Another commit protocol (a cloud committer) is the session's own; a Hive staging directory outside the table
    (absolute) would put a Hive serde table's job output where its id is not given: both write aside; a relative one
    stays inside the table's directory. Every row arrives either way."""
    spark = clean_spark
    spark.sql("CREATE TABLE h (a INT, b STRING) STORED AS textfile")  # Spark's Hive insert, through a staging dir
    spark.conf.set(*setting)
    try:
        assert plan_of(spark, tmp_path / "home", "INSERT INTO h VALUES (1, 'x'), (2, 'y')") == plan
    finally:
        spark.conf.unset(setting[0])
    assert sorted(tuple(r) for r in spark.table("h").collect()) == [(1, "x"), (2, "y")]


INSERT = "INSERT INTO p VALUES (1, 'x', 'k1'), (2, 'y', NULL), (3, 'y', 'k2')"
SETUP = [SHAPES["p"].format(t="p"), "INSERT INTO p VALUES (0, 'x', 'k1')"]
SAMPLES = {
    "in_place": ("insert_in_place.fill.before", "insert_in_place.commit.before", "commit.before_binlog",
                 "commit.after_binlog"),
    "aside": ("insert.fill_tmp.before", "insert.log_moves.before", "commit.before_binlog", "commit.after_binlog",
              "insert.move.between", "insert.move.moved", "forward.drop_table.after_drop"),
}
"""In place: the job id logged; the rows in the table, not committed; committed. Aside: TMP made; TMP filled; the
moves logged; committed; some files moved; all moved; TMP gone (the default run)."""


@pytest.fixture(params=sorted(SAMPLES))
def plan(request: Any, clean_spark: Any) -> Any:
    if request.param == "aside":
        clean_spark.conf.set("spark.sql.sources.commitProtocolClass", ASIDE_PROTOCOL)
    yield request.param
    clean_spark.conf.unset("spark.sql.sources.commitProtocolClass")


def test_insert_into_crashed_anywhere_adds_every_new_row_or_none(clean_spark, warehouse, tmp_path, plan):
    spark = clean_spark

    def fresh() -> None:
        spark.sql("DROP TABLE IF EXISTS p PURGE")
        for sql in SETUP:
            spark.sql(sql)

    def insert(ddl: AtomicDDL) -> Any:
        return ddl.sql(INSERT)

    def world(label: str) -> Any:
        return lambda: AtomicDDL(spark=spark, home=tmp_path / label, compact_bytes=0)

    fresh()
    old = table_state(spark, "p")
    points = crashkit.trace(world("trace"), insert)
    new = table_state(spark, "p")
    assert new != old and {p for p, _ in points} >= set(SAMPLES[plan])  # aside: three files, two moves between
    chosen = spark_worthy(points) if LONG else [p for p in spark_worthy(points) if p[0] in SAMPLES[plan]]
    assert LONG or {p for p, _ in chosen} == set(SAMPLES[plan])
    outcomes = []
    for index, (point, nth) in enumerate(chosen):
        fresh()
        opener = world(f"case{index}")
        events = crash_then_recover(opener, insert, point, nth)
        state = table_state(spark, "p")
        assert len(events) <= 1 and state == (new if events else old), (point, nth, state)
        assert user_tables(spark) == {"p"}, (point, nth)
        assert {d.name for d in warehouse.iterdir() if d.is_dir()} == {"p"}, (point, nth)
        second = opener()
        assert second.last_recovery.nothing_to_do, (point, nth)
        second.close()
        outcomes.append("new" if events else "old")
    assert outcomes == sorted(outcomes, key=lambda o: o == "new") and {"old", "new"} <= set(outcomes)


def test_an_undone_insert_in_place_deletes_its_files_in_a_partition_plain_spark_put_elsewhere(
        clean_spark, tmp_path):
    """Plain Spark's ALTER TABLE ADD PARTITION ... LOCATION puts a partition outside the table's directory, and Spark's
    own job writes that partition's new files there: the undo of a crashed in-place INSERT finds them there too."""
    spark = clean_spark
    elsewhere = tmp_path / "elsewhere"
    spark.sql("CREATE TABLE e (v INT, k STRING) USING parquet PARTITIONED BY (k)")
    spark.sql(f"ALTER TABLE e ADD PARTITION (k='far') LOCATION '{elsewhere}'")
    spark.sql("INSERT INTO e VALUES (0, 'far'), (1, 'near')")
    old = table_state(spark, "e")
    opener = lambda: AtomicDDL(spark=spark, home=tmp_path / "home")  # noqa: E731 - the sweep's opener
    events = crash_then_recover(opener, lambda d: d.sql("INSERT INTO e VALUES (2, 'far'), (3, 'near')"),
                                "insert_in_place.commit.before", 1)
    assert not events and table_state(spark, "e") == old
    assert len([p for p in elsewhere.iterdir() if p.name.startswith("part-")]) == 1  # the old file only


def test_an_undone_insert_in_place_keeps_a_new_partition_another_writer_filled(clean_spark, tmp_path):
    """A plain Spark job writes into the table between the crash and recovery (a job of another cluster, say), into
    a partition the crashed statement added and into one of its own: the undo deletes the statement's rows only, and
    drops only the new partition that nothing but the statement filled."""
    spark = clean_spark
    spark.sql("CREATE TABLE w (v INT, k STRING) USING parquet PARTITIONED BY (k)")
    spark.sql("INSERT INTO w VALUES (0, 'old')")
    opener = lambda: AtomicDDL(spark=spark, home=tmp_path / "home")  # noqa: E731 - the crash's opener
    assert crashkit.crash_at(opener, lambda d: d.sql("INSERT INTO w VALUES (1, 'shared'), (2, 'mine')"),
                             "insert_in_place.commit.before", 1)
    spark.sql("INSERT INTO w VALUES (3, 'shared'), (4, 'theirs')")
    opener().close()
    assert sorted(tuple(r) for r in spark.table("w").collect()) == [(0, "old"), (3, "shared"), (4, "theirs")]
    assert sorted(r[0] for r in spark.sql("SHOW PARTITIONS w").collect()) == ["k=old", "k=shared", "k=theirs"]
