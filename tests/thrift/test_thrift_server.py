"""Spark's Thrift server attached to a home (``ddl-log thrift-server``), through the clients users connect with:
beeline over JDBC and PyHive. Each connection is a Spark session of its own in the server's driver; the DDL of every
one runs through the home's log (atomic, binlogged), refused forms get Spark's error, and two sessions replacing one
table at once are serialised by the log's locks. One server serves the module."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from tests.thrift.clients import Server, beeline, binlog, ddl_log, location, metadata, pyhive, rows, status

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("thrift_server")]


def test_status_names_the_server_and_a_second_start_finds_it_running(server: Server):
    code, found = status(server.home)
    assert code == 0 and found["running"] and found["state"] == "running"
    assert found["url"] == f"jdbc:hive2://127.0.0.1:{found['port']}/default" and found["pid"] > 0
    again = ddl_log(server.home, "thrift-server", "start", "--json")
    assert again.returncode == 0 and f'"pid": {found["pid"]}' in again.stdout
    other_port = ddl_log(server.home, "thrift-server", "start", "--port", str(found["port"] + 1))
    assert other_port.returncode == 1 and "already running on port" in other_port.stderr


def test_create_or_replace_over_jdbc_is_atomic_and_binlogged(server: Server):
    done = beeline(server.url,
                   "CREATE TABLE sales USING parquet AS SELECT id, id * 2 AS amount FROM range(1000)",
                   "CREATE OR REPLACE TABLE sales USING parquet AS SELECT id, 'new' AS tag FROM range(10)",
                   "SELECT count(*), min(tag) FROM sales")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "10,new"
    assert binlog(server.home)[-2:] == [
        "CREATE TABLE sales USING parquet AS SELECT id, id * 2 AS amount FROM range(1000)",
        "CREATE OR REPLACE TABLE sales USING parquet AS SELECT id, 'new' AS tag FROM range(10)"]
    with pyhive(server) as cursor:  # another session sees the new version
        assert rows(cursor, "SELECT count(*), min(tag) FROM sales") == [(10, "new")]


def test_a_refused_form_gives_sparks_error_to_the_client_and_changes_nothing(server: Server, tmp_path):
    before = binlog(server.home)
    text = f"CREATE TABLE ext (a INT) USING parquet LOCATION '{tmp_path / 'ext'}'"
    refused = beeline(server.url, text)
    assert refused.returncode != 0  # Spark's exception, the project's typed error as its cause
    assert "Error running query: org.apache.spark.sql.AnalysisException: line 1: CREATE TABLE with LOCATION" in (
        refused.stderr)
    assert "Caused by: spark_ddl_log.StatementError: UnsupportedStatementError" in refused.stderr
    with pyhive(server) as cursor:
        assert rows(cursor, "SHOW TABLES LIKE 'ext'") == []
        cursor.execute("SET spark.ddlLog.allowNonAtomic=true")  # this session asks for Spark's own statement
        cursor.execute(text)
        assert rows(cursor, "SHOW TABLES LIKE 'ext'") == [("default", "ext", False)]
        assert binlog(server.home) == before  # Spark's own CREATE: not the log's
        cursor.execute("DROP TABLE ext")  # an external table's DROP: the log's, atomic
    assert binlog(server.home) == [*before, "DROP TABLE ext"]


def test_a_statement_spark_cannot_parse_gets_sparks_parse_error(server: Server):
    from pyhive.exc import OperationalError

    with pyhive(server) as cursor, pytest.raises(OperationalError) as failed:
        cursor.execute("CREATE OR REPLACE TABEL nope AS SELECT 1")
    assert "PARSE_SYNTAX_ERROR" in str(failed.value)


def test_two_sessions_replacing_one_table_at_once_both_run_one_after_the_other(server: Server):
    with pyhive(server) as cursor:
        cursor.execute("CREATE TABLE race USING parquet AS SELECT 0 AS who, id FROM range(10)")
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def replace(who: int) -> None:
        try:
            with pyhive(server) as cursor:
                start.wait(timeout=120)
                cursor.execute(f"CREATE OR REPLACE TABLE race USING parquet AS SELECT {who} AS who, id "
                               "FROM range(200000)")
        except BaseException as error:  # noqa: BLE001 - the test reports it below
            errors.append(error)

    threads = [threading.Thread(target=replace, args=(who,)) for who in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert errors == []
    replaces = [text for text in binlog(server.home) if text.startswith("CREATE OR REPLACE TABLE race")]
    assert len(replaces) == 2 and {text.split(" AS who")[0][-1] for text in replaces} == {"1", "2"}
    last = int(replaces[-1].split(" AS who")[0][-1])
    with pyhive(server) as cursor:  # the later one in the binlog is the table, whole
        assert rows(cursor, "SELECT who, count(*) FROM race GROUP BY who") == [(last, 200000)]
        assert location(cursor, "default.race")


def test_a_second_server_on_the_held_home_is_refused_in_one_line(server: Server, tmp_path):
    from ddl_log.ops.server_ports import free_port

    done = ddl_log(server.home, "thrift-server", "start", "--dir", str(tmp_path / "second"), "--port",
                   str(free_port()))
    assert done.returncode == 1
    first = done.stderr.strip().splitlines()[0]
    assert first.startswith(f"error: Thrift server in {tmp_path / 'second'}: HomeLockedError: "), first
    assert status(server.home)[0] == 0  # the first one serves on
    second = ddl_log(server.home, "thrift-server", "status", "--dir", str(tmp_path / "second"), "--json")
    assert json.loads(second.stdout)["state"] == "stopped"  # nothing half-started left behind


def binlog_groups(home) -> list[tuple[str, Any]]:
    """The binlog's statements with their place in a transaction (``[i, n]``, None alone)."""
    done = ddl_log(home, "binlog", "--json")
    assert done.returncode == 0, done.stderr
    found = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [(event["statement"], event.get("txn")) for event in found]


def test_a_transaction_over_one_connection_commits_as_one_group_or_rolls_back(server: Server):
    """START TRANSACTION ... COMMIT over PyHive: another connection sees nothing of it before COMMIT, then one binlog
    group; then START ... ROLLBACK on the same connection: nothing of it stays. The server runs a connection's
    statements on whichever of its threads is free: the transaction is the connection's Spark session's, not a
    thread's."""
    with pyhive(server) as cursor:
        cursor.execute("CREATE TABLE tx_fact USING parquet AS SELECT 1 AS v")
        cursor.execute("CREATE TABLE tx_old USING parquet AS SELECT 2 AS v")
        before = binlog_groups(server.home)
        body = ["CREATE OR REPLACE TABLE tx_fact USING parquet AS SELECT 10 AS v",
                "ALTER TABLE tx_old RENAME TO tx_renamed"]
        cursor.execute("START TRANSACTION")
        for text in body:
            cursor.execute(text)
        with pyhive(server) as other:  # another JDBC session sees nothing of it before COMMIT (built aside)
            assert rows(other, "SELECT v FROM tx_fact UNION ALL SELECT v FROM tx_old") == [(1,), (2,)]
            everything = rows(other, "SHOW TABLES LIKE '*|ddllog_*'")  # a pattern naming the log's prefix
            assert [row for row in everything if row[1].startswith("ddllog_")], everything  # the new version
            assert rows(other, "SHOW TABLES") == [row for row in everything if not row[1].startswith("ddllog_")]
        cursor.execute("COMMIT")
        assert binlog_groups(server.home) == [*before, (body[0], [1, 2]), (body[1], [2, 2])]
        cursor.execute("START TRANSACTION")
        cursor.execute("DROP TABLE tx_renamed")
        cursor.execute("CREATE OR REPLACE TABLE tx_fact USING parquet AS SELECT 20 AS v")
        cursor.execute("ROLLBACK")
        assert rows(cursor, "SELECT v FROM tx_fact") == [(10,)]
        assert rows(cursor, "SELECT v FROM tx_renamed") == [(2,)]
    assert len(binlog_groups(server.home)) == len(before) + 2


def test_jdbc_metadata_calls_list_no_work_table_of_an_open_transaction(server: Server):
    """A JDBC or ODBC driver's getTables and getColumns (what BI tools browse the catalog with) answer from another
    connection during an open transaction as they would without it: the transaction's new version, a work table in
    the metastore until COMMIT, is not listed; a table pattern that names the reserved prefix finds it, as SHOW
    TABLES LIKE does. beeline's ``!tables`` (Hive's JDBC driver) sees the same."""
    with pyhive(server) as cursor:
        cursor.execute("CREATE TABLE md_fact USING parquet AS SELECT 1 AS v")
        cursor.execute("START TRANSACTION")
        cursor.execute("CREATE OR REPLACE TABLE md_fact USING parquet AS SELECT 'x' AS w")
        try:
            with pyhive(server) as other:
                listed = metadata(other, "GetTables", schemaName="default", tableName="md_%")
                assert [(row[1], row[2]) for row in listed] == [("default", "md_fact")]
                columns = metadata(other, "GetColumns", schemaName="default", tableName="%", columnName="%")
                assert [row[3] for row in columns if row[2] == "md_fact"] == ["v"]
                assert not [row for row in columns if row[2].startswith("ddllog_")]
                asked = metadata(other, "GetTables", schemaName="default", tableName="ddllog_%")
                assert len(asked) == 1 and asked[0][2].startswith("ddllog_")
                asked_columns = metadata(other, "GetColumns", schemaName="default", tableName="ddllog_%")
                assert [row[3] for row in asked_columns] == ["w"]
            shell = beeline(server.url, "!tables")
            assert shell.returncode == 0, shell.stderr
            assert "md_fact" in shell.stdout and "ddllog_" not in shell.stdout, shell.stdout
        finally:
            cursor.execute("ROLLBACK")


def test_a_client_gone_with_its_transaction_open_is_rolled_back(server: Server):
    """One client closes its connection, another drops it (no CloseSession: Hive closes the session itself), each
    with a transaction open: both are rolled back (the locks let go, the tables as before, nothing binlogged)."""
    from pyhive import hive

    with pyhive(server) as cursor:
        for name in ("gone_closed", "gone_dropped"):
            cursor.execute(f"CREATE TABLE {name} USING parquet AS SELECT 1 AS v")
    before = binlog_groups(server.home)
    for name, ending in (("gone_closed", "close"), ("gone_dropped", "drop")):
        connection = hive.connect("127.0.0.1", port=server.port, username="test")
        cursor = connection.cursor()
        cursor.execute("START TRANSACTION")
        cursor.execute(f"CREATE OR REPLACE TABLE {name} USING parquet AS SELECT 2 AS v")
        if ending == "close":
            connection.close()
        else:
            connection._transport.close()  # the socket goes: the server's side closes the session
    with pyhive(server) as cursor:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and rows(cursor, "SELECT max(v) FROM gone_closed UNION ALL "
                                                           "SELECT max(v) FROM gone_dropped") != [(1,), (1,)]:
            time.sleep(1)
        assert rows(cursor, "SELECT v FROM gone_closed") == [(1,)]
        assert rows(cursor, "SELECT v FROM gone_dropped") == [(1,)]
        for name in ("gone_closed", "gone_dropped"):  # the locks are free: a statement on the table runs at once
            cursor.execute(f"TRUNCATE TABLE {name}")
    assert binlog_groups(server.home) == [*before, ("TRUNCATE TABLE gone_closed", None),
                                          ("TRUNCATE TABLE gone_dropped", None)]
