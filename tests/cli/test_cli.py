"""The ``ddl-log`` console script, run in subprocesses, for everything that needs no Spark: inspection commands on
fresh, populated, crashed, abandoned and damaged homes; usage errors; statements refused before anything runs; and
proof that ``status``/``recover``/``dump``/``binlog``/``crash-points`` never start a JVM and answer in under a second.
(Homes are populated in-process through the Python API on the in-memory catalog.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from actions.kinds.create_table import log_create_table
from chains.entries import ChainKind
from chains.log import LOG_FILE, dump_records, open_log
from ddl_log import AtomicDDL
from ddl_log.frontends.sql import run_sql
from storage import crashpoints
from storage.catalogs.memory import memory_catalog
from storage.catalogs.names import TableName
from storage.crashpoints import SimulatedCrash
from storage.records.file_store import FileRecordStore
from tests.cli.conftest import Runner, clean_env, command

STATEMENTS = ["CREATE TABLE t (a INT)", "RENAME TABLE t TO u"]


def populate(home: Path) -> None:
    """Two committed statements; the log keeps their (closed) chains until the next open compacts it."""
    with AtomicDDL(home=home, catalog=memory_catalog()) as ddl:
        run_sql(ddl, ";\n".join(STATEMENTS))


def crash_mid_statement(home: Path) -> None:
    """A statement killed after its work, before its binlog event: its chain stays active."""
    ddl = AtomicDDL(home=home, catalog=memory_catalog())
    try:
        with crashpoints.armed("commit.before_binlog"), pytest.raises(SimulatedCrash):
            run_sql(ddl, "CREATE TABLE crashed (a INT)")
    finally:
        ddl.abandon()


def abandon_a_chain(home: Path) -> int:
    """A chain recovery gave up on (written straight to the log)."""
    os.makedirs(home / "ddl_log", mode=0o700, exist_ok=True)
    log = open_log(str(home / "ddl_log"))
    try:
        position = log.new_chain(ChainKind.UNDO, "CREATE TABLE stuck (a INT)")
        log_create_table(log, position, TableName("default", "ddllog_tmp_stuck"), "x", owns_location=True)
        log.abandon(position)
        return position
    finally:
        log.close_file()


# ---------------------------------------------------------------------------------------------------- fresh home


def test_status_and_recover_on_a_fresh_home(cli: Runner, home: Path) -> None:
    status = cli("status")
    assert (status.returncode, status.stderr) == (0, "")
    assert status.stdout.splitlines() == [f"home: {home}", "no active or abandoned chains"]
    assert not home.exists(), "status only reads: it must not create the home"

    recover = cli("recover")
    assert (recover.returncode, recover.stdout, recover.stderr) == (0, "nothing to recover\n", "")
    assert json.loads(cli("recover", "--json").stdout) == {"outcomes": [], "abandoned": [], "compacted": False,
                                                      "note": None, "takeovers": []}
    assert json.loads(cli("status", "--json").stdout) == {"home": str(home), "active": [], "abandoned": [],
                                                          "pending_deletions": [], "kept_directories": [],
                                                          "kept_versions": [], "problems": []}


def test_home_comes_from_the_environment_then_the_default(cli: Runner, home: Path, tmp_path: Path) -> None:
    by_env = cli("status", with_home=False, env=clean_env(DDL_LOG_HOME=str(home)))
    assert by_env.stdout.splitlines()[0] == f"home: {home}"
    by_default = cli("status", with_home=False)
    assert by_default.stdout.splitlines()[0] == f"home: {tmp_path / 'ddl_home'}"


def test_python_dash_m_runs_the_same_command(home: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "ddl_log", "--home", str(home), "status"], capture_output=True,
                          text=True, env=clean_env(), check=False)
    assert done.returncode == 0 and done.stdout.startswith(f"home: {home}\n")


def test_global_options_also_work_after_the_command(cli: Runner, home: Path) -> None:
    done = cli("status", "--home", str(home / "other"), with_home=False)
    assert done.stdout.splitlines()[0] == f"home: {home / 'other'}"


# ---------------------------------------------------------------------------------------------------- populated


def test_binlog_lists_statements_as_written(cli: Runner, home: Path) -> None:
    populate(home)
    listed = cli("binlog")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines] == ["#1", "#2"]
    assert [line.split("  ", 3)[3] for line in lines] == STATEMENTS

    events = [json.loads(line) for line in cli("binlog", "--json").stdout.splitlines()]
    assert [e["statement"] for e in events] == STATEMENTS
    assert [e["seq"] for e in events] == [1, 2] and all(isinstance(e["xid"], int) for e in events)

    since = cli("binlog", "--since", "1", "--json")
    assert [json.loads(line)["statement"] for line in since.stdout.splitlines()] == STATEMENTS[1:]
    assert cli("binlog", "--since", "2").stdout == ""


def test_dump_lists_every_record_with_its_fields(cli: Runner, home: Path) -> None:
    populate(home)
    records, _, size = dump_records(FileRecordStore(str(home / "ddl_log")))
    text = cli("dump")
    assert text.returncode == 0 and text.stderr == ""
    lines = text.stdout.splitlines()
    assert lines[0] == f"{home / 'ddl_log' / LOG_FILE}: {len(records)} records, {size} bytes"
    assert len(lines) == 1 + len(records)
    assert any(" exe " in line and "stmt=CREATE TABLE t (a INT)" in line for line in lines)
    assert any(" act " in line and "type=create_table" in line for line in lines)

    dumped = [json.loads(line) for line in cli("dump", "--json").stdout.splitlines()]
    assert [(d.pop("offset"), d) for d in dumped] == records


def test_status_shows_an_interrupted_statement_with_its_actions(cli: Runner, home: Path) -> None:
    crash_mid_statement(home)
    status = cli("status")
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert lines[1].startswith("active chains (2;")  # its undo chain, and the forgetting of its work table
    assert "CREATE TABLE crashed (a INT)" in lines[2] and lines[2].lstrip().startswith("#")
    assert any("create_table" in line and "phase" in line for line in lines[3:])

    chain, forget = json.loads(cli("status", "--json").stdout)["active"]
    assert chain["statement"] == "CREATE TABLE crashed (a INT)" and chain["state"] == "active"
    assert chain["actions"] and chain["actions"][0]["type"] == "create_table"
    assert [action["type"] for action in forget["actions"]] == ["forget_table"]


def test_status_lists_the_old_table_files_a_replace_keeps_for_readers_until_due(cli: Runner, home: Path) -> None:
    catalog = memory_catalog()
    catalog.backend.add_user_table(TableName("default", "t"), ("a",), [(1,)])
    with AtomicDDL(home=home, catalog=catalog, grace_seconds=600) as ddl:
        [result] = run_sql(ddl, "CREATE OR REPLACE TABLE t (b INT)")
        assert ddl.active_chains() == [] and len(ddl.pending_deletions()) == 1
    assert result.result.path == "swap"
    status = cli("status")
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert lines[1] == "no active or abandoned chains" and lines[2].startswith("pending deletions (1;")
    assert "memory:/default/t (was default.t), due " in lines[3]
    assert 500 < int(lines[3].rsplit("(in ", 1)[1].split(" s)")[0]) <= 600
    [pending] = json.loads(cli("status", "--json").stdout)["pending_deletions"]
    assert pending["location"] == "memory:/default/t" and 500 < pending["due_in_seconds"] <= 600
    assert pending["statement"].startswith("CREATE OR REPLACE TABLE")


def test_abandoned_chains_exit_3_from_status_and_recover(cli: Runner, home: Path) -> None:
    position = abandon_a_chain(home)
    status = cli("status")
    assert status.returncode == 3
    assert "abandoned chains (1;" in status.stdout and "CREATE TABLE stuck (a INT)" in status.stdout
    assert f"#{position}" in status.stdout
    assert "would 1: drop table default.ddllog_tmp_stuck if it still has identity x" in status.stdout
    assert "--retry-abandoned" in status.stdout
    assert json.loads(cli("status", "--json").stdout)["abandoned"][0]["position"] == position

    recover = cli("recover")
    assert recover.returncode == 3
    assert f"abandoned chains remain (#{position})" in recover.stdout
    assert json.loads(cli("recover", "--json").stdout)["abandoned"][0]["statement"] == "CREATE TABLE stuck (a INT)"


# ---------------------------------------------------------------------------------------------------- damaged log


def log_path(home: Path) -> Path:
    return home / "ddl_log" / LOG_FILE


def test_dump_and_status_report_corruption_with_its_offset(cli: Runner, home: Path) -> None:
    populate(home)
    records, _, _ = dump_records(FileRecordStore(str(home / "ddl_log")))
    assert len(records) >= 4
    bad = records[1][0]
    data = bytearray(log_path(home).read_bytes())
    data[bad + 9] ^= 0xFF  # inside the second record's payload: its checksum fails, valid records follow
    log_path(home).write_bytes(bytes(data))

    dump = cli("dump")
    assert dump.returncode == 1
    assert f"corrupt record at offset {bad}" in dump.stderr and dump.stderr.startswith("error: ")
    offsets = [int(line.split()[0]) for line in dump.stdout.splitlines()[1:]]
    assert offsets == [offset for offset, _ in records if offset != bad], "records before and after are listed"

    status = cli("status")
    assert status.returncode == 1 and f"offset {bad}" in status.stderr


def test_dump_reports_a_torn_tail_as_a_note(cli: Runner, home: Path) -> None:
    populate(home)
    records, end, _ = dump_records(FileRecordStore(str(home / "ddl_log")))
    with open(log_path(home), "ab") as handle:
        handle.write(b"\x40\x00\x00\x00torn")
    dump = cli("dump")
    assert dump.returncode == 0
    assert dump.stderr.startswith("note: ") and f"torn tail of 8 bytes at offset {end}" in dump.stderr
    assert len(dump.stdout.splitlines()) == 1 + len(records)


def test_a_file_that_is_not_a_log_is_one_clear_error(cli: Runner, home: Path) -> None:
    os.makedirs(home / "ddl_log", mode=0o700)
    log_path(home).write_bytes(b"this is not a DDL log at all")
    for args in (["dump"], ["status"]):
        done = cli(*args)
        assert done.returncode == 1, args
        assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
        assert "Traceback" not in done.stderr


# ---------------------------------------------------------------------------------------------------- crash points


def test_crash_points_one_name_per_line(cli: Runner) -> None:
    done = cli("crash-points")
    assert done.returncode == 0
    names = done.stdout.splitlines()
    assert names == sorted(set(names))
    for expected in ("commit.before_binlog", "commit.after_binlog", "record.torn_write", "recovery.before_chain",
                     "log.before_compact", "binlog.before_rotate"):
        assert expected in names
    assert any(name.startswith("replace.") for name in names)
    assert names == every_point_declared_on_import()

    described = cli("crash-points", "--describe").stdout.splitlines()
    assert [line.split("\t")[0] for line in described] == names
    assert all(len(line.split("\t")) == 2 and line.split("\t")[1] for line in described)


def every_point_declared_on_import() -> list[str]:
    """Import every project module (Spark ones too) in a fresh process and list the registry: what the command,
    which skips modules that need Spark at import, must match."""
    code = textwrap.dedent("""
        import importlib, pkgutil
        from storage import crashpoints
        for package in ("storage", "chains", "actions", "replace_table", "ddl_log"):
            for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
                if info.name.split(".")[-1] not in ("__main__", "cli", "demo"):
                    importlib.import_module(info.name)
        print("\\n".join(crashpoints.names()))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(),
                          cwd=Path(__file__).parents[2], check=True)
    return done.stdout.splitlines()


# ---------------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("args", [["bogus"], [], ["sql"], ["binlog", "--since", "x"], ["binlog", "--since", "-1"],
                                  ["status", "--nope"], ["sql", "-f"]])
def test_usage_errors_exit_2(cli: Runner, args: list[str]) -> None:
    done = cli(*args)
    assert done.returncode == 2, done
    assert "usage: ddl-log" in done.stderr and "Traceback" not in done.stderr


def test_parse_error_exits_1_with_line_and_column_and_runs_nothing(cli: Runner, home: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.sql"
    script.write_text("CREATE TABLE a (x INT);\nCREATE TABLE b (x INT,\n  y INT;\n")
    done = cli("sql", "-f", str(script))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"error: {script}: syntax error at line 3, column 5 near 'INT': Expecting )\n"
    assert len(done.stderr.splitlines()) == 1
    assert not home.exists(), "a script that does not parse does not even open the home"

    second = cli("sql", "SELECT 1", "SELECT 'open")
    assert second.returncode == 1
    assert second.stderr == "error: argument 2: syntax error at line 1, column 8 near \"'open\": unterminated string\n"


def test_stdin_script_and_missing_file(cli: Runner) -> None:
    done = cli("sql", "-f", "-", stdin="SELECT (")
    assert done.returncode == 1 and "syntax error at line 1, column 8" in done.stderr
    missing = cli("sql", "-f", "no-such-file.sql")
    assert missing.returncode == 1 and missing.stderr.startswith("error: no-such-file.sql: ")


def test_unsupported_ddl_is_refused_plainly(cli: Runner) -> None:
    done = cli("sql", "CREATE TABLE t (a INT) USING parquet LOCATION '/tmp/elsewhere'")
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1
    assert "LOCATION" in done.stderr and "would not be atomic" in done.stderr and "--allow-non-atomic" in done.stderr


@pytest.mark.spark  # `ddl-log sql` asks Spark how a name resolves (another catalog's names are not reserved)
def test_reserved_names_are_refused(cli: Runner, home: Path) -> None:
    done = cli("sql", "CREATE TABLE default.ddllog_x (a INT)")
    assert done.returncode == 1
    # Resolving `default.x` as Spark does asks the session whether `default` is a catalog: the JVM may start and say so.
    lines = [line for line in done.stderr.splitlines() if not line.startswith("WARNING: ")]
    assert lines == ["error: names starting with 'ddllog_' are reserved for the DDL log: 'ddllog_x'"]
    assert cli("binlog").stdout == ""


# ---------------------------------------------------------------------------------------------------- no JVM


PROBE = textwrap.dedent("""
    import json, os, sys
    from ddl_log.frontends.cli import main
    code = main(sys.argv[1:])
    me = str(os.getpid())
    children = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if entry.isdigit() and fields[1] == me:
            children.append(entry)
    spark = sorted(m for m in sys.modules if m.split(".")[0] in ("pyspark", "py4j"))
    print(json.dumps({"code": code, "spark_modules": spark, "children": children}),
          file=sys.stderr)
""")


@pytest.mark.parametrize("args", [["status"], ["recover"], ["dump"], ["binlog"], ["crash-points"],
                                  ["--no-binlog", "recover"], ["status", "--json"], ["recover", "--json"]])
def test_inspection_and_no_op_recovery_start_no_jvm(home: Path, tmp_path: Path, args: list[str]) -> None:
    """How long they take is measured in bench/test_cli_startup.py (target: under a second), not asserted here,
    where a machine busy with Spark tests would fail it."""
    populate(home)  # closed chains in the log: recovery has work to look at, none that needs Spark
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    done = subprocess.run([sys.executable, str(probe), "--home", str(home), *args], capture_output=True, text=True,
                          env=clean_env(), cwd=Path(__file__).parents[2], check=False)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr
    assert report["spark_modules"] == [], "pyspark must not even be imported"
    assert report["children"] == [], "no JVM (or any other child process) may be started"


def test_console_script_is_installed() -> None:
    assert command()[0].endswith("ddl-log"), "the ddl-log console script is not installed in this environment"
