"""``ddl-log history TABLE`` (JSON lines) and the kept versions in ``ddl-log status``: read from the log without
Spark and without the home's lock."""

from __future__ import annotations

import json
from pathlib import Path

from ddl_log import AtomicDDL
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from tests.cli.conftest import Runner


def test_history_and_status_show_the_kept_versions(cli: Runner, home: Path) -> None:
    catalog = memory_catalog()
    catalog.backend.add_user_table(TableName("default", "t"), ("a",), [(1,)])
    catalog.backend.tables[TableName("default", "t")].location = "memory:/default/ddllog_0_t_tmp"
    with AtomicDDL(home=home, catalog=catalog, retention_seconds=7200) as ddl:
        first = ddl.create_or_replace_table("t", df=MemoryTable("", ("b",), [(2,)])).version
        second = ddl.truncate_table("t").version
    history = cli("history", "t")
    assert history.returncode == 0, history.stderr
    rows = [json.loads(line) for line in history.stdout.splitlines()]
    assert [(r["version"], r["operation"], r["retired_by"], r["table"]) for r in rows] == [
        (second, "CREATE OR REPLACE TABLE", "TRUNCATE TABLE", "default.t"),
        (first, None, "CREATE OR REPLACE TABLE", "default.t")]  # the first made outside the log
    assert rows[0]["statement"].startswith("CREATE OR REPLACE TABLE") and rows[1]["dropped"] is False
    assert rows[1]["retired_statement"].startswith("CREATE OR REPLACE TABLE")
    assert set(rows[0]) >= {"timestamp", "retired_at", "periods", "restorable_until", "location", "size_bytes"}
    assert cli("history", "other").stdout == ""

    status = cli("status")
    assert "kept versions (2, 0 bytes;" in status.stdout
    assert f"version {first} of default.t (CREATE OR REPLACE TABLE at " in status.stdout
    assert f"version {second} of default.t (made by CREATE OR REPLACE TABLE at " in status.stdout
    assert [v["version"] for v in json.loads(cli("status", "--json").stdout)["kept_versions"]] == [first, second]


def test_sql_prints_the_rows_of_describe_history(capsys) -> None:
    from ddl_log.engine.history_statements import HistoryResult, HistoryRow
    from ddl_log.frontends.cli.output import print_result
    from ddl_log.frontends.sql import SqlResult

    row = HistoryRow(7, "2026-11-25 08:00:00", "TRUNCATE TABLE", "default.t", "TRUNCATE TABLE t", False, False,
                     "2026-11-25 09:00:00", "CREATE OR REPLACE TABLE", "2026-11-26 09:00:00",
                     (("2026-11-25 08:00:00", "2026-11-25 09:00:00"),), "file:/w/ddllog_3_abcdef_tmp", 42)
    result = SqlResult("DESCRIBE HISTORY t", "ddl", HistoryResult(rows=(row,)))
    print_result(result, as_json=False)
    header, line = capsys.readouterr().out.splitlines()
    assert header.split("\t")[:3] == ["version", "timestamp", "operation"] and line.split("\t")[0] == "7"
    print_result(result, as_json=True)
    assert json.loads(capsys.readouterr().out)["operation"] == "TRUNCATE TABLE"
