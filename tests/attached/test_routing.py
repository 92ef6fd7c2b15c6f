"""``spark.sql`` on an attached session: every statement the SQL front end routes runs through the engine with the
outcome and binlog text ``ddl.sql`` gives it, the project's own statements parse and run, and everything else is
Spark's own statement, untouched."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyspark
import pytest
from pyspark.errors import AnalysisException

from ddl_log import AtomicDDL, UnsupportedStatementError, WrongObjectKindError
from ddl_log.frontends.extension import ALLOW_NON_ATOMIC, ENABLED, last_result, statement_error
from tests.attached.conftest import attached_session
from tests.spark_lines import PARAMETERS_WRITTEN_IN, at_least

pytestmark = pytest.mark.spark

SCRIPT = [
    "CREATE TABLE t1 (a INT, b STRING) USING parquet",
    "INSERT INTO t1 VALUES (1, 'x'), (2, 'y')",
    "CREATE TABLE t2 USING parquet PARTITIONED BY (p) AS SELECT a, b, a % 2 AS p FROM t1",
    "CREATE OR REPLACE TABLE t1 USING parquet AS SELECT a * 10 AS a, b FROM t1",
    "INSERT OVERWRITE TABLE t2 SELECT a + 1, b, p FROM t2",
    "ALTER TABLE t1 SET TBLPROPERTIES ('k' = 'v')",
    "ALTER TABLE t1 ADD COLUMNS (d STRING)",
    "COMMENT ON TABLE t1 IS 'c'",
    "ALTER TABLE t1 RENAME TO t3",
    "CREATE VIEW v1 AS SELECT a, b FROM t2",
    "ALTER VIEW v1 AS SELECT a FROM t2",
    "CREATE FUNCTION f1 AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'",
    "DROP FUNCTION f1",
    "DROP VIEW v1",
    "TRUNCATE TABLE t3",
    "REPLACE TABLE t3 (a INT, b STRING) USING parquet",
    "DROP TABLE t3",
    "UNDROP TABLE t3",
    "CREATE DATABASE d9_{side}",
    "DROP DATABASE d9_{side}",
]
"""Every kind of statement the front end routes; ``{side}`` names a database of each side's own."""


def test_each_routed_statement_runs_through_the_engine_with_the_text_and_outcome_of_ddl_sql(spark, attached,
                                                                                            tmp_path):
    """The same script through ``spark.sql`` on an attached session and through ``ddl.sql`` on a plain session,
    each in a database of its own: the same binlog texts, the same tables and rows."""
    plain = spark.newSession()
    plain.sql("CREATE DATABASE side_plain")
    plain.sql("USE side_plain")
    session = attached.session
    session.sql("CREATE DATABASE side_attached")
    session.sql("USE side_attached")
    reference = AtomicDDL(spark=plain, home=tmp_path / "reference", grace_seconds=0, retention_seconds=600)
    attached.ddl.close()
    from ddl_log.frontends.extension import attach

    ddl = attach(session, home=tmp_path / "attached", grace_seconds=0, retention_seconds=600)
    try:
        for template in SCRIPT:
            reference.sql(template.format(side="plain"))
            statement = template.format(side="attached")
            frame = session.sql(statement)
            assert frame.columns == [], statement  # DDL returns what Spark's own commands return: nothing
            result = last_result(session)
            assert result is not None and result.kind == "ddl" and result.statement == statement
        texts = [event.statement for event in ddl.binlog_events()]
        assert texts == [event.statement.replace("plain", "attached") for event in reference.binlog_events()]
        assert texts[-len(SCRIPT):] == [template.format(side="attached") for template in SCRIPT]
        for table in ("t2", "t3"):
            assert sorted(session.table(table).collect()) == sorted(plain.table(table).collect())
            assert session.table(table).schema == plain.table(table).schema
    finally:
        reference.close()
        ddl.close()


def test_the_projects_own_statements_parse_and_run_in_spark_sql(open_attached):
    attached = open_attached(grace_seconds=600, retention_seconds=600)
    session = attached.session
    for value in (1, 2, 3):
        verb = "CREATE TABLE" if value == 1 else "CREATE OR REPLACE TABLE"
        session.sql(f"{verb} h USING parquet AS SELECT {value} AS a")
    history = session.sql("DESCRIBE HISTORY h")
    assert history.columns == ["version", "timestamp", "operation", "table", "statement", "current", "dropped",
                               "retired_at", "retired_by", "restorable_until", "periods", "location", "size"]
    current, newest = history.collect()[:2]  # the current version first, then the most recently retired
    assert current.current is True and newest.current is False
    assert newest.operation == "CREATE OR REPLACE TABLE" and newest.dropped is False
    session.sql(f"RESTORE TABLE h TO VERSION AS OF {newest.version}")
    assert session.table("h").collect()[0].a == 2
    with pytest.raises(AnalysisException, match="nothing this home keeps is at"):
        session.sql("RELEASE TABLE NAME h")  # parsed and run: h's versions live at directories of their own
    session.sql("DROP TABLE h")
    dropped = session.sql("SHOW TABLES DROPPED").collect()
    assert [row.table for row in dropped if row.dropped] == ["default.h"]
    session.sql("UNDROP TABLE h")
    assert session.table("h").collect()[0].a == 2
    assert [e.statement for e in attached.ddl.binlog_events()][-3:] == [
        f"RESTORE TABLE h TO VERSION AS OF {newest.version}", "DROP TABLE h", "UNDROP TABLE h"]


def test_statements_the_engine_does_not_run_are_sparks_own(attached):
    session = attached.session
    session.sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS a")
    session.sql("SET spark.sql.shuffle.partitions=3")
    assert session.conf.get("spark.sql.shuffle.partitions") == "3"
    assert session.sql("SELECT * FROM tv").collect()[0].a == 1
    session.sql("DROP VIEW tv")  # a temporary view: Spark's own
    assert session.sql("SHOW TABLES").collect() == []
    session.sql("EXPLAIN CREATE OR REPLACE TABLE x USING parquet AS SELECT 1")  # explains; runs nothing
    assert not session.catalog.tableExists("x")
    assert attached.ddl.binlog_events() == []
    assert [row.catalog for row in session.sql("SHOW CATALOGS").collect()] == ["spark_catalog"]


def test_a_statement_runs_once_when_spark_sql_returns_without_an_action(attached):
    """As Spark runs its commands at once: ``df = spark.sql(...)`` has run it, and using the frame runs nothing
    again."""
    session = attached.session
    frame = session.sql("CREATE TABLE once USING parquet AS SELECT 1 AS a")
    assert session.catalog.tableExists("once")
    frame.collect()
    frame.explain(True)
    assert len(attached.ddl.binlog_events()) == 1


def test_a_routed_statement_analyses_to_the_result_of_a_command_that_ran(attached):
    """What Spark makes of a procedure call it ran (``CommandResult`` of ``Call spark_ddl_log.statement(...)``), so
    that every client treats it as a command that ran (Spark Connect sends its rows back instead of the text to run
    again); analysing its parsed plan again returns the same result without running it again."""
    session = attached.session
    frame = session.sql("CREATE TABLE shown USING parquet AS SELECT 1 AS a")
    execution = frame._jdf.queryExecution()
    assert execution.analyzed().getClass().getSimpleName() == "CommandResult"
    assert execution.commandExecuted().getClass().getSimpleName() == "CommandResult"
    assert "Call spark_ddl_log.spark_ddl_log.statement(CREATE TABLE shown" in execution.toString()
    again = session._jvm.org.apache.spark.sql.classic.Dataset.ofRows(session._jsparkSession, execution.logical())
    assert again.queryExecution().analyzed().getClass().getSimpleName() == "CommandResult"
    assert len(attached.ddl.binlog_events()) == 1
    history = session.sql("DESCRIBE HISTORY shown")  # rows, as the engine returned them
    assert [row.operation for row in history.collect()] == ["CREATE TABLE"]
    assert history._jdf.queryExecution().analyzed().getClass().getSimpleName() == "CommandResult"


def test_allow_non_atomic_is_a_session_setting(attached, tmp_path):
    session = attached.session
    text = f"CREATE TABLE ext (a INT) USING parquet LOCATION '{tmp_path / 'ext'}'"
    with pytest.raises(Exception) as refused:
        session.sql(text)
    assert isinstance(statement_error(refused.value), UnsupportedStatementError)
    assert not session.catalog.tableExists("ext")
    session.conf.set(ALLOW_NON_ATOMIC, "true")
    session.sql(text)  # Spark's own statement, as asked
    assert session.catalog.tableExists("ext")
    assert attached.ddl.binlog_events() == []


def test_a_statement_spark_cannot_parse_fails_as_on_a_session_without_the_extension(spark, attached):
    plain = spark.newSession()
    for text in ("CREAT TABLE t (a INT)", "CREATE TABLE t (a INT", "DROP TABLE", "UNDROP TABLE",
                 "RESTORE TABLE t TO VERSION", "INSERT INTO t SELEC 1", "CREATE TABLE t (a INT); DROP TABLE t"):
        with pytest.raises(Exception) as theirs:
            plain.sql(text)
        with pytest.raises(Exception) as ours:
            attached.session.sql(text)
        assert type(ours.value) is type(theirs.value), text
        assert ours.value.getCondition() == theirs.value.getCondition(), text
        assert str(ours.value) == str(theirs.value), text


BINDINGS = ["analyzer", "parser"] if at_least(pyspark.__version__, PARAMETERS_WRITTEN_IN) else ["analyzer"]
"""Where Spark binds parameter markers: its analyzer, in the plan the parser made (Spark 4.0; Spark 4.1+ with the
legacy setting), or its parser, writing the values into the text (Spark 4.1+)."""

LEGACY_PARAMETERS = "spark.sql.legacy.parameterSubstitution.constantsOnly"


@pytest.fixture(params=BINDINGS)
def binding(request: pytest.FixtureRequest, attached: Any) -> Iterator[str]:
    """Where the case binds markers (``BINDINGS``), set on the attached session (and set back after)."""
    bind_markers(attached.session, request.param)
    yield request.param
    if at_least(pyspark.__version__, PARAMETERS_WRITTEN_IN):
        attached.session.conf.unset(LEGACY_PARAMETERS)


def bind_markers(session: Any, where: str) -> Any:
    """``session`` set to bind parameter markers ``where`` (the parser's writing in is Spark 4.1+'s only)."""
    if at_least(pyspark.__version__, PARAMETERS_WRITTEN_IN):
        session.conf.set(LEGACY_PARAMETERS, str(where == "analyzer").lower())
    return session


def test_parameter_markers_are_bound_as_spark_binds_them_with_the_values_written_in(spark, attached, binding):
    """``spark.sql(text, args)``: the engine runs and binlogs the text with the values written in, as Spark 4.1+'s
    parser writes them, wherever this Spark binds them (Spark 4.0 and the legacy setting bind them in the analysed
    plan, which the extension reads them from): the same tables and rows as plain Spark, a binlog a replica can
    replay."""
    plain = bind_markers(spark.newSession(), binding)
    statements = [  # each with the text the engine runs (values written in), where Spark accepts it
        ("CREATE TABLE pm_{s} USING parquet AS SELECT :n AS a, :t AS b", {"n": 5, "t": "it's"},
         "CREATE TABLE pm_ours USING parquet AS SELECT 5 AS a, 'it\\'s' AS b"),
        # a marker where only a constant goes: Spark's parser takes it where it writes the values in, else refuses
        ("ALTER TABLE pm_{s} SET TBLPROPERTIES ('k' = ?)", ["x"], "ALTER TABLE pm_ours SET TBLPROPERTIES ('k' = 'x')"),
        ("INSERT INTO pm_{s} SELECT ? + 1, ?", [5, "y"], "INSERT INTO pm_ours SELECT 5 + 1, 'y'"),
        ("INSERT INTO pm_{s} SELECT a, b FROM pm_{s} WHERE b = (SELECT max(b) FROM pm_{s} WHERE a < :n)", {"n": 6},
         "INSERT INTO pm_ours SELECT a, b FROM pm_ours WHERE b = (SELECT max(b) FROM pm_ours WHERE a < 6)"),
        # markers' look-alikes in a literal, a quoted name and comments stay; one name marked twice
        ("INSERT INTO pm_{s} SELECT :n + `:n`, ':n ?' /* :n ? */ FROM (SELECT :n AS `:n`) -- ?", {"n": 2},
         "INSERT INTO pm_ours SELECT 2 + `:n`, ':n ?' /* :n ? */ FROM (SELECT 2 AS `:n`)"),  # (a last comment: not
        # in the binlog, as with ddl.sql)
        ("CREATE TABLE IDENTIFIER(:t) USING parquet AS SELECT 1 AS a", {"t": "pm_id_{s}"},
         "CREATE TABLE IDENTIFIER('pm_id_ours') USING parquet AS SELECT 1 AS a"),
    ]
    ran = []
    for text, args, runs_as in statements:
        theirs = failure_of(plain, text, args, "plain")
        ours = failure_of(attached.session, text, args, "ours")
        assert condition_of(ours) == condition_of(theirs), text
        if theirs is None:
            ran.append(runs_as)
    assert sorted(attached.session.table("pm_ours").collect()) == sorted(plain.table("pm_plain").collect())
    assert (attached.session.sql("SHOW TBLPROPERTIES pm_ours").collect()
            == plain.sql("SHOW TBLPROPERTIES pm_plain").collect())
    assert attached.session.table("pm_id_ours").collect() == plain.table("pm_id_plain").collect()
    assert [event.statement for event in attached.ddl.binlog_events()] == ran
    assert len(ran) == len(statements) - (binding == "analyzer")
    for args in ({"m": 1}, {}):  # a marker without a value: Spark's own refusal (not the Proxy's wrapper of it)
        for session in (plain, attached.session):
            with pytest.raises(AnalysisException) as refused:
                session.sql("CREATE TABLE pm_none USING parquet AS SELECT :n AS a", args=args)
            assert refused.value.getCondition() == "UNBOUND_SQL_PARAMETER"
    assert len(attached.ddl.binlog_events()) == len(ran)


def failure_of(session: Any, text: str, args: Any, side: str) -> Exception | None:
    """What ``session.sql`` of ``text`` with ``args`` raises (None: it ran), ``{s}`` in both named for ``side``."""
    if isinstance(args, dict):
        args = {name: value.format(s=side) if isinstance(value, str) else value for name, value in args.items()}
    try:
        session.sql(text.format(s=side), args=args)
    except AnalysisException as failure:
        return failure
    return None


def condition_of(failure: Exception | None) -> str | None:
    return None if failure is None else failure.getCondition()  # type: ignore[attr-defined]


def test_parameter_values_are_values_whatever_their_bytes_and_variables_are_substituted_first(attached, binding):
    """As Spark's parser: the session's variables substituted before the values are written in, and a value is one
    literal whatever it holds. A value holding ``${`` is refused, nothing run: the engine's own Spark statements
    would read it as a variable."""
    session = attached.session
    session.sql("CREATE TABLE victim USING parquet AS SELECT 1 AS a")
    values = ["a'; DROP TABLE victim; --", "b\\'; DROP TABLE victim; --", "c\n;\tDROP TABLE victim", "d\x00e",
              "é😀", "/* c */ ;", ":n", "?"]
    for i, value in enumerate(values):
        session.sql(f"CREATE TABLE odd_{i} USING parquet AS SELECT :n AS a", args={"n": value})
        assert session.table(f"odd_{i}").collect()[0].a == value
    assert session.catalog.tableExists("victim")
    session.sql("SET ddl_log_test_variable=from_the_session")
    session.sql("CREATE TABLE with_variable USING parquet AS SELECT '${ddl_log_test_variable}' AS a, :n AS b",
                args={"n": 7})
    assert session.table("with_variable").collect() == [("from_the_session", 7)]
    assert attached.ddl.binlog_events()[-1].statement == (
        "CREATE TABLE with_variable USING parquet AS SELECT 'from_the_session' AS a, 7 AS b")
    events = len(attached.ddl.binlog_events())
    with pytest.raises(AnalysisException, match=r"a parameter value holds '\$\{'"):
        session.sql("CREATE TABLE dollar USING parquet AS SELECT :n AS a", args={"n": "${ddl_log_test_variable}"})
    assert not session.catalog.tableExists("dollar")
    assert len(attached.ddl.binlog_events()) == events


def test_a_routed_statements_failure_is_a_spark_exception_with_the_typed_error_as_its_cause(attached):
    from pyspark.errors import AnalysisException

    session = attached.session
    session.sql("CREATE VIEW vv AS SELECT 1 AS a")
    with pytest.raises(AnalysisException) as failed:
        session.sql("TRUNCATE TABLE vv")
    typed = statement_error(failed.value)
    assert isinstance(typed, WrongObjectKindError) and typed.name == "default.vv"
    assert failed.value.getCondition() == typed.condition
    assert failed.value.getSqlState() is not None
    assert str(failed.value).startswith(f"[{typed.condition}]")
    assert len(attached.ddl.binlog_events()) == 1  # the CREATE VIEW only


def test_a_session_with_the_extension_turned_off_runs_sparks_own_statements(attached):
    session = attached.session.newSession()  # a new session starts from the shared Spark's settings: off
    assert session.conf.get(ENABLED) == "false"
    session.sql("CREATE TABLE plain USING parquet AS SELECT 1 AS a")
    with pytest.raises(Exception, match="REPLACE TABLE AS SELECT"):
        session.sql("CREATE OR REPLACE TABLE plain USING parquet AS SELECT 2 AS a")  # Spark's refusal
    assert attached.ddl.binlog_events() == []


def test_without_an_attached_engine_a_routed_statement_fails_naming_the_cause(spark, attached):
    session = attached.session
    attached.ddl.close()
    for text in ("CREATE TABLE never (a INT) USING parquet", "DROP TABLE IF EXISTS never"):
        with pytest.raises(Exception, match="no DDL log engine is attached") as refused:
            session.sql(text)
        assert statement_error(refused.value) is None
    assert not session.catalog.tableExists("never")
    assert session.sql("SELECT 1 AS one").collect()[0].one == 1  # the rest is Spark's as ever
    other = attached_session(spark)
    with pytest.raises(Exception, match=r"ddl_log\.attach"):
        other.sql("CREATE TABLE never (a INT) USING parquet")


def test_a_failing_python_side_fails_the_statement_naming_the_cause(attached, monkeypatch):
    """The callback itself breaks (a bug, or the Python side going away mid-call): the statement fails with that
    cause, and nothing ran on Spark's own."""
    from ddl_log.frontends.extension import attachment

    handler = attachment._current[0].handler

    def broken(*args: Any) -> str:
        raise RuntimeError("the handler broke")

    monkeypatch.setattr(handler, "_route", broken)
    with pytest.raises(Exception, match="the handler broke"):
        attached.session.sql("CREATE TABLE broken (a INT) USING parquet")
    assert not attached.session.catalog.tableExists("broken")


def test_a_callback_failing_in_py4j_fails_the_statement_naming_the_cause(attached, monkeypatch):
    """The call into Python itself fails (what the JVM sees when the Python side is gone: an error from Py4J, not an
    answer): the statement fails with that cause, never Spark's own statement."""
    from ddl_log.frontends.extension import attachment

    handler = attachment._current[0].handler

    def gone(*args: Any) -> str:
        raise ConnectionError("the Python side went away")

    monkeypatch.setattr(handler, "route", gone)  # the method Py4J calls, outside the handler's own answers
    with pytest.raises(Exception, match="did not answer") as failed:
        attached.session.sql("CREATE TABLE gone (a INT) USING parquet")
    assert "the Python side went away" in str(failed.value) or "Py4J" in str(failed.value)
    assert not attached.session.catalog.tableExists("gone")


def test_attach_refuses_a_session_that_runs_sparks_own_statements(spark, tmp_path):
    from ddl_log import ExtensionError
    from ddl_log.frontends.extension import attach

    with pytest.raises(ExtensionError, match=r"spark\.ddlLog\.enabled=false"):
        attach(spark.newSession(), home=tmp_path / "home")  # the shared Spark's sessions run with it off
    assert not (tmp_path / "home").exists()


WITHOUT_EXTENSION = """
import sys
from ddl_log import ExtensionError, attach
from storage.catalogs.spark.session import embedded_session
spark = embedded_session(__import__("pathlib").Path(sys.argv[1]))
try:
    attach(spark, home=sys.argv[1] + "/home")
except ExtensionError as error:
    print("refused:", error)
"""


def test_attach_says_what_to_add_to_a_session_built_without_the_extension(tmp_path):
    """A session's parser is fixed when it is built: a driver whose session lacks the settings is told which."""
    import os
    import subprocess
    import sys

    from tests.spark.test_replace_kill import ROOT

    done = subprocess.run([sys.executable, "-c", WITHOUT_EXTENSION, str(tmp_path)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "refused: this session was built without the spark-ddl-log extension" in done.stdout, done.stderr[-2000:]
    assert "spark.sql.extensions=spark_ddl_log.DdlLogExtension" in done.stdout
    assert not (tmp_path / "home").exists()


def test_the_attached_parser_splits_a_script_as_sparks_own_parser_does(spark, attached):
    """``splitStatements`` (Spark 4.3's spark-sql CLI splits its input with it) reaches Spark's parser through the
    extension's: the project's own statements split like any other."""
    script = "RESTORE TABLE t TO VERSION 1;UNDROP TABLE t; SHOW TABLES DROPPED; SELECT ';' -- ;\nDROP TABLE t"
    plain = spark.newSession()._jsparkSession.sessionState().sqlParser()
    ours = attached.session._jsparkSession.sessionState().sqlParser()
    if "splitStatements" not in {method.getName() for method in plain.getClass().getMethods()}:
        pytest.skip("this Spark's parser has no splitStatements (Spark 4.0)")
    assert ours.splitStatements(script).toString() == plain.splitStatements(script).toString()
    assert "RESTORE TABLE t TO VERSION 1;" in ours.splitStatements(script).toString()
