"""Spark Connect's server attached to a home (``ddl-log connect-server``), through a real Connect client in a process
of its own. Each client session is a Spark session of its own in the server's driver: its ``spark.sql`` DDL runs
through the home's log (atomic, binlogged); of its DataFrame writes, those Spark 4.0 plans as v1 commands run as
their matching statement through the log, the two that drop or replace a table in the JVM writer
(``saveAsTable`` overwrite, ``writeTo(t).createOrReplace/replace``) are refused before anything changes. One server
and one client session serve the module (the scenario below runs once; each test reads its part). From Spark 4.1 a
JVM ``saveAsTable`` is a plan (``SaveAsV1TableCommand``): its overwrite mode then runs as CREATE OR REPLACE through
the log instead of being refused."""

from __future__ import annotations

import json
from typing import Any

import pyspark
import pytest

from tests.connect.clients import connect
from tests.spark_lines import SAVE_AS_V1_TABLE_PLANNED, at_least
from tests.thrift.clients import CONNECT, Server, binlog, ddl_log, status

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("connect_server")]

SAVE_AS_TABLE_PLANNED = at_least(pyspark.__version__, SAVE_AS_V1_TABLE_PLANNED)
"""The Connect server runs the client's pyspark line (the same install)."""

FRAME = "SELECT id AS n, 'frame' AS w FROM range(4)"
STATEMENTS = [
    ("create", "CREATE TABLE sales USING parquet AS SELECT id AS n, 'old' AS w FROM range(1000)"),
    ("replace", "CREATE OR REPLACE TABLE sales USING parquet AS SELECT id AS n, 'new' AS w FROM range(10)"),
    ("overwrite", "INSERT OVERWRITE sales SELECT id, 'over' FROM range(3)"),
    ("rename", "ALTER TABLE sales RENAME TO sales2"),
    ("drop", "DROP TABLE sales2"),
]
MARKED: list[list[Any]] = [
    ["sql", "named markers", "CREATE TABLE marked USING parquet AS SELECT :n AS n, :w AS w", {"n": 1, "w": "it's"}],
    ["sql", "positional markers", "INSERT INTO marked SELECT ? + 1, ?", [1, "b"]],
    ["sql", "marked rows", "SELECT n, w FROM marked ORDER BY n"],
]
"""Statements with parameter markers (``spark.sql(text, args)`` of the Connect client)."""
WRITES: list[list[Any]] = [
    ["sql", "base", "CREATE TABLE base USING parquet AS SELECT id AS n, 'base' AS w FROM range(5)"],
    ["write", "saveAsTable new", FRAME, "saveAsTable", "made"],
    ["write", "saveAsTable append", FRAME, "saveAsTable:append", "made"],
    ["write", "insertInto", FRAME, "insertInto", "made"],
    ["sql", "made rows", "SELECT w, count(*) FROM made GROUP BY w"],
    ["write", "insertInto overwrite", FRAME, "insertInto:overwrite", "made"],
    ["sql", "made after overwrite", "SELECT w, count(*) FROM made GROUP BY w"],
    ["write", "writeTo create", FRAME, "writeTo:create", "created"],
    ["write", "saveAsTable overwrite", FRAME, "saveAsTable:overwrite", "base"],
    ["write", "writeTo createOrReplace", FRAME, "writeTo:createOrReplace", "base"],
    ["write", "writeTo replace", FRAME, "writeTo:replace", "base"],
    ["write", "writeTo append", FRAME, "writeTo:append", "base"],
    ["sql", "base after refusals", "SELECT w, count(*) FROM base GROUP BY w"],
]


@pytest.fixture(scope="module")
def scenario(server: Server) -> dict[str, Any]:
    """The statements, then the DataFrame writes, in one Connect session; the binlog after each part."""
    steps: list[list[Any]] = [["sql", label, text] for label, text in STATEMENTS]
    steps += [["sql", "tables", "SHOW TABLES"]]
    outcomes = connect(server, *steps)
    after_statements = binlog(server.home)
    outcomes.update(connect(server, *WRITES))
    after_writes = binlog(server.home)
    outcomes.update(connect(server, *MARKED))
    return {"outcomes": outcomes, "after_statements": after_statements, "after_writes": after_writes,
            "after_marked": binlog(server.home)}


def test_status_names_the_server_by_its_sc_url_and_a_second_start_finds_it_running(server: Server):
    code, found = status(server.home, CONNECT)
    assert code == 0 and found["running"] and found["state"] == "running" and found["pid"] > 0
    assert found["url"] == f"sc://127.0.0.1:{found['port']}"
    again = ddl_log(server.home, CONNECT, "start", "--json")
    assert again.returncode == 0 and f'"pid": {found["pid"]}' in again.stdout
    other_port = ddl_log(server.home, CONNECT, "start", "--port", str(found["port"] + 1))
    assert other_port.returncode == 1 and "already running on port" in other_port.stderr


def test_a_connect_clients_ddl_runs_through_the_log_in_order(scenario):
    outcomes = scenario["outcomes"]
    assert all("rows" in outcomes[label] for label, _ in STATEMENTS), outcomes
    assert scenario["after_statements"] == [text for _, text in STATEMENTS]
    assert outcomes["tables"]["rows"] == []  # renamed, then dropped: nothing left


def test_a_connect_clients_parameter_markers_are_bound_with_the_values_written_in(scenario):
    """As on a classic session (tests/attached/test_routing.py): the statement runs through the log, its binlog text
    the one with the values written in, on every Spark line (4.0 binds them in the analysed plan)."""
    outcomes = scenario["outcomes"]
    assert outcomes["marked rows"]["rows"] == [[1, "it's"], [2, "b"]], outcomes
    assert scenario["after_marked"][len(scenario["after_writes"]):] == [
        "CREATE TABLE marked USING parquet AS SELECT 1 AS n, 'it\\'s' AS w",
        "INSERT INTO marked SELECT 1 + 1, 'b'",
    ]


def test_dataframe_writes_spark_plans_run_as_their_matching_statement(scenario):
    outcomes = scenario["outcomes"]
    for label in ("saveAsTable new", "saveAsTable append", "insertInto", "insertInto overwrite", "writeTo create"):
        assert outcomes[label] == {"label": label, "rows": []}
    assert outcomes["made rows"]["rows"] == [["frame", 12]]
    assert outcomes["made after overwrite"]["rows"] == [["frame", 4]]
    written = scenario["after_writes"][len(scenario["after_statements"]):]
    assert written == [
        "CREATE TABLE base USING parquet AS SELECT id AS n, 'base' AS w FROM range(5)",
        "CREATE TABLE `default`.`made` USING parquet AS /* DataFrame */",
        "INSERT INTO TABLE `default`.`made` /* DataFrame */",
        "INSERT INTO TABLE `default`.`made` /* DataFrame */",
        "INSERT OVERWRITE TABLE `default`.`made` /* DataFrame */",
        "CREATE TABLE `default`.`created` USING parquet AS /* DataFrame */",
    ] + (["CREATE OR REPLACE TABLE `default`.`base` USING parquet AS /* DataFrame */"] if SAVE_AS_TABLE_PLANNED else [])


REFUSED = [("writeTo createOrReplace", "does not support REPLACE TABLE AS SELECT"),
           ("writeTo replace", "does not support REPLACE TABLE AS SELECT")]
if not SAVE_AS_TABLE_PLANNED:
    REFUSED.insert(0, ("saveAsTable overwrite", "does not support saveAsTable in overwrite mode from the JVM"))


@pytest.mark.parametrize(("label", "message"), REFUSED)
def test_writes_that_would_drop_then_create_are_refused_loudly_and_change_nothing(scenario, label, message):
    refused = scenario["outcomes"][label]
    assert refused["error"] == "AnalysisException" and refused["condition"] == "UNSUPPORTED_FEATURE.TABLE_OPERATION"
    assert message in refused["message"]
    # the table as it was, whole (from Spark 4.1 as the atomic saveAsTable overwrite left it)
    assert scenario["outcomes"]["base after refusals"]["rows"] == ([["frame", 4]] if SAVE_AS_TABLE_PLANNED
                                                                   else [["base", 5]])
    replaced = [text for text in scenario["after_writes"] if "base" in text and "DataFrame" in text]
    assert replaced == (["CREATE OR REPLACE TABLE `default`.`base` USING parquet AS /* DataFrame */"]
                        if SAVE_AS_TABLE_PLANNED else [])


@pytest.mark.skipif(not SAVE_AS_TABLE_PLANNED, reason="Spark 4.0 drops in the writer: refused (above)")
def test_save_as_table_overwrite_is_an_atomic_create_or_replace_from_spark_4_1(scenario):
    assert scenario["outcomes"]["saveAsTable overwrite"] == {"label": "saveAsTable overwrite", "rows": []}
    assert scenario["outcomes"]["base after refusals"]["rows"] == [["frame", 4]]


def test_write_to_append_keeps_sparks_own_refusal_of_v1_tables(scenario):
    refused = scenario["outcomes"]["writeTo append"]
    assert refused["error"] == "AnalysisException" and "Cannot write into v1 table" in refused["message"]


def test_a_second_server_on_the_held_home_is_refused_in_one_line_and_leaves_nothing(server: Server):
    """The Thrift server started on the home the Connect server holds: its driver cannot attach (the home's lock),
    ``start`` says so in one line and exits 1; nothing runs, no state is left."""
    done = ddl_log(server.home, "thrift-server", "start")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: Thrift server in {server.home / 'thrift-server'}: HomeLockedError: {server.home}: the DDL log home is "
        f"in use by another process (log: {server.home / 'thrift-server' / 'server.log'})"]
    code, found = status(server.home)
    assert (code, found["state"]) == (1, "stopped")
    assert status(server.home, CONNECT)[1]["state"] == "running"  # the holder serves on


def test_a_transaction_of_a_connect_session_commits_as_one_group_or_rolls_back(server: Server):
    """``spark.sql("START TRANSACTION")`` ... ``COMMIT`` from a Connect client: one binlog group (the server runs
    each of the session's operations on a thread of its own), its catalog API listing no work table of the open
    transaction but for a pattern that names them; then START ... ROLLBACK: nothing of it stays."""
    outcomes = connect(server,
                       ["sql", "made", "CREATE TABLE tx_a USING parquet AS SELECT 1 AS v"],
                       ["sql", "made c", "CREATE TABLE tx_c USING parquet AS SELECT 3 AS v"],
                       ["sql", "start", "START TRANSACTION"],
                       ["sql", "replace", "CREATE OR REPLACE TABLE tx_a USING parquet AS SELECT 2 AS v"],
                       ["sql", "rename", "ALTER TABLE tx_c RENAME TO tx_b"],
                       ["tables", "listed", None],
                       ["tables", "work tables", "ddllog_*"],
                       ["sql", "commit", "COMMIT"],
                       ["sql", "again", "BEGIN WORK"],
                       ["sql", "drop", "DROP TABLE tx_b"],
                       ["sql", "rollback", "ROLLBACK"],
                       ["sql", "after", "SELECT (SELECT v FROM tx_a) AS a, (SELECT v FROM tx_b) AS b"],
                       ["sql", "nothing open", "COMMIT"])
    assert outcomes["after"].get("rows") == [[2, 3]], outcomes
    assert not [row for row in outcomes["listed"]["rows"] if row[0].startswith("ddllog_")], outcomes["listed"]
    assert outcomes["work tables"]["rows"] and all(row[0].startswith("ddllog_")  # the pattern asks for them
                                                   for row in outcomes["work tables"]["rows"])
    assert outcomes["nothing open"]["error"] == "AnalysisException"
    assert "no transaction is open" in outcomes["nothing open"]["message"]
    done = ddl_log(server.home, "binlog", "--json")
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [(event["statement"], event.get("txn")) for event in events[-3:]] == [
        ("CREATE TABLE tx_c USING parquet AS SELECT 3 AS v", None),
        ("CREATE OR REPLACE TABLE tx_a USING parquet AS SELECT 2 AS v", [1, 2]),
        ("ALTER TABLE tx_c RENAME TO tx_b", [2, 2])]


def test_a_connect_session_released_with_its_transaction_open_is_rolled_back(server: Server):
    """The client ends (``spark.stop()`` releases its session) inside a transaction: the server's session-closed
    event rolls it back; the table as before, nothing binlogged, its locks free for the next client."""
    connect(server, ["sql", "made", "CREATE TABLE tx_gone USING parquet AS SELECT 1 AS v"])
    before = ddl_log(server.home, "binlog", "--json").stdout
    left = connect(server, ["sql", "start", "START TRANSACTION"],
                   ["sql", "replace", "CREATE OR REPLACE TABLE tx_gone USING parquet AS SELECT 2 AS v"])
    assert left["replace"] == {"label": "replace", "rows": []}
    for _ in range(6):  # the rollback runs once the bus delivered the event: at once, as a rule
        seen = connect(server, ["sql", "v", "SELECT v FROM tx_gone"])["v"]
        if seen.get("rows") == [[1]]:
            break
    assert seen.get("rows") == [[1]], seen
    assert connect(server, ["sql", "truncate", "TRUNCATE TABLE tx_gone"])["truncate"] == {"label": "truncate",
                                                                                           "rows": []}
    after = ddl_log(server.home, "binlog", "--json").stdout
    assert after.startswith(before) and "TRUNCATE TABLE tx_gone" in after[len(before):]
    assert "CREATE OR REPLACE TABLE tx_gone" not in after
