"""A writer outside the log's locks (plain Spark on the same metastore: another cluster, a session without the
extension) drops the table and makes its own under the name while a statement of the log builds the table's new
version (or, for a change of kind, the new relation). The statement must see it right before its first change of
the name and fail, having changed nothing of the other writer's object: neither its definition nor its files, and no
deletion of them scheduled for later."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from actions.kept_versions import dropped_tables
from ddl_log import AtomicDDL, ConcurrentChangeError, StatementFailedError
from ddl_log.engine.kind_replace import ANY_KIND
from storage import crashpoints
from tests.spark.sweep_support import assert_clean_log

pytestmark = pytest.mark.spark

ROWS = "INSERT INTO t VALUES (1, 'x'), (2, 'y')"
PLAIN = ("CREATE TABLE t (a INT, b STRING) USING parquet", ROWS)
PARTITIONED = ("CREATE TABLE t (a INT, b STRING) USING parquet PARTITIONED BY (b)", ROWS)
HIVE_SERDE = ("CREATE TABLE t (a INT, b STRING) STORED AS parquet", ROWS)
VIEW = ("CREATE VIEW t AS SELECT 1 AS a, 'x' AS b",)

STATEMENTS = {  # the relation as plain Spark made it, the statement, the step that first changes the name
    "CREATE OR REPLACE AS SELECT": (PLAIN, "CREATE OR REPLACE TABLE t USING parquet AS SELECT a + 100 AS a, b FROM t",
                                    "replace.exchange.before"),
    "INSERT OVERWRITE": (PLAIN, "INSERT OVERWRITE t SELECT a + 100, b FROM t", "replace.exchange.before"),
    "TRUNCATE": (PLAIN, "TRUNCATE TABLE t", "replace.exchange.before"),
    "INSERT OVERWRITE partitioned": (PARTITIONED, "INSERT OVERWRITE t SELECT a + 100, b FROM t",
                                     "replace.exchange.before"),
    "INSERT OVERWRITE Hive serde": (HIVE_SERDE, "INSERT OVERWRITE t SELECT a + 100, b FROM t",
                                    "replace.move_orig.before"),
    "a view made a table (ANY KIND)": (VIEW, f"CREATE OR REPLACE {ANY_KIND} TABLE t USING parquet AS SELECT 100 AS a",
                                       "kind_change.exchange.before"),
    "a table made a view (ANY KIND)": (PLAIN, f"CREATE OR REPLACE {ANY_KIND} VIEW t AS SELECT 100 AS a",
                                       "kind_change.exchange.before"),
}

NEWCOMERS = {
    "managed table": "CREATE TABLE t USING parquet AS SELECT 'someone else' AS who",
    "view": "CREATE VIEW t AS SELECT 'someone else' AS who",
    "nothing": None,
}


@pytest.mark.parametrize("newcomer", NEWCOMERS)
@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_table_plain_spark_puts_under_the_name_while_the_statement_runs_is_never_touched(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, statement: str, newcomer: str) -> None:
    setup, text, point = STATEMENTS[statement]
    plain_spark_acts_at(point, spark, warehouse, tmp_path, setup, text, newcomer)


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_relation_plain_spark_drops_right_after_the_statements_check_is_never_touched(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, statement: str) -> None:
    """The window the check leaves: dropped between its read and the first change of the name, the metastore
    refuses the change (Hive's "table not found"), which fails the statement as the check would have, a change of
    kind too. (A relation made under the name in that window too is overwritten: the metastore has no conditional
    ``alter_table``.)"""
    setup, text, _ = STATEMENTS[statement]
    plain_spark_acts_at("replace.orig_checked", spark, warehouse, tmp_path, setup, text, "nothing")


def plain_spark_acts_at(point: str, spark: Any, warehouse: Path, tmp_path: Path, setup: tuple[str, ...], text: str,
                        newcomer: str) -> None:
    """Plain Spark drops the relation made by ``setup`` and makes ``newcomer`` when ``text`` reaches ``point``: the
    statement fails with the concurrent change, leaving log, binlog, catalog and warehouse as the other writer
    left them."""
    for made in setup:
        spark.sql(made)
    acted: list[str] = []

    def plain_spark() -> None:
        spark.sql("DROP VIEW t" if setup is VIEW else "DROP TABLE t")  # Spark 4.0 refuses DROP TABLE of a view
        made = NEWCOMERS[newcomer]
        if made is not None:
            spark.sql(made)
        acted.append(point)

    refused = refused_as_changed(spark, tmp_path / "home", point, plain_spark, text)
    assert acted == [point], "the other writer acted before the statement's first change of the name"
    assert "changed outside the DDL log" in str(refused)
    if newcomer == "nothing":
        assert not spark.catalog.tableExists("t")
    else:
        assert [tuple(row) for row in spark.table("t").collect()] == [("someone else",)]
    expected = {"t"} if newcomer == "managed table" else set()
    assert {entry.name for entry in warehouse.iterdir()} == expected, "the statement's new version is gone"


def refused_as_changed(spark: Any, home: Path, point: str, other_writer: Any, text: str) -> StatementFailedError:
    """Run ``text`` with ``other_writer`` acting at ``point``: the statement fails with the concurrent change and
    leaves nothing (no chain, no binlog event, nothing kept or scheduled for deletion), and recovery then finds
    nothing to do. The statement's error."""
    ddl = AtomicDDL(spark=spark, home=home, grace_seconds=0)
    try:
        committed = ddl.binlog_events()
        with crashpoints.acting(point, other_writer), pytest.raises(StatementFailedError) as raised:
            ddl.sql(text)
        assert isinstance(raised.value.cause, ConcurrentChangeError), raised.value
        assert ddl.active_chains() == [] and ddl.binlog_events() == committed
        assert dropped_tables(ddl.log) == [] and ddl.pending_deletions() == []
    finally:
        ddl.close()
    recovered = AtomicDDL(spark=spark, home=home, grace_seconds=0)
    try:
        assert_clean_log(recovered)
    finally:
        recovered.close()
    return raised.value


@pytest.mark.parametrize("statement", STATEMENTS)
def test_with_no_other_writer_the_check_finds_the_table_it_read(
        spark: Any, tmp_path: Path, clean_spark: Any, statement: str) -> None:
    """The control: the same statements on the same relations (untagged, as plain Spark made them, whose identity is a
    fingerprint computed again by the fresh read) commit on their usual paths."""
    setup, text, point = STATEMENTS[statement]
    for made in setup:
        spark.sql(made)
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    try:
        with crashpoints.recording() as trace:
            ddl.sql(text)
        assert point in trace and len(ddl.binlog_events()) == 1
    finally:
        ddl.close()


WRITES_IN_PROGRESS = {  # plain Spark's CTAS of the name, at the name's default directory, before its table exists
    "its tasks still writing": ("_temporary/0/_temporary/attempt_202612040552_0006_m_000000_12/part-00000.parquet",),
    "its files committed, its table not made yet": ("part-00000-7f3c.c000.snappy.parquet", "_SUCCESS"),
}


@pytest.mark.parametrize("write", WRITES_IN_PROGRESS)
def test_a_ctas_plain_spark_starts_at_the_names_directory_is_not_taken_for_the_old_version(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, write: str) -> None:
    """Plain Spark drops the table right after the statement's check and starts its own CTAS of the name: its job
    writes at the name's default directory, where the old version lived, and names it only once the job is done.
    The statement's undo keeps the old version when its files are still there (a dropped version of the name); the
    files there now are the newcomer's, so nothing is kept and nothing is scheduled for deletion, and every file
    stays where the CTAS put it, after recovery too (grace 0: a deletion would run at once)."""
    for made in PLAIN:
        spark.sql(made)
    directory = warehouse / "t"

    def plain_spark() -> None:
        spark.sql("DROP TABLE t")
        for relative in WRITES_IN_PROGRESS[write]:
            path = directory / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"PAR1 someone else's rows")

    refused_as_changed(spark, tmp_path / "home", "replace.orig_checked", plain_spark,
                       STATEMENTS["CREATE OR REPLACE AS SELECT"][1])
    assert sorted(str(path.relative_to(directory)) for path in directory.rglob("*") if path.is_file()) == sorted(
        WRITES_IN_PROGRESS[write])
    assert not spark.catalog.tableExists("t")


@pytest.mark.parametrize("statement", ["CREATE OR REPLACE AS SELECT", "INSERT OVERWRITE", "TRUNCATE"])
def test_an_untagged_table_rewritten_meanwhile_under_the_same_fingerprint_is_seen(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, statement: str) -> None:
    """A table the log never tagged is known by a fingerprint of its creation second and shape, which plain Spark's
    DROP and CTAS of the same shape within one second reproduce (a loop of them, seen over JDBC). Its files tell
    the two apart (each write job names its files with an id of its own): here plain Spark rewrites them in place
    (INSERT OVERWRITE: same record, same fingerprint, other files) while the statement builds its version, and the
    statement fails as for any change outside the log, installing nothing over the other writer's rows."""
    setup, text, point = STATEMENTS[statement]
    for made in setup:
        spark.sql(made)

    def plain_spark() -> None:
        spark.sql("INSERT OVERWRITE t VALUES (7, 'someone else')")

    refused = refused_as_changed(spark, tmp_path / "home", point, plain_spark, text)
    assert "with other files" in str(refused)
    assert [tuple(row) for row in spark.table("t").collect()] == [(7, "someone else")]
    assert {entry.name for entry in warehouse.iterdir()} == {"t"}


ENDINGS = ("failed", "crashed")


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("write", WRITES_IN_PROGRESS)
def test_a_ctas_plain_spark_starts_while_the_rename_path_misses_the_name_keeps_its_files_through_the_undo(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, write: str, ending: str) -> None:
    """The rename path (here a change of partition columns) misses the name between ORIG's rename to BACKUP and the
    new table's creation; plain Spark's CTAS of the name may start in those milliseconds and write at the name's
    default directory, free since the table lives at a directory of its own. The statement then fails (or its
    process dies): the undo renames BACKUP back without moving any directory, so nothing of the name's default
    directory is in its way, and it removes none of the newcomer's files (it did: the undo cleaned that directory as
    a leftover of its own; the note of 2026-12-04 left it open). The table is back whole, the log clean."""
    home = tmp_path / "home"
    ddl = AtomicDDL(spark=spark, home=home, grace_seconds=0)
    directory = warehouse / "t"
    try:
        ddl.sql("CREATE TABLE t USING parquet AS SELECT id AS a, 'x' AS b FROM range(3)")
        assert not directory.exists()  # the project's table lives at a directory of its own

        def plain_spark_then_the_statement_ends() -> None:
            assert not spark.catalog.tableExists("t")  # the name is missing here
            for relative in WRITES_IN_PROGRESS[write]:
                path = directory / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"PAR1 someone else's rows")
            if ending == "crashed":
                raise crashpoints.SimulatedCrash("replace.install.before")
            raise RuntimeError("the statement's driver failed")

        committed = ddl.binlog_events()
        ends = StatementFailedError if ending == "failed" else crashpoints.SimulatedCrash
        with crashpoints.acting("replace.install.before", plain_spark_then_the_statement_ends), pytest.raises(ends):
            ddl.sql("CREATE OR REPLACE TABLE t (a BIGINT, b STRING) USING parquet PARTITIONED BY (b)")
        if ending == "crashed":
            ddl.abandon()  # the process is gone: its objects with it
            ddl = AtomicDDL(spark=spark, home=home, grace_seconds=0)  # recovery runs the undo
        assert ddl.binlog_events() == committed
        assert_clean_log(ddl)
    finally:
        ddl.close()
    assert sorted(tuple(row) for row in spark.table("t").collect()) == [(0, "x"), (1, "x"), (2, "x")]
    assert spark.table("t").inputFiles() and not any(str(directory) in f for f in spark.table("t").inputFiles())
    assert sorted(str(path.relative_to(directory)) for path in directory.rglob("*") if path.is_file()) == sorted(
        WRITES_IN_PROGRESS[write])


KEEPING = "INSERT OVERWRITE t PARTITION (b = 'x') SELECT a + 100 FROM t WHERE b = 'x'"
"""A partitioned overwrite that replaces the partition ``b='x'`` and keeps ``b='y'`` (a dbt incremental model's)."""


def test_an_insert_into_a_kept_partition_meanwhile_fails_the_overwrite_and_keeps_its_rows(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any) -> None:
    """Plain Spark appends to a partition the overwrite keeps, after the kept partitions were put into the new
    version (hard links of the files listed then): installed, the new version would lack the appended rows, and the
    old version's deletion would lose them, where plain Spark's own overwrite leaves that partition alone. The
    install lists the kept partitions' files again and refuses: the statement fails as for any change outside the
    log, the appended rows and the old ones in place."""
    for made in PARTITIONED:
        spark.sql(made)

    def plain_spark() -> None:
        spark.sql("INSERT INTO t VALUES (3, 'y')")

    refused = refused_as_changed(spark, tmp_path / "home", "replace.orig_checked", plain_spark, KEEPING)
    assert "was written meanwhile" in str(refused) and "partitions it keeps (added b=y/" in str(refused)
    assert sorted(tuple(row) for row in spark.table("t").collect()) == [(1, "x"), (2, "y"), (3, "y")]


def test_with_no_writer_the_keeping_overwrite_commits_on_the_write_path(
        spark: Any, tmp_path: Path, clean_spark: Any) -> None:
    for made in PARTITIONED:
        spark.sql(made)
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    try:
        [done] = ddl.sql(KEEPING)
        assert done.result.path == "write" and len(ddl.binlog_events()) == 1
    finally:
        ddl.close()
    assert sorted(tuple(row) for row in spark.table("t").collect()) == [(2, "y"), (101, "x")]


@pytest.mark.parametrize("landed", [False, True], ids=["a registered partition", "a directory no record names"])
def test_a_write_into_a_partition_a_truncate_keeps_meanwhile_fails_it_and_keeps_its_rows(
        spark: Any, warehouse: Path, tmp_path: Path, clean_spark: Any, landed: bool) -> None:
    """``TRUNCATE TABLE t PARTITION (b = 'x')`` takes the other partition directories into the new version whole
    (hard links of the files listed then), the registered ones and those of files landed for a later ``MSCK REPAIR
    TABLE``; plain Spark (or a landing job) writing into one of them afterwards would lose its rows with the old
    version, where plain Spark's own TRUNCATE leaves them. The install lists them again and refuses."""
    for made in PARTITIONED:
        spark.sql(made)
    location = Path(str(spark.sql("DESCRIBE TABLE EXTENDED t").where("col_name = 'Location'").first()[1])
                    .removeprefix("file:"))
    spark.sql(f"INSERT OVERWRITE DIRECTORY '{location}/b=z' USING parquet SELECT 9 AS a")

    def writer() -> None:
        if landed:  # one more file lands in the directory no record names
            [landed_file] = [f for f in (location / "b=z").iterdir() if f.name.startswith("part-")]
            shutil.copyfile(landed_file, landed_file.with_name("part-99999-landed.parquet"))
        else:
            spark.sql("INSERT INTO t VALUES (3, 'y')")

    refused = refused_as_changed(spark, tmp_path / "home", "swap.kept.taken", writer,
                                 "TRUNCATE TABLE t PARTITION (b = 'x')")
    assert f"partitions it keeps (added b={'z' if landed else 'y'}/" in str(refused)
    expected = [(1, "x"), (2, "y")] if landed else [(1, "x"), (2, "y"), (3, "y")]
    assert sorted(tuple(row) for row in spark.table("t").collect()) == expected
    assert len([f for f in (location / "b=z").iterdir() if f.name.startswith("part-")]) == (2 if landed else 1)
