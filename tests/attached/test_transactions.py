"""DDL transactions on an attached session: ``spark.sql("START TRANSACTION")``, routed statements one ``spark.sql``
call each, then ``spark.sql("COMMIT")`` or ``spark.sql("ROLLBACK")``, as a ``with ddl.transaction():`` block. The
transaction is the JVM session's: two sessions of one attached context each have their own at once, and a session's
statements join it from whichever thread issues them. Refusals are Spark's ``AnalysisException``, the project's typed
error as its cause (``statement_error``)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ddl_log.errors import (
    NotTransactionalError,
    TransactionAbortedError,
    TransactionStateError,
)
from ddl_log.frontends.extension import last_result, statement_error
from storage.catalogs.names import TableName
from tests.attached.conftest import attached_session

pytestmark = pytest.mark.spark


def refused(session: Any, text: str) -> BaseException | None:
    """The typed error behind the Spark exception ``session.sql(text)`` raises."""
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as failed:
        session.sql(text)
    return statement_error(failed.value)


def tables(session: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the current database with its rows (sorted); an open transaction's work tables left out."""
    names = sorted(row.tableName for row in session.sql("SHOW TABLES").collect()
                   if not row.isTemporary and not TableName("default", row.tableName).is_reserved)
    return {name: sorted(tuple(row) for row in session.table(name).collect()) for name in names}


def three_tables(session: Any) -> dict[str, list[tuple[Any, ...]]]:
    for name, value in (("fact", 1), ("old", 2), ("staging", 3)):
        session.sql(f"CREATE TABLE {name} USING parquet AS SELECT {value} AS v")
    return tables(session)


BODY = ["CREATE OR REPLACE TABLE fact USING parquet AS SELECT 10 AS v, 'new' AS w",
        "DROP TABLE old",
        "ALTER TABLE staging RENAME TO published"]


def test_a_committed_transaction_is_one_binlog_group_and_leaves_every_change(attached):
    session, ddl = attached.session, attached.ddl
    state = three_tables(session)
    before = len(ddl.binlog_events())
    session.sql("START TRANSACTION")
    for text in BODY:
        session.sql(text)
    assert ddl.binlog_events()[before:] == [] and tables(session) == state  # nothing committed, nothing seen yet
    session.sql("COMMIT WORK")
    assert tables(session) == {"fact": [(10, "new")], "published": [(3,)]}
    group = ddl.binlog_events()[before:]
    assert [event.statement for event in group] == BODY
    assert [event.txn for event in group] == [(1, 3), (2, 3), (3, 3)]
    assert len({event.xid for event in group}) == 1
    assert last_result(session).kind == "transaction" and len(last_result(session).result.events) == 3
    assert ddl.active_chains() == []


def test_a_rolled_back_transaction_leaves_everything_as_before(attached):
    session, ddl = attached.session, attached.ddl
    before, events = three_tables(session), len(ddl.binlog_events())
    session.sql("BEGIN TRANSACTION")
    for text in BODY:
        session.sql(text)
    assert tables(session) == before  # built aside: nothing of the transaction is seen before its COMMIT
    session.sql("ROLLBACK")
    assert tables(session) == before
    assert len(ddl.binlog_events()) == events and ddl.active_chains() == []


def test_a_failing_statement_aborts_the_transaction_and_later_statements_and_commit_are_refused(attached):
    """PostgreSQL's rule, as in a ``with ddl.transaction():`` block: the failure rolls the whole transaction back;
    later statements and COMMIT raise TransactionAbortedError (COMMIT ends it). A statement that cannot be inside one
    (CREATE DATABASE) is refused by name and rolls it back; ROLLBACK then ends it."""
    session, ddl = attached.session, attached.ddl
    before, events = three_tables(session), len(ddl.binlog_events())
    session.sql("BEGIN WORK")
    session.sql(BODY[0])
    assert refused(session, "CREATE TABLE fact USING parquet AS SELECT 5 AS v") is not None  # it exists
    assert tables(session) == before  # rolled back at the failure
    assert isinstance(refused(session, "DROP TABLE old"), TransactionAbortedError)
    assert session.sql("SELECT count(*) AS n FROM fact").collect()[0].n == 1  # a query still runs: Spark's own
    assert isinstance(refused(session, "COMMIT"), TransactionAbortedError)
    assert isinstance(refused(session, "ROLLBACK"), TransactionStateError)  # COMMIT ended it
    session.sql("START TRANSACTION")
    session.sql("TRUNCATE TABLE old")
    not_inside = refused(session, "CREATE DATABASE txn_db")
    assert isinstance(not_inside, NotTransactionalError) and "CREATE DATABASE" in str(not_inside)
    session.sql("ROLLBACK WORK")
    assert tables(session) == before and len(ddl.binlog_events()) == events
    assert "txn_db" not in [row.namespace for row in session.sql("SHOW DATABASES").collect()]


def test_a_statement_the_log_leaves_to_spark_is_refused_inside_a_transaction(attached, tmp_path):
    """Reads and session statements (SELECT, SHOW, SET, USE, temporary views) never reach the engine and run as
    Spark's own inside the transaction; a change the log would leave to Spark (here a non-atomic form asked for
    with allowNonAtomic) is refused with NotTransactionalError, and the transaction rolled back. DESCRIBE HISTORY
    is the engine's statement: refused inside, as in a ``with ddl.transaction():`` block."""
    session = attached.session
    session.sql("CREATE TABLE base USING parquet AS SELECT 1 AS v")
    session.sql("START TRANSACTION")
    session.sql("TRUNCATE TABLE base")
    session.sql("SET spark.ddlLog.allowNonAtomic=true")
    session.sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS v")
    assert session.sql("SHOW TABLES LIKE 'base'").count() == 1
    outside = refused(session, f"CREATE TABLE ext (a INT) USING parquet LOCATION '{tmp_path / 'ext'}'")
    assert isinstance(outside, NotTransactionalError) and "outside the DDL log" in str(outside)
    session.sql("ROLLBACK")
    assert session.table("base").count() == 1
    assert session.sql("SHOW TABLES LIKE 'ext'").count() == 0
    session.sql("START TRANSACTION")  # the engine's own reads are statements of the log: refused, as in a block
    assert isinstance(refused(session, "DESCRIBE HISTORY base"), NotTransactionalError)
    session.sql("ROLLBACK")


def test_listings_leave_the_log_s_own_tables_out_even_inside_an_open_transaction(attached):
    """SHOW TABLES, SHOW TABLE EXTENDED, SHOW VIEWS and the catalog API (PySpark's and the JVM's, which Scala, Java
    and Spark Connect clients call) list what plain Spark would: an open transaction's new version (a work table, in
    the metastore until COMMIT) is the log's bookkeeping and is not listed; a LIKE pattern that names the reserved
    prefix still finds it (an operator looking for leftovers)."""
    session = attached.session
    session.sql("CREATE TABLE fact USING parquet AS SELECT 1 AS v")
    session.sql("CREATE VIEW shown AS SELECT 1 AS v")
    session.sql("START TRANSACTION")
    session.sql("CREATE OR REPLACE TABLE fact USING parquet AS SELECT 2 AS v")
    try:
        work = [row.tableName for row in session.sql("SHOW TABLES LIKE 'ddllog_*'").collect()]
        assert len(work) == 1 and TableName("default", work[0]).is_reserved
        assert sorted(row.tableName for row in session.sql("SHOW TABLES").collect()) == ["fact", "shown"]
        extended = session.sql("SHOW TABLE EXTENDED IN default LIKE '*'").collect()
        assert sorted(row.tableName for row in extended) == ["fact", "shown"]
        assert sorted(table.name for table in session.catalog.listTables()) == ["fact", "shown"]
        assert sorted(table.name for table in session.catalog.listTables("default", "*")) == ["fact", "shown"]
        jvm_listed = session._jsparkSession.catalog().listTables("default").collectAsList()
        assert sorted(table.name() for table in jvm_listed) == ["fact", "shown"]
        asked = session.catalog.listTables("default", "ddllog_*")
        assert [table.name for table in asked] == work
        assert [row.viewName for row in session.sql("SHOW VIEWS").collect()] == ["shown"]
        assert session.sql("SHOW TABLES").schema == session.sql("SHOW TABLES LIKE 'ddllog_*'").schema
    finally:
        session.sql("ROLLBACK")
    assert session.sql("SHOW TABLES LIKE 'ddllog_*'").collect() == []


def test_control_statements_out_of_place_are_refused_with_nothing_run(attached):
    session, ddl = attached.session, attached.ddl
    session.sql("CREATE TABLE kept USING parquet AS SELECT 1 AS v")
    events = len(ddl.binlog_events())
    for text in ("COMMIT", "ROLLBACK", "COMMIT TRANSACTION"):
        error = refused(session, text)
        assert isinstance(error, TransactionStateError) and "no transaction is open" in str(error)
    session.sql("START TRANSACTION")
    session.sql("TRUNCATE TABLE kept")
    nested = refused(session, "START TRANSACTION")
    assert isinstance(nested, TransactionStateError) and "open already" in str(nested)
    session.sql("COMMIT")  # the nested START changed nothing: the open transaction commits
    assert session.table("kept").count() == 0
    assert [event.statement for event in ddl.binlog_events()[events:]] == ["TRUNCATE TABLE kept"]
    from pyspark.errors import ParseException

    with pytest.raises(ParseException):  # BEGIN alone stays Spark's compound statement: not ours
        session.sql("BEGIN")


def test_two_sessions_of_one_context_each_have_their_own_transaction(spark, attached):
    """Session A commits, session B rolls back, both open at once on different tables; B's statements come from a
    second thread while its transaction's thread holds its locks."""
    a, b, ddl = attached.session, attached_session(spark), attached.ddl
    a.sql("CREATE TABLE ta USING parquet AS SELECT 1 AS v")
    a.sql("CREATE TABLE tb USING parquet AS SELECT 1 AS v")
    events = len(ddl.binlog_events())
    a.sql("START TRANSACTION")
    b.sql("START TRANSACTION")
    a.sql("CREATE OR REPLACE TABLE ta USING parquet AS SELECT 2 AS v")
    worker = threading.Thread(target=lambda: b.sql("CREATE OR REPLACE TABLE tb USING parquet AS SELECT 3 AS v"))
    worker.start()
    worker.join()
    assert b.table("tb").collect()[0].v == 1  # built aside: B's own session too reads tb as before until COMMIT
    b.sql("ROLLBACK")
    a.sql("COMMIT")
    assert spark.table("ta").collect()[0].v == 2 and spark.table("tb").collect()[0].v == 1
    assert [e.statement for e in ddl.binlog_events()[events:]] == [
        "CREATE OR REPLACE TABLE ta USING parquet AS SELECT 2 AS v"]


def test_closing_the_engine_rolls_back_an_open_transaction(open_attached):
    attached = open_attached("closing")
    session = attached.session
    session.sql("CREATE TABLE left_open USING parquet AS SELECT 1 AS v")
    session.sql("START TRANSACTION")
    session.sql("CREATE OR REPLACE TABLE left_open USING parquet AS SELECT 2 AS v")
    attached.ddl.close()
    session.conf.set("spark.ddlLog.enabled", "false")
    assert session.table("left_open").collect()[0].v == 1


def test_spark_sql_inside_a_python_block_is_the_sessions_statement_and_never_waits_forever(open_attached):
    """A ``with ddl.transaction():`` block is the engine object's; a ``spark.sql`` call on the attached session inside
    it reaches the engine on Py4J's callback thread, as the session's own statement: on another object it commits
    alone (the block's rollback leaves it); on an object the block changed it would wait for the block's lock while
    the block's thread waits for it, so it waits at most ``lock_wait_seconds`` and fails with
    MetadataLockTimeoutError, which rolls the block back."""
    from pyspark.errors import AnalysisException

    from storage.errors import MetadataLockTimeoutError

    attached = open_attached(lock_wait_seconds=1)
    session, ddl = attached.session, attached.ddl
    session.sql("CREATE TABLE alone USING parquet AS SELECT 1 AS v")
    session.sql("CREATE TABLE held USING parquet AS SELECT 1 AS v")
    with pytest.raises(RuntimeError), ddl.transaction():
        ddl.sql("CREATE OR REPLACE TABLE held USING parquet AS SELECT 2 AS v")
        session.sql("CREATE OR REPLACE TABLE alone USING parquet AS SELECT 3 AS v")
        raise RuntimeError("the block fails: rolled back")
    assert tables(session) == {"alone": [(3,)], "held": [(1,)]}
    with pytest.raises(AnalysisException) as failed, ddl.transaction():
        ddl.sql("CREATE OR REPLACE TABLE held USING parquet AS SELECT 4 AS v")
        session.sql("DROP TABLE held")
    assert isinstance(statement_error(failed.value), MetadataLockTimeoutError)
    assert tables(session) == {"alone": [(3,)], "held": [(1,)]}
