"""DataFrame writers and the catalog API's DDL on an attached session: each runs as its matching statement through
the engine (binlogged as the Python API's DataFrame statements are), atomic as that statement: a query failing
half way leaves the old table, and nothing else."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as sf

from ddl_log.frontends.extension import ALLOW_NON_ATOMIC, statement_error
from storage.errors import NotAtomicError
from tests.spark.sweep_support import snapshot
from tests.spark_lines import SAVE_AS_V1_TABLE_PLANNED, at_least

pytestmark = pytest.mark.spark


def frame(session: Any, n: int = 3) -> Any:
    return session.range(n).selectExpr("id AS a", "concat('v', id) AS b")


def rows(session: Any, table: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in session.table(table).collect())


DATAFRAME_MARK = "/* DataFrame */"


def events(attached: Any) -> list[str]:
    return [event.statement for event in attached.ddl.binlog_events()]


def plain_side(spark: Any) -> Any:
    """A session without the extension turned on, in a database of its own: what plain Spark does with a call."""
    plain = spark.newSession()
    plain.sql("CREATE DATABASE plainside")
    plain.sql("USE plainside")
    return plain


SAVE_AS_TABLE: list[Callable[[Any], None]] = [
    lambda s: frame(s).write.saveAsTable("w"),
    lambda s: frame(s, 2).write.mode("append").saveAsTable("w"),
    lambda s: frame(s, 9).write.mode("ignore").saveAsTable("w"),
    lambda s: frame(s, 4).write.mode("overwrite").partitionBy("b").saveAsTable("w"),
    lambda s: frame(s, 2).write.mode("append").format("parquet").saveAsTable("w2"),  # appending to no table
]
INSERT_INTO: list[Callable[[Any], None]] = [
    lambda s: s.sql("CREATE TABLE i (a BIGINT, b STRING) USING parquet PARTITIONED BY (b)"),
    lambda s: frame(s).write.insertInto("i"),
    lambda s: frame(s, 2).write.insertInto("i"),
    lambda s: frame(s, 1).write.option("partitionOverwriteMode", "dynamic").insertInto("i", overwrite=True),
    lambda s: s.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic"),
    lambda s: frame(s, 2).write.insertInto("i", overwrite=True),
    lambda s: s.conf.set("spark.sql.sources.partitionOverwriteMode", "static"),
    lambda s: frame(s, 1).write.insertInto("i", overwrite=True),
]


@pytest.mark.parametrize(("calls", "tables"), [(SAVE_AS_TABLE, ("w", "w2")), (INSERT_INTO, ("i",))],
                         ids=["saveAsTable", "insertInto"])
def test_writer_calls_spark_runs_end_as_on_plain_spark_and_are_binlogged(spark, attached, calls, tables):
    plain = plain_side(spark)
    for call in calls:
        call(plain)
        call(attached.session)
        for table in tables:
            if plain.catalog.tableExists(table):
                assert rows(attached.session, table) == rows(plain, table)
                assert attached.session.table(table).schema == plain.table(table).schema
    assert all(DATAFRAME_MARK in text or text.startswith("CREATE TABLE i") for text in events(attached))
    if tables == ("w", "w2"):
        assert events(attached) == [
            "CREATE TABLE `default`.`w` USING parquet AS /* DataFrame */",
            "INSERT INTO TABLE `default`.`w` /* DataFrame */",
            "CREATE OR REPLACE TABLE `default`.`w` USING parquet PARTITIONED BY (`b`) AS /* DataFrame */",
            "CREATE TABLE `default`.`w2` USING parquet AS /* DataFrame */"]
    else:
        assert events(attached)[1:] == ["INSERT INTO TABLE `default`.`i` /* DataFrame */"] * 2 + [
            "INSERT OVERWRITE TABLE `default`.`i` /* DataFrame */"] * 3


def test_save_as_table_errorifexists_is_sparks_refusal(attached):
    frame(attached.session).write.saveAsTable("e")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        frame(attached.session).write.saveAsTable("e")  # Spark's own refusal, before any plan
    assert len(events(attached)) == 1


def test_write_to_in_every_call(attached):
    session = attached.session
    frame(session).writeTo("v2").using("parquet").partitionedBy(sf.col("b")).create()
    frame(session, 1).writeTo("v2").using("parquet").replace()
    frame(session, 2).writeTo("v2").using("parquet").createOrReplace()
    session.range(1).selectExpr("'z' AS b", "7L AS a").writeTo("v2").append()  # by name
    assert rows(session, "v2") == [(0, "v0"), (1, "v1"), (7, "z")]
    session.range(1).selectExpr("'y' AS b", "8L AS a").writeTo("v2").overwrite(sf.lit(True))
    assert rows(session, "v2") == [(8, "y")]
    session.sql("CREATE TABLE v3 (a BIGINT, b STRING) USING parquet PARTITIONED BY (b)")
    frame(session, 2).writeTo("v3").append()
    session.range(1).selectExpr("5L AS a", "'v1' AS b").writeTo("v3").overwritePartitions()
    assert rows(session, "v3") == [(0, "v0"), (5, "v1")]
    with pytest.raises(AnalysisException, match="v1 table"):
        frame(session).writeTo("v3").overwrite(sf.col("a") > 0)  # no matching statement: Spark's own refusal
    assert events(attached) == [
        "CREATE TABLE `default`.`v2` USING parquet AS /* DataFrame */".replace(" AS", " PARTITIONED BY (`b`) AS"),
        "REPLACE TABLE `default`.`v2` USING parquet AS /* DataFrame */",
        "CREATE OR REPLACE TABLE `default`.`v2` USING parquet AS /* DataFrame */",
        "INSERT INTO TABLE `default`.`v2` /* DataFrame */",
        "INSERT OVERWRITE TABLE `default`.`v2` /* DataFrame */",
        "CREATE TABLE v3 (a BIGINT, b STRING) USING parquet PARTITIONED BY (b)",
        "INSERT INTO TABLE `default`.`v3` /* DataFrame */",
        "INSERT OVERWRITE TABLE `default`.`v3` /* DataFrame */"]


def test_the_catalog_apis_ddl(spark, attached, tmp_path):
    session = attached.session
    plain = plain_side(spark)
    for side in (plain, session):
        side.catalog.createTable("c1", schema=frame(side).schema, source="parquet")
    assert session.table("c1").schema == plain.table("c1").schema
    with pytest.raises(AnalysisException) as refused:
        session.catalog.createTable("c2", path=str(tmp_path / "c2"), schema=frame(session).schema, source="parquet")
    assert type(statement_error(refused.value)).__name__ == "UnsupportedStatementError"
    assert not session.catalog.tableExists("c2")
    with pytest.raises(AnalysisException) as recovered:
        session.catalog.recoverPartitions("c1")
    assert type(statement_error(recovered.value)).__name__ == "UnsupportedStatementError"
    session.conf.set(ALLOW_NON_ATOMIC, "true")
    session.catalog.createTable("c2", path=str(tmp_path / "c2"), schema=frame(session).schema, source="parquet")
    assert session.catalog.tableExists("c2")
    assert events(attached) == ["CREATE TABLE `default`.`c1` (a BIGINT NOT NULL,b STRING NOT NULL) USING parquet"]


FAILING = "CAST(IF(id = 2, raise_error('the query failed'), id) AS BIGINT) AS a"
WRITES: dict[str, Callable[[Any], None]] = {
    "saveAsTable overwrite": lambda df: df.write.mode("overwrite").saveAsTable("old"),
    "saveAsTable append": lambda df: df.write.mode("append").saveAsTable("old"),
    "insertInto": lambda df: df.write.insertInto("old"),
    "insertInto overwrite": lambda df: df.write.insertInto("old", overwrite=True),
    "writeTo replace": lambda df: df.writeTo("old").using("parquet").replace(),
    "writeTo createOrReplace": lambda df: df.writeTo("old").using("parquet").createOrReplace(),
    "writeTo append": lambda df: df.writeTo("old").append(),
    "writeTo overwrite": lambda df: df.writeTo("old").overwrite(sf.lit(True)),
    "writeTo overwritePartitions": lambda df: df.writeTo("old").overwritePartitions(),
}


@pytest.mark.parametrize("call", sorted(WRITES))
def test_a_query_failing_half_way_leaves_the_old_table_and_nothing_else(spark, warehouse, attached, call):
    session = attached.session
    session.sql("CREATE TABLE old USING parquet AS SELECT id AS a, 'kept' AS b FROM range(4)")
    before = snapshot(spark, warehouse)
    failing = session.range(5).selectExpr(FAILING, "'new' AS b")
    with pytest.raises(Exception, match="the query failed"):
        WRITES[call](failing)
    assert snapshot(spark, warehouse) == before
    assert len(events(attached)) == 1
    assert attached.ddl.active_chains() == []


def test_save_as_table_overwrite_from_the_jvm_is_refused_on_4_0_and_atomic_from_4_1(attached):
    """A JVM caller of saveAsTable in overwrite mode (here through Py4J, as Scala code would call it): Spark 4.0
    drops the table in the writer before any plan exists, so the call is refused loudly, the table untouched; from
    Spark 4.1 the call is a plan (SaveAsV1TableCommand) and runs as CREATE OR REPLACE through the log."""
    session = attached.session
    session.sql("CREATE TABLE jvm USING parquet AS SELECT 1 AS a")
    writer = frame(session)._jdf.write().mode("overwrite")
    if at_least(session.version, SAVE_AS_V1_TABLE_PLANNED):
        writer.saveAsTable("jvm")
        assert events(attached)[-1] == "CREATE OR REPLACE TABLE `default`.`jvm` USING parquet AS /* DataFrame */"
        assert sorted(rows(session, "jvm")) == sorted(tuple(row) for row in frame(session).collect())
        return
    with pytest.raises(Exception, match=r"UNSUPPORTED_FEATURE\.TABLE_OPERATION") as refused:
        writer.saveAsTable("jvm")
    assert "drops the table before it creates" in str(refused.value)
    assert rows(session, "jvm") == [(1,)]
    frame(session)._jdf.write().mode("append").saveAsTable("jvm_new")  # what Spark plans: routed
    assert events(attached)[-1] == "CREATE TABLE `default`.`jvm_new` USING parquet AS /* DataFrame */"


def test_an_external_table_is_refused_for_overwrite_unless_non_atomic_is_allowed(attached, tmp_path):
    session = attached.session
    session.conf.set(ALLOW_NON_ATOMIC, "true")
    session.sql(f"CREATE TABLE ext (a BIGINT, b STRING) USING parquet LOCATION '{tmp_path / 'ext'}'")
    session.conf.set(ALLOW_NON_ATOMIC, "false")
    with pytest.raises(AnalysisException) as refused:
        frame(session).write.insertInto("ext", overwrite=True)
    assert isinstance(statement_error(refused.value), NotAtomicError)
    session.conf.set(ALLOW_NON_ATOMIC, "true")
    frame(session).write.insertInto("ext", overwrite=True)  # Spark's own, as asked
    assert len(rows(session, "ext")) == 3


def test_a_write_in_a_session_that_reads_literals_raw_is_refused_and_runs_nothing(attached):
    """The statement of a DataFrame write is written by the project, its literals escaped as Spark reads them by
    default: a session reading them raw is refused rather than given a statement that means something else."""
    session = attached.session
    session.conf.set("spark.sql.parser.escapedStringLiterals", "true")
    with pytest.raises(AnalysisException, match="escapedStringLiterals"):
        frame(session).write.option("note", "it's").saveAsTable("raw")
    assert not session.catalog.tableExists("raw")
    assert events(attached) == []
