"""The ``ddl-log`` console script with real Spark (each ``sql``/``recover`` that needs Spark starts its own JVM, so
these are few and each does a lot): a script end to end, a statement killed by a crash point and recovered from the
shell, and failing statements."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.cli.conftest import Runner, clean_env, needs_java

pytestmark = pytest.mark.spark

SCRIPT = """\
-- a table with data; statements are split at ; only outside strings and comments
CREATE TABLE t (a INT, s STRING) USING parquet;
INSERT INTO t VALUES (1, 'x;y'), (2, 'tab\\there');
SELECT * FROM t ORDER BY a;
CREATE OR REPLACE TABLE t USING parquet AS
  SELECT a * 10 AS a, s FROM t;
SELECT a, s FROM t ORDER BY a
"""


def test_a_script_end_to_end(cli: Runner, tmp_path: Path) -> None:
    needs_java()
    script = tmp_path / "script.sql"
    script.write_text(SCRIPT)
    done = cli("sql", "-f", str(script))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "ok  CREATE TABLE t (a INT, s STRING) USING parquet  (created)  [binlog #1]"
    assert lines[1].startswith("ok  INSERT INTO t VALUES (1, 'x;y'), (2, 'tab\\there')  (")  # its files added
    assert lines[1].endswith("files added)  [binlog #2]")
    assert lines[2:5] == ["a\ts", "1\tx;y", "2\ttab\\there"]
    assert lines[5] == ("ok  CREATE OR REPLACE TABLE t USING parquet AS SELECT a * 10 AS a, s FROM t  "
                        "(replaced the old table: definition swap, old files kept for readers)  [binlog #3]")
    assert lines[6:] == ["a\ts", "10\tx;y", "20\ttab\\there"]
    assert "Traceback" not in done.stderr

    events = [json.loads(line) for line in cli("binlog", "--json").stdout.splitlines()]
    assert [e["statement"] for e in events] == [
        "CREATE TABLE t (a INT, s STRING) USING parquet",
        "INSERT INTO t VALUES (1, 'x;y'), (2, 'tab\\there')",
        "CREATE OR REPLACE TABLE t USING parquet AS\n  SELECT a * 10 AS a, s FROM t",
    ], "the binlog holds each statement exactly as written"
    status = cli("status")
    assert (status.returncode, status.stdout.splitlines()[1]) == (0, "no active or abandoned chains")
    # t was made at a directory of its own: its first version waits there for readers, <warehouse>/t stays free
    assert "release default.t" not in done.stderr and "plain Spark cannot" not in status.stdout

    queried = cli("sql", "--json", "SELECT a FROM t WHERE a > 10; SELECT * FROM nope")
    assert queried.returncode == 1
    assert [json.loads(line) for line in queried.stdout.splitlines()] == [{"a": 20}]
    [error] = queried.stderr.strip().splitlines()[-1:]
    assert error.startswith("error: statement 2 of 2 (line 1): [TABLE_OR_VIEW_NOT_FOUND]")
    assert "Traceback" not in queried.stderr


def test_a_statement_killed_mid_way_is_undone_by_recover(cli: Runner) -> None:
    needs_java()
    # One process (one JVM start) makes and fills the table, then is killed in the replace: the CREATE TABLE and the
    # INSERT pass commit.before_binlog once each, the replace is the third hit.
    killed = cli("sql", "CREATE TABLE t (a INT) USING parquet; INSERT INTO t VALUES (1), (2); "
                 "CREATE OR REPLACE TABLE t USING parquet AS SELECT a + 100 AS a FROM t",
                 env=clean_env(DDL_LOG_CRASH_AT="commit.before_binlog:3"))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    lines = killed.stdout.splitlines()
    assert lines[0] == "ok  CREATE TABLE t (a INT) USING parquet  (created)  [binlog #1]"
    assert lines[1].startswith("ok  INSERT INTO t VALUES (1), (2)  (") and len(lines) == 2, "set up before the kill"

    status = cli("status")  # needs no Spark: reads the log
    assert status.returncode == 0
    assert "active chains (" in status.stdout and "CREATE OR REPLACE TABLE t" in status.stdout

    recovered = cli("recover")
    assert recovered.returncode == 0, recovered.stderr
    assert "recovery: undone" in recovered.stdout and "CREATE OR REPLACE TABLE t" in recovered.stdout
    assert cli("status").stdout.splitlines()[1] == "no active or abandoned chains"
    assert cli("recover").stdout == "nothing to recover\n"

    after = cli("sql", "--json", "SELECT a FROM t ORDER BY a")
    assert after.returncode == 0, after.stderr
    assert [json.loads(line) for line in after.stdout.splitlines()] == [{"a": 1}, {"a": 2}], "the old table"
    assert [json.loads(e)["statement"] for e in cli("binlog", "--json").stdout.splitlines()] == [
        "CREATE TABLE t (a INT) USING parquet", "INSERT INTO t VALUES (1), (2)"], "the killed statement never committed"


def test_dropping_a_missing_table_is_one_clear_error(cli: Runner) -> None:
    needs_java()
    done = cli("sql", "DROP TABLE nope")
    assert done.returncode == 1
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "nope" in line and "Traceback" not in done.stderr
    assert cli("binlog").stdout == ""


def test_recover_retry_abandoned_runs_an_abandoned_chain_again(cli: Runner, home: Path) -> None:
    needs_java()
    from tests.cli.test_cli import abandon_a_chain

    position = abandon_a_chain(home)
    assert cli("recover").returncode == 3, "a plain recover leaves abandoned chains alone"
    retried = cli("recover", "--retry-abandoned")
    assert retried.returncode == 0, retried.stderr
    assert f"reopened  #{position}" in retried.stdout and f"undone    #{position}" in retried.stdout
    assert cli("status").stdout.splitlines()[1] == "no active or abandoned chains"
