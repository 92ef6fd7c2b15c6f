"""Regression tests of the hostile review of versions, replication and replay (issue 36) on Spark; each failed on the
code before its fix. (The in-memory ones: tests/unit/test_review36.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL, DDLLogError
from tests.version_model import ApiDriver

pytestmark = pytest.mark.spark


def rows_of(result: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in result.collect()]


def test_finding3_describe_of_objects_named_history_runs_as_spark_runs_it(clean_spark, tmp_path):
    """``DESCRIBE history.orders`` (a database ``history``), ``DESCRIBE history`` (a table) and ``DESCRIBE history
    x`` (its column x, as Spark reads it) give plain Spark's rows; with no relation ``history``, ``DESCRIBE HISTORY
    x`` is the project's history of x."""
    spark = clean_spark
    spark.sql("CREATE DATABASE history")
    try:
        spark.sql("CREATE TABLE history.orders (id INT, x INT) USING parquet")
        spark.sql("CREATE TABLE history (x INT, y STRING) USING parquet")
        spark.sql("CREATE TABLE x (a INT) USING parquet")
        texts = ["DESCRIBE history.orders", "DESC history.orders", "DESCRIBE history", "DESCRIBE TABLE history",
                 "DESC EXTENDED history", "DESCRIBE history x", "DESC history y", "DESCRIBE history.orders x",
                 "DESCRIBE `history`.`orders`"]
        with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
            for text in texts:
                [result] = ddl.sql(text)
                assert result.kind == "query", text
                assert rows_of(result.result) == rows_of(spark.sql(text)), text
            spark.sql("DROP TABLE history")
            [result] = ddl.sql("DESCRIBE HISTORY x")
            assert result.kind == "ddl" and [row.current for row in result.result.rows] == [True]
    finally:
        spark.sql("DROP DATABASE IF EXISTS history CASCADE")


def data_files(location: str) -> list[Path]:
    root = Path(location.removeprefix("file:"))
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith(("_", ".")))


@pytest.mark.parametrize("how", ["restore", "undrop"])
def test_also_seen_a_version_whose_files_were_partly_deleted_by_hand_is_refused_never_installed_in_part(
        clean_spark, tmp_path, how):
    """Issue 36, "also seen": RESTORE of a version with some of its files deleted by hand restored the rest (6 of 10
    rows). The files the version held when it was kept are checked first, as a replica checks a copied version's."""
    from ddl_log import VersionFilesMissingError

    spark = clean_spark
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0, retention_seconds=3600) as ddl:
        ddl.create_table("t", using="parquet", as_select="SELECT 0 AS id")  # at <db>/t: kept for grace 0 only
        ddl.create_or_replace_table("t", as_select="SELECT /*+ REPARTITION(5) */ id FROM range(10)")
        ddl.create_or_replace_table("t", as_select="SELECT 1 AS id")  # the ten rows kept, at their own directory
        kept = ddl.describe_history("t").rows[1]
        if how == "undrop":
            ddl.restore_table("t", version=kept.version)
            ddl.drop_tables(["t"])
            [kept] = ddl.show_tables_dropped().rows
        files = data_files(kept.location)
        assert len(files) >= 3
        for file in files[:2]:
            file.unlink()
        before = rows_of(spark.sql("SELECT * FROM t ORDER BY id")) if how == "restore" else None
        events = len(ddl.binlog_events())
        with pytest.raises(VersionFilesMissingError) as refused:
            ddl.restore_table("t", version=kept.version) if how == "restore" else ddl.undrop_table("t")
        assert refused.value.name == "default.t" and len(refused.value.missing) == 2
        assert refused.value.reason == "files_missing" and files[0].name in str(refused.value)
        assert len(ddl.binlog_events()) == events and ddl.active_chains() == []
        if how == "restore":
            assert rows_of(spark.sql("SELECT * FROM t ORDER BY id")) == before
        else:
            assert not spark.catalog.tableExists("t")


class SparkDriver(ApiDriver):
    """The model's statements on Spark, through the Python API (table ``default.t``)."""

    def __init__(self, spark: Any, ddl: AtomicDDL) -> None:
        self.spark, self.ddl = spark, ddl

    def run(self, step: str, rows: tuple[int, ...]) -> Any:
        query = " UNION ALL ".join(f"SELECT CAST({value} AS INT) AS x" for value in rows) or \
            "SELECT CAST(1 AS INT) AS x WHERE false"
        if step == "create":
            return self.ddl.create_table("t", using="parquet", as_select=query)
        if step == "replace":
            return self.ddl.create_or_replace_table("t", using="parquet", as_select=query)
        if step == "insert":
            return self.ddl.insert_into("t", as_select=query)
        if step == "truncate":
            return self.ddl.truncate_table("t")
        return self.ddl.drop_tables(["t"])

    def content(self) -> Any:
        if not self.spark.catalog.tableExists("t"):
            return None
        return sorted(rows_of(self.spark.sql("SELECT * FROM t")))


def test_a_history_of_every_kind_of_statement_agrees_with_the_model_of_versions_on_spark(clean_spark, tmp_path,
                                                                                        monkeypatch):
    """The short Spark variant of tests/unit/test_version_model.py: one history through every kind of statement,
    every RESTORE form and an expiry, checked against the model after each statement."""
    from tests.version_model import RETENTION, Model, fake_clock, play

    steps = [("create", (1, 2)), ("insert", (3,)), ("replace", (4,)), ("restore_ts", 2), ("truncate", ()),
             ("restore_version", 0), ("drop", ()), ("restore_ts", 3), ("undrop", ()), ("expire", RETENTION / 2),
             ("replace", (5, 6)), ("expire", RETENTION / 2 + 1), ("restore_ts", 1), ("restore_ts", 6),
             ("restore_ts", 0)]
    clock = fake_clock(monkeypatch, frozen=False)
    with AtomicDDL(spark=clean_spark, home=tmp_path / "home", retention_seconds=RETENTION,
                   grace_seconds=RETENTION) as ddl:

        def check(condition: bool, what: str) -> None:
            assert condition, what

        play(SparkDriver(clean_spark, ddl), Model(clock), steps, check, times=False)


@pytest.mark.parametrize("body", ["VALUES (1, 2)", "SELECT 'a', 'b', 'c'", "(nosuch) VALUES (1)",
                                  "SELECT * FROM nosuch_source", "PARTITION (p = 1) VALUES (1)"])
def test_finding10_a_refused_insert_into_writes_nothing_not_even_briefly(clean_spark, tmp_path, body):
    """Issue 36, finding 10: a refused INSERT INTO appended to the log and created a work table, then undid both.
    Spark's analyzer checks the INSERT against the table first; nothing is logged and no table is made."""
    spark = clean_spark
    spark.sql("CREATE TABLE t (a INT) USING parquet")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("INSERT INTO t VALUES (7)")  # the session and the home warmed up
        made: list[str] = []
        create = ddl.catalog.data.create

        def spy(name: Any, *args: Any, **kwargs: Any) -> Any:
            made.append(str(name))
            return create(name, *args, **kwargs)

        ddl.catalog.data.create = spy  # type: ignore[method-assign]
        size, events = ddl.log.size, len(ddl.binlog_events())
        with pytest.raises(Exception) as refused:
            ddl.sql(f"INSERT INTO t {body}")
        assert isinstance(refused.value, DDLLogError), refused.value
        assert made == [] and ddl.log.size == size and len(ddl.binlog_events()) == events
    assert rows_of(spark.sql("SELECT * FROM t")) == [(7,)]
    assert [t.name for t in spark.catalog.listTables()] == ["t"]


def test_finding9_names_up_to_the_metastores_limits_work_in_every_statement_on_spark(clean_spark, tmp_path):
    """Issue 36, finding 9: every statement refused names over 128 characters. The metastore (Derby and PostgreSQL
    alike: its JDO model) takes tables and views up to 256, databases and functions up to 128; a managed table's
    directory bounds tables at 255 on a local file system (Spark's own error there)."""
    from ddl_log import InvalidNameError

    spark = clean_spark
    table, renamed, view, database = "t" * 200, "r" * 250, "v" * 256, "d" * 128
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0, retention_seconds=3600) as ddl:
        ddl.sql(f"CREATE TABLE {table} (a INT) USING parquet")
        ddl.sql(f"INSERT INTO {table} VALUES (1), (2)")
        ddl.sql(f"CREATE OR REPLACE TABLE {table} USING parquet AS SELECT a + 10 AS a FROM {table}")
        ddl.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('k' = 'v')")
        ddl.sql(f"TRUNCATE TABLE {table}")
        [history] = ddl.sql(f"DESCRIBE HISTORY {table}")
        ddl.sql(f"RESTORE TABLE {table} TO VERSION AS OF {history.result.rows[1].version}")
        assert rows_of(spark.sql(f"SELECT a FROM {table} ORDER BY a")) == [(11,), (12,)]
        ddl.sql(f"ALTER TABLE {table} RENAME TO {renamed}")
        ddl.sql(f"DROP TABLE {renamed}")
        ddl.sql(f"UNDROP TABLE {renamed}")
        assert rows_of(spark.sql(f"SELECT a FROM {renamed} ORDER BY a")) == [(11,), (12,)]
        ddl.sql(f"CREATE VIEW {view} AS SELECT 1 AS one")
        assert rows_of(spark.sql(f"SELECT * FROM {view}")) == [(1,)]
        ddl.sql(f"DROP VIEW {view}")
        ddl.sql(f"CREATE DATABASE {database}")
        ddl.sql(f"CREATE TABLE {database}.x USING parquet AS SELECT 1 AS a")
        ddl.sql(f"DROP DATABASE {database} CASCADE")
        with pytest.raises(InvalidNameError, match="maximum length of 128"):
            ddl.sql(f"CREATE DATABASE {'d' * 129}")
        with pytest.raises(InvalidNameError, match="maximum length of 256"):
            ddl.sql(f"CREATE VIEW {'v' * 257} AS SELECT 1 AS one")


PARTITIONED = "CREATE TABLE pt USING parquet PARTITIONED BY (p) AS SELECT id AS a, id % 3 AS p FROM range(30)"


@pytest.mark.parametrize("point", ["drop_partitioned.external", "drop_partitioned.renamed",
                                   "create_partitioned.created", "create_partitioned.partitions_added"])
def test_finding11_every_crash_point_of_a_partitioned_drop_or_undrop_recovers_to_before_or_after(
        clean_spark, tmp_path, point):
    """The name goes before the partitions (DROP) and the partitions come before the tracked definition (UNDROP):
    a crash between the metastore calls, then recovery: the DROP is finished (no holder table left), the UNDROP is
    undone (the version still kept); both then run, and the table reads whole."""
    from tests import crashkit
    from tests.spark.sweep_support import user_tables

    spark = clean_spark
    spark.sql(PARTITIONED)
    whole = sorted(rows_of(spark.sql("SELECT * FROM pt")))

    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600, compact_bytes=0)

    if point.startswith("drop"):
        assert crashkit.crash_at(opener, lambda d: d.drop_tables(["pt"]), point, 1)
        with opener() as ddl:  # recovery finishes the drop
            assert not spark.catalog.tableExists("pt") and user_tables(spark) == set()
            assert ddl.active_chains() == [] and [r.table for r in ddl.show_tables_dropped().rows] == ["default.pt"]
            ddl.undrop_table("pt")
    else:
        with opener() as ddl:
            ddl.drop_tables(["pt"])
        assert crashkit.crash_at(opener, lambda d: d.undrop_table("pt"), point, 1)
        with opener() as ddl:  # recovery undoes the undrop
            assert not spark.catalog.tableExists("pt") and ddl.active_chains() == []
            assert [r.table for r in ddl.show_tables_dropped().rows] == ["default.pt"]
            ddl.undrop_table("pt")
    assert sorted(rows_of(spark.sql("SELECT * FROM pt"))) == whole
    assert len(spark.sql("SHOW PARTITIONS pt").collect()) == 3


OUTSIDE_POINTS = ["create_partitioned.holder_created", "create_partitioned.holder_filled",
                  "create_partitioned.holder_renamed"]


@pytest.mark.parametrize("point", [None, *OUTSIDE_POINTS])
def test_finding11_an_undrop_of_a_table_with_a_partition_outside_its_directory_is_never_read_partly(
        clean_spark, tmp_path, point):
    """A partition plain Spark put outside the table's directory (``ADD PARTITION ... LOCATION``) is one a listing of
    the directory never finds: UNDROP makes such a table whole under a holder name and then gives it its name. A
    crash at any point between, then recovery: the UNDROP undone, no holder left in SHOW TABLES, the version still
    kept; UNDROP again gives every row, the outside partition's included."""
    from tests import crashkit
    from tests.spark.sweep_support import user_tables

    spark = clean_spark
    spark.sql(PARTITIONED)
    spark.sql(f"ALTER TABLE pt ADD PARTITION (p = 9) LOCATION '{tmp_path / 'outside' / 'p=9'}'")
    spark.sql("INSERT INTO pt PARTITION (p = 9) VALUES (90), (91)")
    whole = sorted(rows_of(spark.sql("SELECT * FROM pt")))
    assert (90, 9) in whole

    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=600, compact_bytes=0)

    with opener() as ddl:
        ddl.drop_tables(["pt"])
    if point is not None:
        assert crashkit.crash_at(opener, lambda d: d.undrop_table("pt"), point, 1)
        with opener() as ddl:  # recovery undoes the undrop, its holder included
            assert user_tables(spark) == set() and ddl.active_chains() == []
            assert [r.table for r in ddl.show_tables_dropped().rows] == ["default.pt"]
    with opener() as ddl:
        ddl.undrop_table("pt")
    assert user_tables(spark) == {"pt"}
    assert sorted(rows_of(spark.sql("SELECT * FROM pt"))) == whole
    assert len(spark.sql("SHOW PARTITIONS pt").collect()) == 4
    table_type = [r for r in spark.sql("DESCRIBE TABLE EXTENDED pt").collect() if r["col_name"] == "Type"]
    assert table_type[0]["data_type"] == "MANAGED"
