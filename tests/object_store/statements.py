"""Every statement kind that writes or moves a table's data, each in a small world of its own, for the object-store
tests: what each renames on the simulated store (test_no_data_rename.py, and the inventory of issue 40:
``python -m tests.object_store.inventory``).

A case is plain Spark's setup, then what the project runs first through the same home (a version to restore, a
table to undrop), then the statement itself; only the statement's renames are counted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from ddl_log import AtomicDDL
from ddl_log.engine.alter_ops import ChangeColumnType, DropColumns
from tests.object_store.store import Rename, StoreCalls

Run = Callable[[AtomicDDL], Any]

T = "CREATE TABLE t USING parquet AS SELECT CAST(id AS INT) AS x, concat('x', id % 3) AS y FROM range(40)"
P = "CREATE TABLE p USING parquet PARTITIONED BY (d) AS SELECT id AS v, concat('d', id % 4) AS d FROM range(40)"
H = "CREATE TABLE h (x INT, y STRING) STORED AS parquet"
H_ROWS = "INSERT INTO h SELECT CAST(id AS INT), 'h' FROM range(10)"
HP = "CREATE TABLE hp (x INT) PARTITIONED BY (d STRING) STORED AS parquet"
HP_ROWS = "INSERT INTO hp SELECT /*+ REPARTITION(4) */ CAST(id AS INT), concat('d', id % 3) FROM range(30)"
SPREAD = "REPARTITION(4)"
"""Four files per statement that writes rows: a rename of the data counts each."""


P_QUERY = "SELECT /*+ REPARTITION(4) */ id AS v, concat('d', id % 4) AS d FROM range(40)"


def first_version(ddl: AtomicDDL, name: str) -> int:
    """The newest kept (not current) version of ``name``: DESCRIBE HISTORY lists the current one first."""
    return int(next(row.version for row in ddl.describe_history(name).rows if not row.current))


def made_by_the_project(ddl: AtomicDDL, then: Run | None = None) -> None:
    """``p`` made by the project's CREATE TABLE (a version it keeps, unlike a plain Spark table), then ``then``."""
    ddl.create_table("p", using="parquet", partitioned_by=["d"], as_select=P_QUERY)
    if then is not None:
        then(ddl)


SRC = ("CREATE TABLE src USING parquet PARTITIONED BY (d) AS SELECT /*+ REPARTITION(2) */ id AS v, "
       "concat('d', id % 2) AS d FROM range(20)")
"""The source side of the replica's cases: a table whose files a source's event names."""


def source_files(ddl: AtomicDDL) -> tuple[str, tuple[str, ...]]:
    """``src``'s location and its data files, relative to it (read through Hadoop's FileSystem API)."""
    spark = ddl.spark
    location = str(spark.sql("DESCRIBE TABLE EXTENDED src").where("col_name = 'Location'").first()[1]).rstrip("/")
    path = spark._jvm.org.apache.hadoop.fs.Path(location)
    listing, found = path.getFileSystem(spark._jsc.hadoopConfiguration()).listFiles(path, True), []
    while listing.hasNext():
        relative = str(listing.next().getPath().toString()).removeprefix(location + "/")
        if not relative.rsplit("/", 1)[-1].startswith(("_", ".")):
            found.append(relative)
    return location, tuple(sorted(found))


def replica_copy(ddl: AtomicDDL) -> Any:
    """A replica's copy of a source's version of ``p`` (its files: ``src``'s), onto its own ``p``."""
    from chains.binlog import BinlogEvent
    from chains.version_records import VersionRecord
    from ddl_log.replication.copy import copy_statement

    location, files = source_files(ddl)
    version = VersionRecord(table="`default`.`p`", location=location, columns=(
        ("v", "bigint", None), ("d", "string", None)), partitioned_by=("d",), files=files,
        partitions=((("d", "d0"),), (("d", "d1"),)))
    event = BinlogEvent(4, 9, "INSERT OVERWRITE p ...", ("default.p",), 1.0, version=version)
    return ddl.run(copy_statement(ddl.spark, event, "/* ddl-log origin s3sim:/s seq 4 */ INSERT OVERWRITE p ...",
                                  lambda: []))


def replica_insert(ddl: AtomicDDL) -> Any:
    """A replica's INSERT INTO of a source event's added files (``src``'s) into its own ``p``."""
    from chains.binlog import BinlogEvent
    from chains.version_records import AddedFile, AddedFiles
    from ddl_log.replication.added import insert_statement

    location, files = source_files(ddl)
    added = AddedFiles(table="default.p", location=location, identity=None, files=tuple(
        AddedFile(f"{location}/{file}", (("d", file.split("/")[0].split("=")[1]),)) for file in files),
        partitions=((("d", "d0"),), (("d", "d1"),)), columns=(("v", "bigint"), ("d", "string")),
        partitioned_by=("d",))
    event = BinlogEvent(3, 9, "INSERT INTO p SELECT ...", added=added)
    return ddl.run(insert_statement(event, "/* ddl-log origin s3sim:/s seq 3 */ INSERT INTO p ...", lambda: []))


@attrs.frozen
class Case:
    """``setup``: plain Spark statements; ``prepare``: what the project runs first (same home); ``statement``;
    ``retention``: the seconds a replaced or dropped version is kept (None: the test's production-like default)."""

    setup: tuple[str, ...]
    statement: Run
    prepare: Run | None = None
    retention: float | None = None


CASES: dict[str, Case] = {
    "ctas": Case((), lambda d: d.sql(f"CREATE TABLE c USING parquet AS SELECT /*+ {SPREAD} */ * FROM range(40)")),
    "create_or_replace_new": Case((), lambda d: d.create_or_replace_table(
        "c", as_select=f"SELECT /*+ {SPREAD} */ id AS n FROM range(40)")),
    "create_or_replace_swap": Case((T,), lambda d: d.create_or_replace_table(
        "t", as_select=f"SELECT /*+ {SPREAD} */ id AS n FROM range(40)")),
    "create_or_replace_new_partition_columns": Case((P,), lambda d: d.create_or_replace_table(
        "p", as_select=f"SELECT /*+ {SPREAD} */ id AS v, concat('e', id % 2) AS e FROM range(40)",
        partitioned_by=["e"])),
    "create_or_replace_hive_serde": Case((H, H_ROWS), lambda d: d.sql(
        f"CREATE OR REPLACE TABLE h STORED AS parquet AS SELECT /*+ {SPREAD} */ CAST(id AS INT) AS x FROM range(40)")),
    "truncate": Case((T,), lambda d: d.truncate_table("t")),
    "truncate_partitioned": Case((P,), lambda d: d.truncate_table("p")),
    "truncate_partition": Case((P,), lambda d: d.truncate_table("p", partition={"d": "d1"})),
    "truncate_partition_hive_serde": Case((HP, HP_ROWS), lambda d: d.truncate_table("hp", partition={"d": "d1"})),
    "truncate_hive_serde_partitioned": Case((HP, HP_ROWS), lambda d: d.truncate_table("hp")),
    "insert_overwrite_hive_serde_partitioned": Case((HP, HP_ROWS), lambda d: d.sql(
        "INSERT OVERWRITE hp PARTITION (d = 'd1') SELECT 5")),
    "truncate_hive_serde": Case((H, H_ROWS), lambda d: d.truncate_table("h")),
    "alter_drop_column_hive_serde_partitioned": Case((HP, HP_ROWS, "ALTER TABLE hp ADD COLUMNS (z INT)"),
                                                     lambda d: d.alter_table("hp", DropColumns(("z",)))),
    "insert_overwrite": Case((T,), lambda d: d.insert_overwrite(
        "t", as_select=f"SELECT /*+ {SPREAD} */ x + 100, y FROM t")),
    "insert_overwrite_static_partition": Case((P,), lambda d: d.insert_overwrite(
        "p", as_select="SELECT 99", partition={"d": "d1"})),
    "insert_overwrite_dynamic": Case((P,), lambda d: d.insert_overwrite(
        "p", as_select="SELECT v * 10, d FROM p WHERE d = 'd0'", overwrite_mode="dynamic")),
    "alter_change_type": Case((T,), lambda d: d.alter_table("t", ChangeColumnType("x", "BIGINT"))),
    "alter_drop_column": Case((T,), lambda d: d.alter_table("t", DropColumns(("y",)))),
    "restore": Case((), lambda d: d.restore_table("p", version=first_version(d, "p")), prepare=lambda d: (
        made_by_the_project(d, lambda d: d.insert_overwrite("p", as_select="SELECT v + 1, d FROM p")))),
    "drop": Case((T, P), lambda d: d.drop_tables(["t", "p"])),
    "drop_kept": Case((), lambda d: d.drop_tables(["p"]), prepare=made_by_the_project),
    "undrop": Case((), lambda d: d.undrop_table("p"), prepare=lambda d: (
        made_by_the_project(d, lambda d: d.drop_tables(["p"])))),
    "create_over_a_dropped_name": Case((), lambda d: d.create_table(
        "p", using="parquet", as_select="SELECT 'new' AS other"), prepare=lambda d: (
        made_by_the_project(d, lambda d: d.drop_tables(["p"])))),
    "rename_table": Case((T,), lambda d: d.rename_tables([("t", "t2")])),
    "insert_into": Case((T,), lambda d: d.sql(f"INSERT INTO t SELECT /*+ {SPREAD} */ x, y FROM t")),
    "insert_into_partitioned": Case((P,), lambda d: d.sql("INSERT INTO p SELECT v, d FROM p")),
    "drop_database_cascade": Case(("CREATE DATABASE d2", "CREATE TABLE d2.t USING parquet AS SELECT 1 AS one"),
                                  lambda d: d.drop_database("d2", cascade=True)),
    "replace_deleting_the_expired_version": Case((T,), lambda d: d.insert_overwrite(
        "t", as_select="SELECT x + 1, y FROM t"), retention=0),
    "replica_copy_of_a_version": Case((P, SRC), replica_copy),
    "replica_insert_of_added_files": Case((P, SRC), replica_insert),
}
"""Each statement kind of the project that writes, replaces, keeps, deletes or moves table data, a replica's
included."""


def renames_of(spark: Any, ddl_of: Callable[..., AtomicDDL], case: Case) -> list[Rename]:
    """Run ``case`` (its setup on plain Spark, its preparation and statement through homes ``ddl_of`` opens); every
    rename the statement made on the store (the setup's and the preparation's are not counted). The statement's home
    is opened, used and closed (its clean-ups of the retention 0 the tests run with included)."""
    for sql in case.setup:
        spark.sql(sql)
    options = {} if case.retention is None else {"retention_seconds": case.retention}
    if case.prepare is not None:
        with ddl_of(**options) as ddl:
            case.prepare(ddl)
    calls = StoreCalls(spark)
    calls.reset()
    with ddl_of(**options) as ddl:
        case.statement(ddl)
    return calls.renames()
