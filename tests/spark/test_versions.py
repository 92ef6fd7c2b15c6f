"""Table versions on real Spark (Hive metastore, parquet): a restored or undropped table equals the version it came
from (definition, partitions, rows); UNDROP is refused naming the table while its name is taken; a kept version does
not keep plain Spark from making a table of the free name; RESTORE and UNDROP crashed around each catalog operation
and at the commit point recover to exactly before or after. (Every crash point: tests/unit/test_statement_sweeps.py.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ddl_log import AtomicDDL, NotAtomicError, ObjectExistsError
from tests import crashkit
from tests.spark.sweep_support import catalog_points, crash_then_recover, frame_state

pytestmark = pytest.mark.spark

DB = "vers"


def state(spark: Any, name: str) -> Any:
    """What a version is to a user: schema, rows, partitions, comment and user properties (None: no table)."""
    full = f"{DB}.{name}"
    if not spark.catalog.tableExists(full):
        return None
    table = spark._jsparkSession.sessionState().catalog().externalCatalog().getTable(DB, name)
    properties = {str(k): str(v) for k, v in dict(spark.sql(f"SHOW TBLPROPERTIES {full}").collect()).items()
                  if not str(k).startswith(("spark_ddl_log.", "transient_", "spark.sql."))}
    partitions = sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {full}").collect()) \
        if table.partitionColumnNames().size() else []
    return frame_state(spark.table(full)), partitions, sorted(properties.items()), str(table.comment())


def setup(spark: Any, ddl: AtomicDDL, tables: str = "pd") -> None:
    """``p`` (partitioned) and ``d``, each replaced once: a version at the name's own directory (where plain Spark
    made them) is kept for the grace period only (0 here)."""
    spark.sql(f"DROP DATABASE IF EXISTS {DB} CASCADE")
    spark.sql(f"CREATE DATABASE {DB}")
    if "p" in tables:
        spark.sql(f"CREATE TABLE {DB}.p USING parquet PARTITIONED BY (day) COMMENT 'daily' "
                  "TBLPROPERTIES ('team'='a') AS SELECT id AS v, concat('d', id % 3) AS day FROM range(9)")
        ddl.truncate_table(f"{DB}.p")  # now at a directory of its own, not at <db>/<name>
        spark.sql(f"INSERT INTO {DB}.p SELECT id AS v, concat('d', id % 3) AS day FROM range(9)")
    if "d" in tables:
        spark.sql(f"CREATE TABLE {DB}.d USING parquet AS SELECT id AS z FROM range(4)")
        ddl.create_or_replace_table(f"{DB}.d", as_select="SELECT id * 10 AS z FROM range(5)")


def open_home(spark: Any, path: Any) -> AtomicDDL:
    return AtomicDDL(spark=spark, home=path, compact_bytes=0, grace_seconds=0, retention_seconds=3600)


def test_restore_and_undrop_give_back_exactly_the_kept_version(spark, tmp_path, clean_spark):
    with open_home(spark, tmp_path / "home") as ddl:
        setup(spark, ddl)
        original = state(spark, "p")
        replaced = ddl.insert_overwrite(f"{DB}.p", as_select=f"SELECT v + 100, day FROM {DB}.p WHERE day <> 'd2'")
        assert replaced.path == "write" and replaced.version is not None  # written in place, no work table
        assert state(spark, "p") != original
        current, row = ddl.describe_history(f"{DB}.p").rows  # (the first, at <db>/p, was kept for grace 0 only)
        assert current.current and current.operation == "INSERT OVERWRITE" and row.operation == "TRUNCATE TABLE"
        assert row.version == replaced.version and row.size is not None and row.size > 0
        [described] = ddl.sql(f"DESCRIBE HISTORY {DB}.p")  # the SQL front end routes it (Spark would not)
        assert [r.version for r in described.result.rows][:2] == [current.version, replaced.version]
        ddl.restore_table(f"{DB}.p", version=replaced.version)
        assert state(spark, "p") == original
        assert spark.table(f"{DB}.p").count() == 9  # this session sees it at once

        before_drop = state(spark, "d")
        ddl.sql(f"DROP TABLE {DB}.d")
        [dropped] = ddl.sql(f"SHOW TABLES DROPPED IN {DB}")
        assert [r.table for r in dropped.result.rows] == [f"{DB}.d"]
        spark.sql(f"CREATE TABLE {DB}.d USING parquet AS SELECT 1 AS other")  # plain Spark takes the free name
        with pytest.raises(ObjectExistsError) as refused:
            ddl.undrop_table(f"{DB}.d")
        assert refused.value.name == f"{DB}.d"
        spark.sql(f"DROP TABLE {DB}.d")
        ddl.sql(f"UNDROP TABLE {DB}.d")
        assert state(spark, "d") == before_drop
        assert [event.statement.split()[0] for event in ddl.binlog_events()][-3:] == ["RESTORE", "DROP", "UNDROP"]


STATEMENTS: dict[str, tuple[Callable[[AtomicDDL], Any], Callable[[AtomicDDL], Any]]] = {
    "restore": (lambda d: d.insert_overwrite(f"{DB}.p", as_select=f"SELECT v + 1, day FROM {DB}.p"),
                lambda d: d.restore_table(f"{DB}.p", version=d.describe_history(f"{DB}.p").rows[1].version)),
    "undrop": (lambda d: d.drop_tables([f"{DB}.d"]), lambda d: d.undrop_table(f"{DB}.d")),
}
"""Each statement with what its world needs first (run through the same home: the version is kept in its log)."""


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_crash_around_every_catalog_operation_leaves_before_or_after(spark, tmp_path, clean_spark, name):
    prepare, statement = STATEMENTS[name]
    table = "p" if name == "restore" else "d"
    homes = iter(range(1000))

    def world() -> tuple[Callable[[], AtomicDDL], int]:
        path = tmp_path / f"home{next(homes)}"
        with open_home(spark, path) as ddl:
            setup(spark, ddl, table)
            prepare(ddl)
            prepared = len(ddl.binlog_events())
        return (lambda: open_home(spark, path)), prepared

    opener, _ = world()
    before = state(spark, table)
    points = crashkit.trace(opener, statement)
    after = state(spark, table)
    assert before != after
    around = set(catalog_points(points)) | {(f"{name}.log.after", 1), ("replay.before_action", 1)}
    chosen = [point for point in points if point in around]  # the install, the commit, the claim after it
    assert len(chosen) >= 5, points
    outcomes = []
    for point, nth in chosen:
        opener, prepared = world()
        events = crash_then_recover(opener, statement, point, nth)[prepared:]
        now = state(spark, table)
        assert now in (before, after), (point, nth, now)
        outcome = "after" if now == after else "before"
        assert len(events) == (1 if outcome == "after" else 0), (point, nth, events)
        second = opener()
        assert second.last_recovery.nothing_to_do
        second.close()
        outcomes.append(outcome)
    assert outcomes == sorted(outcomes, key=lambda o: o == "after"), outcomes
    assert outcomes[0] == "before" and outcomes[-1] == "after"


def test_truncate_of_an_unpartitioned_table_is_one_metastore_call_with_no_tmp_table_and_restorable(spark, tmp_path,
                                                                                                   clean_spark):
    """TRUNCATE writes no data: the new version is the table's own definition (comment and properties kept,
    statistics gone), emptied, at a new directory, installed with one ``alter_table``; no TMP table is made or
    dropped. A partitioned table takes the same path and keeps its partitions registered, as Spark's TRUNCATE does
    (each record as it was, at the same path under the new directory), and is restorable the same way."""
    with open_home(spark, tmp_path / "home") as ddl:
        setup(spark, ddl)
        spark.sql(f"ALTER TABLE {DB}.d SET TBLPROPERTIES ('team'='b')")
        spark.sql(f"COMMENT ON TABLE {DB}.d IS 'kept by truncate'")
        before = state(spark, "d")
        client = ddl.catalog.backend.metastore  # type: ignore[attr-defined]
        calls: list[str] = []
        for method in ("create", "install", "forget", "switch_partitions"):
            original = getattr(client, method)
            setattr(client, method, lambda *a, _o=original, _m=method, **k: (calls.append(_m), _o(*a, **k))[1])
        try:
            result = ddl.truncate_table(f"{DB}.d")
        finally:
            for method in ("create", "install", "forget", "switch_partitions"):
                delattr(client, method)
        assert result.path == "empty" and calls == ["install"]
        after = state(spark, "d")
        assert after[0] == frame_state(spark.sql("SELECT CAST(1 AS BIGINT) AS z WHERE false"))
        assert after[2:] == before[2:], "comment and properties as before"
        assert not [t for t in spark.catalog.listTables(DB) if t.name.startswith("ddllog_")]
        ddl.restore_table(f"{DB}.d", version=result.version)
        assert state(spark, "d") == before
        partitioned = state(spark, "p")
        partitions = spark.sql(f"SHOW PARTITIONS {DB}.p").collect()
        result = ddl.truncate_table(f"{DB}.p")
        assert result.path == "empty" and spark.table(f"{DB}.p").count() == 0
        assert spark.sql(f"SHOW PARTITIONS {DB}.p").collect() == partitions
        ddl.restore_table(f"{DB}.p", version=result.version)
        assert state(spark, "p") == partitioned


def test_a_replace_that_changes_partition_columns_keeps_the_previous_version(spark, tmp_path, clean_spark):
    """The metastore cannot change a table's partition keys in place: that replace takes the rename path, and the
    old table's files (moved with it to the backup name) stay as the previous version. RESTORE of it onto the table
    with the other partition columns would need the name missing in between: refused, naming the table, nothing
    changed; once the table has those partition columns again, it restores."""
    with open_home(spark, tmp_path / "home") as ddl:
        setup(spark, ddl, tables="p")
        before = state(spark, "p")
        result = ddl.create_or_replace_table(f"{DB}.p", as_select="SELECT id AS v, 'x' AS day FROM range(3)")
        assert result.path == "rename" and result.version is not None
        assert not [t for t in spark.catalog.listTables(DB) if t.name.startswith("ddllog_")]
        unpartitioned = state(spark, "p")
        with pytest.raises(NotAtomicError) as refused:
            ddl.restore_table(f"{DB}.p", version=result.version)
        assert refused.value.name == f"{DB}.p" and "partition" in str(refused.value)
        assert state(spark, "p") == unpartitioned
        ddl.create_or_replace_table(f"{DB}.p", as_select="SELECT 1 AS v, 'd9' AS day", partitioned_by=["day"])
        ddl.restore_table(f"{DB}.p", version=result.version)
        assert state(spark, "p") == before


def dropped_world(spark: Any, path: Any) -> tuple[Callable[[], AtomicDDL], Any, int]:
    """``m`` (partitioned, made by plain Spark at ``<db>/m``) dropped through the project, its version kept there for
    the grace period."""
    def opener() -> AtomicDDL:
        return AtomicDDL(spark=spark, home=path, compact_bytes=0, grace_seconds=600, retention_seconds=3600)

    spark.sql(f"DROP DATABASE IF EXISTS {DB} CASCADE")
    spark.sql(f"CREATE DATABASE {DB}")
    spark.sql(f"CREATE TABLE {DB}.m USING parquet PARTITIONED BY (day) "
              "AS SELECT id AS v, concat('d', id % 3) AS day FROM range(9)")
    original = state(spark, "m")
    with opener() as ddl:
        ddl.drop_tables([f"{DB}.m"])
        [dropped] = ddl.show_tables_dropped(DB).rows
        assert dropped.location.rstrip("/").endswith(f"{DB}.db/m")
    return opener, original, dropped.version


def over_dropped(ddl: AtomicDDL) -> Any:
    return ddl.create_table(f"{DB}.m", using="parquet", as_select="SELECT 'new' AS other")


def hive_over_dropped(ddl: AtomicDDL) -> Any:
    """A partitioned Hive serde table, created whole through its holder name: the version at the name's directory
    stays where it is."""
    return ddl.sql(f"CREATE TABLE {DB}.m (other STRING) PARTITIONED BY (k STRING) STORED AS parquet")


def test_a_new_table_over_a_dropped_name_leaves_the_version_where_it_is_and_undrop_brings_it_back(spark, tmp_path,
                                                                                                  clean_spark):
    """The new table is made at a directory of its own: the dropped version (partitions too) stays at ``<db>/m``
    with its number, nothing moved, and UNDROP gives it back whole once the name is free again."""
    from storage.catalogs.spark.profile import local_path

    opener, original, number = dropped_world(spark, tmp_path / "home")
    with opener() as ddl:
        over_dropped(ddl)
        assert [tuple(row) for row in spark.table(f"{DB}.m").collect()] == [("new",)]
        [kept] = ddl.show_tables_dropped(DB).rows
        assert kept.version == number and kept.location.rstrip("/").endswith(f"{DB}.db/m")
        directory = local_path(kept.location)
        assert directory is not None and sorted(p.name for p in directory.iterdir() if p.is_dir()) == [
            "day=d0", "day=d1", "day=d2"]
        ddl.drop_tables([f"{DB}.m"], purge=True)
        ddl.undrop_table(f"{DB}.m")
        assert state(spark, "m") == original
        assert spark.table(f"{DB}.m").where("day = 'd1'").count() == 3


def test_a_partitioned_hive_serde_table_over_a_dropped_name_leaves_the_version_where_it_is(
        spark, tmp_path, clean_spark):
    """A partitioned Hive serde table is created whole at a directory of its own too (through its holder name, since
    2026-12-04; it was renamed in, and the dropped version at ``<db>/m`` moved aside first): the version stays, with
    its number, and UNDROP gives it back whole."""
    opener, original, number = dropped_world(spark, tmp_path / "home")
    with opener() as ddl:
        hive_over_dropped(ddl)
        [kept] = ddl.show_tables_dropped(DB).rows
        assert kept.version == number and kept.location.rstrip("/").endswith(f"{DB}.db/m"), kept.location
        ddl.drop_tables([f"{DB}.m"], purge=True)
        ddl.undrop_table(f"{DB}.m")
        assert state(spark, "m") == original
        assert spark.table(f"{DB}.m").where("day = 'd1'").count() == 3


@pytest.mark.parametrize("statement", [over_dropped, hive_over_dropped],
                         ids=["data_source", "hive_serde_partitioned"])
def test_a_crash_anywhere_in_a_create_over_a_dropped_name_keeps_the_version_whole(spark, tmp_path, clean_spark,
                                                                                    statement):
    """Around each catalog operation, the moves (none: each new table is made at a directory of its own) and the
    commit point: recovery leaves the new table or none, and the dropped version listed once, with its number,
    readable whole by UNDROP after the name is freed."""
    homes = iter(range(1000))

    def world() -> tuple[Callable[[], AtomicDDL], Any, int]:
        return dropped_world(spark, tmp_path / f"home{next(homes)}")

    opener, _, _ = world()
    points = crashkit.trace(opener, statement)
    moves = {point for point in points if point[0].startswith("relocate_version.")}
    chosen = [point for point in points if point in set(catalog_points(points)) | moves]
    # (a data source CTAS is created in place: its install and the commit; the Hive serde one has its work table's
    # steps and its holder's)
    assert not moves and len(chosen) >= 2, points
    for point, nth in chosen:
        opener, original, number = world()
        crash_then_recover(opener, statement, point, nth)
        with opener() as ddl:
            [kept] = ddl.show_tables_dropped(DB).rows
            assert kept.version == number, (point, nth)
            ddl.drop_tables([f"{DB}.m"], if_exists=True, purge=True)
            ddl.undrop_table(f"{DB}.m")
            assert state(spark, "m") == original, (point, nth)
