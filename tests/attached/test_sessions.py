"""Sessions of one attached Spark share the engine, each statement running against the session that issued it;
the engine's own statements are never routed back into it, from whichever thread they come."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ddl_log.frontends.extension import last_result
from tests.attached.conftest import attached_session

pytestmark = pytest.mark.spark


def test_two_sessions_of_one_context_each_run_with_their_own_database_views_and_settings(spark, attached):
    """Session A and B of the same SparkContext: a CTAS reads the issuing session's temporary view and current
    database, and an INSERT OVERWRITE follows the issuing session's partitionOverwriteMode."""
    a, b = attached.session, attached_session(spark)
    a.sql("CREATE DATABASE da")
    a.sql("USE da")
    b.sql("CREATE DATABASE db")
    b.sql("USE db")
    a.sql("CREATE TEMPORARY VIEW src AS SELECT 1 AS x")
    b.sql("CREATE TEMPORARY VIEW src AS SELECT 2 AS x")
    a.sql("CREATE TABLE t USING parquet AS SELECT * FROM src")
    b.sql("CREATE TABLE t USING parquet AS SELECT * FROM src")
    assert spark.table("da.t").collect()[0].x == 1
    assert spark.table("db.t").collect()[0].x == 2
    for session in (a, b):
        session.sql("CREATE TABLE p (v INT, k STRING) USING parquet PARTITIONED BY (k)")
        session.sql("INSERT INTO p VALUES (1, 'a'), (2, 'b')")
    b.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    for session in (a, b):
        session.sql("INSERT OVERWRITE TABLE p SELECT 9, 'a'")
    assert sorted(tuple(r) for r in spark.table("da.p").collect()) == [(9, "a")]  # static: the whole table
    assert sorted(tuple(r) for r in spark.table("db.p").collect()) == [(2, "b"), (9, "a")]  # dynamic
    texts = [event.statement for event in attached.ddl.binlog_events()]
    assert texts.count("CREATE TABLE t USING parquet AS SELECT * FROM src") == 2
    assert last_result(b).statement == "INSERT OVERWRITE TABLE p SELECT 9, 'a'"


def test_the_engines_own_statements_are_not_routed_back_into_it(attached):
    """A CREATE OR REPLACE runs Spark statements of its own (the work table, the swap's reads, the drop of the
    old definition): none of them reaches the engine as a statement (the binlog has exactly the one)."""
    session = attached.session
    session.sql("CREATE TABLE r USING parquet AS SELECT 1 AS a")
    session.sql("CREATE OR REPLACE TABLE r USING parquet PARTITIONED BY (p) AS SELECT 2 AS a, 'x' AS p")
    session.sql("DROP TABLE r")
    assert [e.statement for e in attached.ddl.binlog_events()] == [
        "CREATE TABLE r USING parquet AS SELECT 1 AS a",
        "CREATE OR REPLACE TABLE r USING parquet PARTITIONED BY (p) AS SELECT 2 AS a, 'x' AS p",
        "DROP TABLE r"]
    assert attached.ddl.active_chains() == []


def test_statements_from_a_second_thread_while_another_statement_runs_are_routed_and_serialised(attached):
    """Thread 1 replaces a table with a slow query; thread 2 meanwhile issues its own statements on the same
    session: they go through the engine (binlogged), the engine's own statements of thread 1 do not, and the
    replaced table is whole."""
    session = attached.session
    session.sql("CREATE TABLE slow USING parquet AS SELECT id FROM range(10)")
    errors: list[BaseException] = []
    started = threading.Event()

    def replace() -> None:
        try:
            started.set()
            session.sql("CREATE OR REPLACE TABLE slow USING parquet AS "
                        "SELECT a.id FROM range(3000) a CROSS JOIN range(300) b WHERE a.id % 7 = b.id % 5")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    def others() -> None:
        try:
            started.wait()
            for n in range(3):
                session.sql(f"CREATE TABLE side{n} USING parquet AS SELECT {n} AS n")
            session.sql("DROP TABLE side0")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=replace), threading.Thread(target=others)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    texts = [event.statement for event in attached.ddl.binlog_events()]
    assert sorted(texts[1:]) == sorted([
        "CREATE OR REPLACE TABLE slow USING parquet AS SELECT a.id FROM range(3000) a CROSS JOIN range(300) b "
        "WHERE a.id % 7 = b.id % 5", "CREATE TABLE side0 USING parquet AS SELECT 0 AS n",
        "CREATE TABLE side1 USING parquet AS SELECT 1 AS n", "CREATE TABLE side2 USING parquet AS SELECT 2 AS n",
        "DROP TABLE side0"])
    assert session.table("slow").columns == ["id"] and session.table("slow").count() > 0
    assert attached.ddl.active_chains() == []


def test_the_python_api_on_the_attached_engine_runs_its_spark_statements_as_sparks(attached):
    """``ddl.sql`` and the Python API on the engine ``attach`` returned: their own Spark statements (on another
    thread of this process too) are the engine's, not routed back."""
    ddl = attached.ddl
    ddl.sql("CREATE TABLE api USING parquet AS SELECT 1 AS a")
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(
        ddl.create_or_replace_table("api", as_select="SELECT 2 AS a")))
    thread.start()
    thread.join()
    assert results and results[0].done
    assert [e.statement for e in ddl.binlog_events()][-1].startswith("CREATE OR REPLACE TABLE `default`.`api`")
    assert len(ddl.binlog_events()) == 2
