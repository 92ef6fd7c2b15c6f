"""The settings that attach a session (``ddl-log session-conf``) and what the Python side answers the JVM: the
home's catalog on the embedded default, a metastore service's otherwise, the engine settings carried as
``spark.ddlLog.<name>`` and read back by ``attach``; a failure's Spark condition found where the project has it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from actions.errors import StatementFailedError
from ddl_log import ExtensionError
from ddl_log.frontends.cli import main
from ddl_log.frontends.extension import answers
from ddl_log.frontends.extension.conf import (
    EXTENSION_CLASS,
    HOME,
    conf_key,
    session_conf,
    settings_from_conf,
)
from ddl_log.settings import Settings
from storage.errors import NoSuchObjectError, WrongObjectKindError


def test_the_embedded_default_carries_the_homes_metastore_and_warehouse(tmp_path: Path):
    conf = session_conf(tmp_path / "h", Settings(), {"grace_seconds": 60.0, "binlog": False})
    home = str(tmp_path / "h")
    assert conf["spark.sql.extensions"] == EXTENSION_CLASS
    assert re.search(r"spark-ddl-log-4\.\d+\.jar$", conf["spark.jars"])  # the jar of the installed Spark line
    assert conf[HOME] == home
    metastore = f"jdbc:derby:;databaseName={home}/metastore_db;create=true"
    assert conf["spark.hadoop.javax.jdo.option.ConnectionURL"] == metastore
    assert conf["spark.sql.warehouse.dir"] == f"{home}/warehouse"
    options = conf["spark.driver.extraJavaOptions"]
    assert "log4j" not in options and "derby.system.home" in options
    assert conf["spark.ddlLog.graceSeconds"] == "60.0" and conf["spark.ddlLog.binlog"] == "false"


def test_a_metastore_service_replaces_the_embedded_catalog(tmp_path: Path):
    settings = Settings(metastore_uri="thrift://m:9083", warehouse="s3a://w/")
    conf = session_conf(tmp_path / "h", settings, {"metastore_uri": "thrift://m:9083", "warehouse": "s3a://w/"})
    assert conf["spark.hadoop.hive.metastore.uris"] == "thrift://m:9083" and conf["spark.sql.warehouse.dir"] == "s3a://w/"
    assert "spark.hadoop.javax.jdo.option.ConnectionURL" not in conf and "spark.ddlLog.metastoreUri" not in conf
    with pytest.raises(ExtensionError, match="database home"):
        session_conf("postgresql://h/db?home=a", Settings())


class FakeConf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)


class FakeSession:
    def __init__(self, values: dict[str, str]) -> None:
        self.conf = FakeConf(values)


def test_attach_reads_the_sessions_settings_under_its_own_keywords(monkeypatch):
    monkeypatch.setenv("DDL_LOG_GRACE_SECONDS", "5")
    monkeypatch.setenv("DDL_LOG_RETENTION_SECONDS", "50")
    session = FakeSession({conf_key("grace_seconds"): "7", conf_key("lock_wait_seconds"): "3"})
    settings = settings_from_conf(session, {"lock_wait_seconds": 9.0})
    assert (settings.grace_seconds, settings.lock_wait_seconds, settings.retention_seconds) == (7.0, 9.0, 50.0)
    assert conf_key("binlog_segment_bytes") == "spark.ddlLog.binlogSegmentBytes"


def test_the_cli_prints_one_setting_a_line_or_json(tmp_path: Path, capsys):
    assert main(["--home", str(tmp_path / "h"), "--grace-seconds", "60", "session-conf"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"spark.sql.extensions={EXTENSION_CLASS}" and "spark.ddlLog.graceSeconds=60.0" in lines
    assert main(["--home", str(tmp_path / "h"), "session-conf", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[HOME] == str(tmp_path / "h")


def test_a_failure_carries_the_spark_condition_where_the_project_has_one():
    view = WrongObjectKindError.view_not_table("d.v")
    answer = json.loads(answers.failure(StatementFailedError("TRUNCATE TABLE", "d.v", view)))["error"]
    assert answer["condition"] == "EXPECT_TABLE_NOT_VIEW" and answer["type"] == "StatementFailedError"
    assert answers.spark_condition(NoSuchObjectError("missing", "d.t")) == (None, {})
    assert json.loads(answers.failure(NoSuchObjectError("missing", "d.t")))["error"]["condition"] is None


class FakeContext:
    _gateway = object()  # not Py4J's ClientServer: PYSPARK_PIN_THREAD=false


class FakeClassic(FakeSession):
    _jsparkSession = object()  # noqa: N815 - PySpark's names
    _jvm = object()
    sparkContext = FakeContext()  # noqa: N815 - PySpark's names


def test_attach_says_why_it_cannot_attach(tmp_path: Path):
    from ddl_log import attach

    with pytest.raises(ExtensionError, match="Spark Connect"):
        attach(FakeSession({}), home=tmp_path)
    with pytest.raises(ExtensionError, match="pinned-thread mode is off"):
        attach(FakeClassic({}), home=tmp_path)
    assert not (tmp_path / "ddl_log").exists()  # nothing opened
