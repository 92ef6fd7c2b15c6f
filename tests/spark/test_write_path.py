"""INSERT OVERWRITE of an unpartitioned table on real Spark takes the write path
(:mod:`replace_table.plans.write_path`): the new rows are written straight into the new version's own directory and
the table is pointed there in one metastore call; no work table is ever in the metastore, no data is renamed, and a
statement that fails leaves catalog, warehouse, log and binlog as they were. A CTAS of a new table takes the same way
(the create path's direct create): Spark's own CTAS writes the rows at the work table's directory and the table is
created there from the record Spark would make, equal to plain Spark's CTAS's. The crash sweeps of both are proofs
(``make proofs``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests import crashkit
from tests.spark.sweep_support import assert_clean_log, crash_then_recover, restore, snapshot, spark_worthy
from tests.spark.test_replace_sweep import sweep

pytestmark = pytest.mark.spark


@pytest.fixture
def ddl(spark: Any, tmp_path: Path, clean_spark: Any) -> Any:
    spark.sql("CREATE TABLE t (a INT, b STRING) USING parquet COMMENT 'kept' TBLPROPERTIES ('team' = 'etl')")
    spark.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    atomic = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    yield atomic
    atomic.close()


def rows(spark: Any, name: str = "t") -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in spark.table(name).collect())


def names(spark: Any) -> set[str]:
    return {row["tableName"] for row in spark.sql("SHOW TABLES").collect()}


def warehouse_entries(warehouse: Path) -> set[str]:
    return {entry.name for entry in warehouse.iterdir()}


def test_an_overwrite_writes_its_rows_into_a_new_directory_with_no_work_table(ddl, spark, warehouse):
    old_location = ddl.catalog.definitions.table_location(ddl_table("t"))
    result = ddl.insert_overwrite("t", as_select="SELECT a + 10, upper(b) FROM t UNION ALL SELECT 3, 'z'")
    assert result.path == "write"
    assert rows(spark) == [(3, "z"), (11, "X"), (12, "Y")]  # the query read the table it replaced
    location = ddl.catalog.definitions.table_location(ddl_table("t"))
    assert location != old_location and names(spark) == {"t"}
    metadata = ddl.catalog.definitions.table_metadata(ddl_table("t"))
    assert metadata is not None and metadata.comment == "kept" and dict(metadata.properties)["team"] == "etl"
    assert ddl.binlog_events()[-1].statement.startswith("INSERT OVERWRITE")


def test_a_dataframe_is_written_the_same_way(ddl, spark):
    frame = spark.range(3).selectExpr("CAST(id AS INT) AS a", "'d' AS b")
    assert ddl.insert_overwrite("t", df=frame).path == "write"
    assert rows(spark) == [(0, "d"), (1, "d"), (2, "d")]


def test_spark_casts_the_rows_to_the_table_types_as_its_insert_does(ddl, spark):
    ddl.insert_overwrite("t", as_select="SELECT 7L, 8")
    assert rows(spark) == [(7, "8")]
    assert [field.dataType.simpleString() for field in spark.table("t").schema] == ["int", "string"]


@pytest.mark.parametrize("query", ["SELECT 1", "SELECT nope FROM range(1)", "SELECT raise_error('boom'), 'x'"])
def test_a_failed_overwrite_leaves_everything_as_it_was(ddl, spark, warehouse, query):
    """Refused by Spark's analysis (before anything is logged) or failed while its job ran (the directory removed)."""
    before = (rows(spark), names(spark), warehouse_entries(warehouse), len(ddl.binlog_events()))
    with pytest.raises(Exception):  # noqa: B017 - each the INSERT's own error, checked by the differential suite
        ddl.insert_overwrite("t", as_select=query)
    assert (rows(spark), names(spark), warehouse_entries(warehouse), len(ddl.binlog_events())) == before


def test_a_partitioned_overwrite_is_written_at_its_version_with_the_kept_partitions_linked(ddl, spark):
    """Every partition column dynamic: the job writes the new version's partitions straight into its directory (no
    work table) and their records are made from what it wrote; in dynamic mode the partitions no row goes to are the
    old files, hard-linked into the new version (the same inodes: no byte copied), which the old version's deletion
    (no grace period here) leaves in place."""
    from storage.catalogs.spark.profile import local_path

    spark.sql("CREATE TABLE p (a INT, d STRING) USING parquet PARTITIONED BY (d)")
    spark.sql("INSERT INTO p VALUES (1, 'x'), (2, 'y'), (3, NULL)")

    def files(partition: str) -> dict[str, int]:
        where = local_path(str(spark.sql(f"DESCRIBE TABLE EXTENDED p PARTITION ({partition})")
                               .where("col_name = 'Location'").collect()[0][1]))
        assert where is not None
        return {path.name: path.stat().st_ino for path in where.glob("*.parquet")}

    kept = files("d='y'")
    assert ddl.insert_overwrite("p", as_select="SELECT 10, 'x' UNION ALL SELECT 11, 'z'",
                                overwrite_mode="dynamic").path == "write"
    assert names(spark) == {"t", "p"} and files("d='y'") == kept
    assert rows(spark, "p") == [(2, "y"), (3, None), (10, "x"), (11, "z")]
    assert sorted(row[0] for row in spark.sql("SHOW PARTITIONS p").collect()) == [
        "d=__HIVE_DEFAULT_PARTITION__", "d=x", "d=y", "d=z"]
    assert ddl.insert_overwrite("p", as_select="SELECT 20, 'w'").path == "write"  # the whole table replaced
    assert rows(spark, "p") == [(20, "w")] and spark.sql("SHOW PARTITIONS p").count() == 1


def test_a_static_partition_overwrite_is_written_at_its_version_with_the_other_partitions_linked(ddl, spark):
    """``PARTITION (d='y')``: the rows go to the static value's directory in the new version, every other partition
    is linked; with no row, the partition is registered empty, its directory made, as plain Spark's INSERT leaves
    it."""
    from storage.catalogs.spark.profile import local_path

    spark.sql("CREATE TABLE p (a INT, d STRING) USING parquet PARTITIONED BY (d)")
    spark.sql("INSERT INTO p VALUES (1, 'x'), (2, 'y')")

    def location(partition: str) -> Path:
        where = local_path(str(spark.sql(f"DESCRIBE TABLE EXTENDED p PARTITION ({partition})")
                               .where("col_name = 'Location'").collect()[0][1]))
        assert where is not None
        return where

    kept = {path.name: path.stat().st_ino for path in location("d='x'").glob("*.parquet")}
    assert ddl.insert_overwrite("p", as_select="SELECT 20", partition={"d": "y"}).path == "write"
    assert rows(spark, "p") == [(1, "x"), (20, "y")] and names(spark) == {"t", "p"}
    assert {path.name: path.stat().st_ino for path in location("d='x'").glob("*.parquet")} == kept
    assert ddl.insert_overwrite("p", as_select="SELECT 30 WHERE false", partition={"d": "z"}).path == "write"
    assert rows(spark, "p") == [(1, "x"), (20, "y")]
    assert sorted(row[0] for row in spark.sql("SHOW PARTITIONS p").collect()) == ["d=x", "d=y", "d=z"]
    assert location("d='z'").is_dir() and not any(location("d='z'").iterdir())


NOT_WRITTEN_IN_PLACE = {
    "escaped-static-value": ("CREATE TABLE p (a INT, d STRING) USING parquet PARTITIONED BY (d)",
                             {"as_select": "SELECT 2", "partition": {"d": "y/z"}}, [(1, "x"), (2, "y/z")]),
    "bucketed": ("CREATE TABLE p (a INT, d STRING) USING parquet PARTITIONED BY (d) CLUSTERED BY (a) INTO 2 BUCKETS",
                 {"as_select": "SELECT 2, 'y'"}, [(2, "y")]),
    "hive-serde": ("CREATE TABLE p (a INT) PARTITIONED BY (d STRING) STORED AS PARQUET",
                   {"as_select": "SELECT 2, 'y'"}, [(1, "x"), (2, "y")]),  # Hive's: the written partitions only
}
"""Partitioned overwrites the write path does not take: a spec of static values only that Spark does not store as
written (``d='y/z'`` is the directory ``d=y%2Fz``, ``k='01'`` of an INT column is ``k=1``: the empty partition such a
spec names is made from the values as written), buckets, a Hive serde table (Hive's own insert)."""


@pytest.mark.parametrize("kind", NOT_WRITTEN_IN_PLACE)
def test_a_partitioned_overwrite_the_write_path_cannot_take_is_still_built_under_a_work_table(ddl, spark, kind):
    table, overwrite, expected = NOT_WRITTEN_IN_PLACE[kind]
    spark.sql(table)
    spark.sql("INSERT INTO p VALUES (1, 'x')")
    assert ddl.insert_overwrite("p", **overwrite).path in ("swap", "rename")
    assert rows(spark, "p") == expected


def test_crash_at_every_point_of_a_partitioned_overwrite_written_in_place(spark, warehouse, tmp_path, clean_spark):
    """A dynamic overwrite replacing some partitions and keeping the others: every crash point, then recovery: the
    old rows or the new, exactly the expected tables, no orphan directory (the new version's, links included)."""
    def overwrite(d: AtomicDDL) -> Any:
        result = d.insert_overwrite("t", as_select="SELECT a + 100, b FROM t WHERE b = 'x1'", overwrite_mode="dynamic")
        assert result.path == "write"
        return result

    outcomes = sweep(spark, warehouse, tmp_path, overwrite, binlog=True, partitioned=True)
    assert outcomes[0] == "old" and outcomes[-1] == "new"


def test_crash_at_every_point_of_a_static_partition_overwrite_written_in_place(spark, warehouse, tmp_path,
                                                                               clean_spark):
    """``PARTITION (b='x1')`` in static mode: every crash point, then recovery: the old rows or the new, exactly the
    expected tables, no orphan directory."""
    def overwrite(d: AtomicDDL) -> Any:
        result = d.insert_overwrite("t", as_select="SELECT a + 100 FROM t WHERE b = 'x1'", partition={"b": "x1"},
                                    overwrite_mode="static")
        assert result.path == "write"
        return result

    outcomes = sweep(spark, warehouse, tmp_path, overwrite, binlog=True, partitioned=True)
    assert outcomes[0] == "old" and outcomes[-1] == "new"


def test_the_path_makes_no_work_table_at_any_step(ddl, tmp_path):
    """The trace of the statement's crash points: the work table's create never runs."""
    trace = crashkit.trace(lambda: AtomicDDL(spark=ddl.spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.insert_overwrite("t", as_select="SELECT a + 1, b FROM t"))
    points = [point for point, _ in trace]
    assert "replace.fill_tmp.before" in points and "replace.exchange.before" in points
    assert not any(point.startswith("replace.create_tmp") for point in points)


def test_crash_at_every_point_of_an_overwrite_written_in_place(spark, warehouse, tmp_path, clean_spark):
    """Every crash point, then recovery: the old rows or the new, exactly the expected tables, no orphan directory."""
    overwrite = lambda d: d.insert_overwrite("t", as_select="SELECT a + 100, b FROM t")  # noqa: E731
    outcomes = sweep(spark, warehouse, tmp_path, overwrite, binlog=True)
    assert outcomes[0] == "old" and outcomes[-1] == "new"


def ddl_table(name: str) -> Any:
    from storage.catalogs.names import TableName

    return TableName.of(name)


def test_a_ctas_writes_its_rows_and_creates_its_table_at_a_new_directory_with_no_work_table(ddl, spark, tmp_path):
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.create_table("c", as_select="SELECT id, concat('r', id) AS s FROM range(5)"))
    points = [point for point, _ in trace]
    assert "replace.install.before" in points
    assert not any(point.startswith(("replace.create_tmp", "replace.forget_tmp")) for point in points)
    assert rows(spark, "c") == [(i, f"r{i}") for i in range(5)] and names(spark) == {"t", "c"}
    assert spark.catalog.getTable("c").tableType == "MANAGED"
    location = ddl.catalog.definitions.table_location(ddl_table("c")) or ""
    assert location.rstrip("/").rsplit("/", 1)[-1] != "c"  # a directory of its own, never the name's


def test_a_ctas_as_sql_keeps_what_spark_shows_of_its_table(ddl, spark):
    ddl.sql("CREATE TABLE c USING parquet TBLPROPERTIES ('team' = 'etl') COMMENT 'made' AS SELECT 1 AS x")
    spark.sql("CREATE TABLE p USING parquet TBLPROPERTIES ('team' = 'etl') COMMENT 'made' AS SELECT 1 AS x")
    shown = [spark.sql(f"SHOW CREATE TABLE {name}").first()[0].replace(f".{name} ", ".X ") for name in ("c", "p")]
    assert shown[0] == shown[1]
    assert spark.sql("SHOW TBLPROPERTIES c").collect() == spark.sql("SHOW TBLPROPERTIES p").collect()


@pytest.mark.parametrize("query", ["SELECT nope FROM range(1)", "SELECT raise_error('boom') AS x"])
def test_a_failed_ctas_leaves_everything_as_it_was(ddl, spark, warehouse, query):
    before = (names(spark), warehouse_entries(warehouse), len(ddl.binlog_events()))
    with pytest.raises(Exception):  # noqa: B017 - each the CREATE's own error, checked by the differential suite
        ddl.create_table("c", as_select=query)
    assert (names(spark), warehouse_entries(warehouse), len(ddl.binlog_events())) == before


def test_crash_at_every_point_of_a_ctas_created_in_place(spark, warehouse, tmp_path, clean_spark):
    """Every crash point, then recovery: no table or the new one whole, no orphan directory, binlog agreeing."""
    spark.sql("CREATE TABLE src (s DOUBLE, z STRING) USING parquet")
    create = lambda d: d.create_table("c", as_select="SELECT id AS n, 'new' AS w FROM range(30)")  # noqa: E731
    before = snapshot(spark, warehouse)
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0), create)
    assert not any(point.startswith("replace.create_tmp") for point, _ in trace)
    after = snapshot(spark, warehouse)
    new = after.rows("c")
    restore(spark, warehouse, ["CREATE TABLE src (s DOUBLE, z STRING) USING parquet"], before, after)
    for index, (point, nth) in enumerate(spark_worthy(trace)):
        opener = lambda i=index: AtomicDDL(spark=spark, home=tmp_path / f"case{i}", grace_seconds=0)  # noqa: E731
        events = crash_then_recover(opener, create, point, nth)
        state = snapshot(spark, warehouse)
        expected = {"src", "c"} if events else {"src"}
        assert state.names() == expected, (point, nth)
        assert state.dirs == state.table_dirs(expected), (point, nth)
        if events:
            assert state.rows("c") == new and state.kind("c") == "MANAGED", (point, nth)
        restore(spark, warehouse, ["CREATE TABLE src (s DOUBLE, z STRING) USING parquet"], before, state)


CTAS_SHAPES = [
    "USING parquet AS SELECT id, CAST(id AS STRING) AS `Mixed Case`, CAST('a' AS CHAR(3)) AS c,"
    " CAST('b' AS VARCHAR(5)) AS v FROM range(3)",
    "USING orc OPTIONS ('compression' = 'zlib') COMMENT 'o' AS SELECT 1.5BD AS d, DATE'2024-01-02' AS day",
    "USING json TBLPROPERTIES ('k' = 'v') AS SELECT map('a', 1) AS m, array(1, 2) AS a, named_struct('x', 1) AS st",
    "USING parquet AS SELECT parse_json('{\"a\": 1}') AS doc, 'x' AS y",
    # the metastore refuses the Hive-compatible record (a column name longer than its column), Spark falls back
    "USING parquet AS SELECT 1 AS `" + "x" * 800 + "`",
    "USING parquet AS SELECT named_struct('a:b', 1) AS s, 1 AS `a,b`",
]
"""CTAS forms whose tables Spark records differently: Hive-compatible (parquet, ORC, with options, CHAR/VARCHAR kept
raw), a provider Hive cannot read (JSON: Spark's own form of record), a type Hive cannot store (VARIANT), a record
the metastore refuses in Hive's form (Spark then stores its own)."""


@pytest.mark.parametrize("shape", CTAS_SHAPES)
def test_a_ctas_created_in_place_is_the_table_plain_sparks_ctas_makes(ddl, spark, shape):
    """The record made without the work table is Spark's own: what DESCRIBE shows, the table's properties, storage
    options, schema, statistics, owner and creating version, beside plain Spark's CTAS of the same text."""
    ddl.sql(f"CREATE TABLE c {shape}")
    spark.sql(f"CREATE TABLE p {shape}")
    assert described(spark, "c") == described(spark, "p")
    assert recorded(spark, "c") == recorded(spark, "p")
    assert sorted(map(str, spark.table("c").collect())) == sorted(map(str, spark.table("p").collect()))


def described(spark: Any, name: str) -> list[tuple[str, str]]:
    return [(row.col_name, row.data_type) for row in spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()
            if row.col_name not in ("Table", "Location", "Created Time")]


def recorded(spark: Any, name: str) -> dict[str, str]:
    table = spark._jsparkSession.sharedState().externalCatalog().getTable("default", name)
    storage = {key: value for key, value in dict_of(spark, table.storage().properties()).items() if key != "path"}
    properties = {key: value for key, value in dict_of(spark, table.properties()).items()
                  if key != "transient_lastDdlTime"}
    return {"properties": str(sorted(properties.items())), "storage": str(sorted(storage.items())),
            "schema": table.schema().json(), "stats": str(table.stats()), "owner": table.owner(),
            "version": table.createVersion(), "provider": str(table.provider()), "type": str(table.tableType()),
            "serde": str(table.storage().serde()), "input": str(table.storage().inputFormat())}


def dict_of(spark: Any, scala_map: Any) -> dict[str, str]:
    return dict(spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(scala_map))


def test_a_dataframes_ctas_is_created_in_place_as_plain_sparks_save_as_table_makes_it(ddl, spark, tmp_path):
    """A DataFrame's CTAS (``saveAsTable`` of a new name, routed) takes the same way: no work table, and the table
    equals the one plain Spark's ``saveAsTable`` makes."""
    frame = lambda: spark.range(4).selectExpr("id", "concat('r', id) AS s")  # noqa: E731
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.create_table("c", df=frame(), using="parquet"))
    assert not any(point.startswith(("replace.create_tmp", "replace.forget_tmp")) for point, _ in trace)
    spark.sql("DROP TABLE c")
    ddl.create_table("c", df=frame(), using="parquet")
    frame().write.format("parquet").saveAsTable("p")
    assert described(spark, "c") == described(spark, "p")
    assert recorded(spark, "c") == recorded(spark, "p")
    assert rows(spark, "c") == rows(spark, "p") == [(i, f"r{i}") for i in range(4)]


def test_a_create_or_replace_writes_its_rows_at_a_new_directory_with_no_work_table(ddl, spark, tmp_path):
    """A CTAS over an existing unpartitioned table takes the write path: Spark's CTAS writes the new version's
    directory and the table takes the record Spark would make there, in one metastore call; the query reads the
    table it replaces."""
    old_location = ddl.catalog.definitions.table_location(ddl_table("t"))
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.create_or_replace_table("t", as_select="SELECT a + 10 AS n FROM t"))
    points = [point for point, _ in trace]
    assert "replace.fill_tmp.before" in points and "replace.exchange.before" in points
    assert not any(point.startswith(("replace.create_tmp", "replace.forget_tmp")) for point in points)
    spark.sql("DROP TABLE t")
    spark.sql("CREATE TABLE t (a INT, b STRING) USING parquet")
    spark.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    result = ddl.create_or_replace_table("t", as_select="SELECT a + 10 AS n, upper(b) AS u FROM t")
    assert result.path == "write"
    assert rows(spark) == [(11, "X"), (12, "Y")] and names(spark) == {"t"}
    location = ddl.catalog.definitions.table_location(ddl_table("t")) or ""
    assert location != old_location and location.rstrip("/").rsplit("/", 1)[-1] != "t"
    assert spark.catalog.getTable("t").tableType == "MANAGED"
    assert ddl.binlog_events()[-1].statement.startswith("CREATE OR REPLACE TABLE")


@pytest.mark.parametrize("shape", CTAS_SHAPES)
def test_a_create_or_replace_written_in_place_is_the_table_plain_sparks_ctas_makes(ddl, spark, shape):
    """The table a replace installs from the record made without the work table is the one plain Spark's DROP and
    CTAS of the same text make: what DESCRIBE shows, properties, storage options, schema, statistics, owner."""
    ddl.sql(f"CREATE OR REPLACE TABLE t {shape}")
    spark.sql(f"CREATE TABLE p {shape}")
    assert described(spark, "t") == described(spark, "p")
    assert recorded(spark, "t") == recorded(spark, "p")
    assert sorted(map(str, spark.table("t").collect())) == sorted(map(str, spark.table("p").collect()))


@pytest.mark.parametrize("query", ["SELECT nope FROM range(1)", "SELECT raise_error('boom') AS x"])
def test_a_failed_create_or_replace_leaves_everything_as_it_was(ddl, spark, warehouse, query):
    before = (rows(spark), names(spark), warehouse_entries(warehouse), len(ddl.binlog_events()))
    with pytest.raises(Exception):  # noqa: B017 - each the CREATE's own error, checked by the differential suite
        ddl.create_or_replace_table("t", as_select=query)
    assert (rows(spark), names(spark), warehouse_entries(warehouse), len(ddl.binlog_events())) == before


@pytest.mark.parametrize("table", [
    "CREATE TABLE h (a INT, b STRING) STORED AS PARQUET",
    "CREATE TABLE h (a INT, b STRING) USING parquet PARTITIONED BY (b)",
], ids=["hive-serde", "partitioned"])
def test_a_create_or_replace_of_a_table_the_swap_cannot_take_still_builds_a_work_table(ddl, spark, table):
    spark.sql(table)
    spark.sql("INSERT INTO h VALUES (1, 'x')")
    result = ddl.create_or_replace_table("h", as_select="SELECT 2 AS a, 'y' AS b")
    assert result.path in ("swap", "rename") and rows(spark, "h") == [(2, "y")]


def test_crash_at_every_point_of_a_create_or_replace_written_in_place(spark, warehouse, tmp_path, clean_spark):
    """Every crash point, then recovery: the old table or the new one, whole, no orphan directory."""
    replace = lambda d: d.create_or_replace_table("t", as_select="SELECT a + 100 AS n, b FROM t")  # noqa: E731
    outcomes = sweep(spark, warehouse, tmp_path, replace, binlog=True)
    assert outcomes[0] == "old" and outcomes[-1] == "new"


COLUMN_SHAPES = [
    "(a INT, b STRING) USING parquet",
    "(id BIGINT COMMENT 'the id', `Mixed Case` STRING, c CHAR(3), v VARCHAR(5)) USING parquet COMMENT 'made'"
    " TBLPROPERTIES ('team' = 'etl')",
    "(d DECIMAL(10, 2), day DATE, ts TIMESTAMP_NTZ) USING orc OPTIONS ('compression' = 'zlib')",
    "(m MAP<STRING, INT>, a ARRAY<INT>, st STRUCT<x: INT>) USING json",
    "(doc VARIANT, y STRING NOT NULL) USING parquet",
    "(a INT, b STRING DEFAULT 'none') USING csv",
    # the metastore refuses the Hive-compatible record (a column name longer than its column), Spark falls back
    "(`" + "x" * 800 + "` INT) USING parquet",
    "(s STRUCT<`a:b`: INT>, `a,b` INT) USING parquet",
]
"""CREATE TABLE forms of columns whose tables Spark records differently (as :data:`CTAS_SHAPES`), with what only a
definition of columns gives: column comments, NOT NULL, a DEFAULT value."""


@pytest.mark.parametrize("shape", COLUMN_SHAPES)
def test_a_create_table_of_columns_is_made_in_place_as_plain_sparks_create_makes_it(ddl, spark, tmp_path, shape):
    """A CREATE TABLE of columns of a file source takes the direct create too (no work table): the table equals
    plain Spark's CREATE TABLE of the same text, and takes rows as it does."""
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.sql(f"CREATE TABLE c {shape}"))
    assert not any(point.startswith(("replace.create_tmp", "replace.forget_tmp")) for point, _ in trace)
    spark.sql(f"CREATE TABLE p {shape}")
    assert described(spark, "c") == described(spark, "p")
    assert recorded(spark, "c") == recorded(spark, "p")
    location = ddl.catalog.definitions.table_location(ddl_table("c")) or ""
    assert location.rstrip("/").rsplit("/", 1)[-1] != "c"  # a directory of its own, never the name's
    for name in ("c", "p"):
        spark.sql(f"INSERT INTO {name} SELECT * FROM {name}")  # no rows, and a directory to write into
    assert spark.table("c").count() == spark.table("p").count() == 0


@pytest.mark.parametrize("table", [
    "CREATE TABLE h (a INT, b STRING) STORED AS PARQUET",
    "CREATE TABLE h (a INT, b STRING) USING parquet PARTITIONED BY (b)",
    "CREATE TABLE h (a INT, b STRING) USING parquet CLUSTERED BY (a) INTO 2 BUCKETS",
], ids=["hive-serde", "partitioned", "bucketed"])
def test_a_create_table_the_direct_create_cannot_take_is_built_under_a_work_table(ddl, spark, tmp_path, table):
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0),
                           lambda d: d.sql(table))
    assert any(point.startswith("replace.create_tmp") for point, _ in trace)
    assert spark.catalog.tableExists("h")


def test_crash_at_every_point_of_a_create_table_of_columns_made_in_place(spark, warehouse, tmp_path, clean_spark):
    """Every crash point, then recovery: no table or the new one, no orphan directory, binlog agreeing."""
    create = lambda d: d.sql("CREATE TABLE c (n BIGINT, w STRING) USING parquet")  # noqa: E731
    before = snapshot(spark, warehouse)
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0), create)
    assert not any(point.startswith("replace.create_tmp") for point, _ in trace)
    after = snapshot(spark, warehouse)
    restore(spark, warehouse, [], before, after)
    for index, (point, nth) in enumerate(spark_worthy(trace)):
        opener = lambda i=index: AtomicDDL(spark=spark, home=tmp_path / f"case{i}", grace_seconds=0)  # noqa: E731
        events = crash_then_recover(opener, create, point, nth)
        state = snapshot(spark, warehouse)
        expected = {"c"} if events else set()
        assert state.names() == expected, (point, nth)
        assert state.dirs == state.table_dirs(expected), (point, nth)
        if events:
            assert state.kind("c") == "MANAGED" and spark.table("c").columns == ["n", "w"], (point, nth)
        restore(spark, warehouse, [], before, state)


@pytest.mark.parametrize("newcomer", [
    "CREATE TABLE t (who STRING) USING parquet LOCATION '{location}'",
    "CREATE VIEW t AS SELECT 'someone else' AS who",
], ids=["table", "view"])
def test_crash_at_every_point_of_a_create_or_replace_written_in_place_then_a_newcomer_takes_its_name(
        spark, warehouse, tmp_path, clean_spark, newcomer):
    """Crash anywhere in a CREATE OR REPLACE AS SELECT written in place; before the home recovers, plain Spark drops
    the table and makes its own object under the name. Recovery leaves the newcomer exactly as its maker left it,
    its files included, and nothing of the statement behind: no directory in the warehouse, a clean log."""
    from tests.conftest import reset_spark

    setup = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS a, 'old' AS b FROM range(20)"
    replace = lambda d: d.create_or_replace_table("t", as_select="SELECT a + 100 AS n, b FROM t")  # noqa: E731
    spark.sql(setup)
    trace = crashkit.trace(lambda: AtomicDDL(spark=spark, home=tmp_path / "trace", grace_seconds=0), replace)
    assert not any(point.startswith("replace.create_tmp") for point, _ in trace)
    for index, (point, nth) in enumerate(spark_worthy(trace)):
        reset_spark(spark, warehouse)
        spark.sql(setup)
        opener = lambda i=index: AtomicDDL(spark=spark, home=tmp_path / f"case{i}", grace_seconds=0)  # noqa: E731
        assert crashkit.crash_at(opener, replace, point, nth), (point, nth)
        location = tmp_path / f"newcomer{index}"
        spark.sql("DROP TABLE t")
        spark.sql(newcomer.format(location=location.as_uri()))
        if "TABLE" in newcomer:
            spark.sql("INSERT INTO t VALUES ('someone else')")
        files = sorted(path.name for path in location.iterdir()) if location.exists() else []
        recovered = opener()
        try:
            assert_clean_log(recovered)
        finally:
            recovered.close()
        assert rows(spark) == [("someone else",)], (point, nth)
        if "TABLE" in newcomer:
            assert spark.catalog.getTable("t").tableType == "EXTERNAL", (point, nth)
            assert sorted(path.name for path in location.iterdir()) == files, (point, nth)
        assert warehouse_entries(warehouse) == set(), (point, nth)
