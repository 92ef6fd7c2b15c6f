"""Bootstrap, check and the applier with the source's catalog in another metastore than the replica's, read by a
Spark driver of the replica's own (``--source-metastore``): a metastore service the source's drivers use, and a
stopped source's own embedded Derby (refused, saying what to do, while its driver holds it). Every step is a real
``ddl-log`` process, so these run only with ``DDL_LOG_REPLICATION_LONG=1`` (``make replication``): several JVM
starts each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers.metastore import metastore_service

pytestmark = [pytest.mark.xdist_group("replication"),
              pytest.mark.skipif(not os.environ.get("DDL_LOG_REPLICATION_LONG"),
                                 reason="several JVMs: make replication")]

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ["CREATE DATABASE src",
          "CREATE TABLE src.a USING parquet AS SELECT id, rand() AS x FROM range(100)",
          "CREATE TABLE src.p USING parquet PARTITIONED BY (k) AS SELECT id, CAST(id % 3 AS STRING) AS k FROM range(9)",
          "CREATE VIEW src.v AS SELECT count(*) AS n FROM src.a"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_HOME", None)
    return subprocess.run([sys.executable, "-m", "ddl_log", *args], env=env, capture_output=True, text=True,
                          timeout=900, cwd=ROOT)


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_replica_of_a_source_on_a_metastore_service_bootstraps_follows_and_checks(tmp_path):
    with metastore_service(tmp_path / "service") as service:
        on_service = ["--metastore-uri", service.uri, "--warehouse", str(service.warehouse)]
        source, replica = str(tmp_path / "source"), str(tmp_path / "replica")
        ok(cli("--home", source, "sql", *on_service, *SOURCE))
        report = json.loads(ok(cli("--home", replica, "replica", "bootstrap", "--source", source, "--databases",
                                   "src", "--source-metastore", service.uri, "--json")))
        assert report["position"] == len(SOURCE) and report["statements"] == 4
        ok(cli("--home", source, "sql", *on_service, "INSERT OVERWRITE src.a SELECT id, rand() FROM range(60)"))
        ok(cli("--home", replica, "replica", "run", "--source", source, "--until-caught-up"))
        checked = json.loads(ok(cli("--home", replica, "replica", "check", "--json")))  # the state says where
        assert checked["ok"] and checked["compared"] == 4 and checked["position"] == len(SOURCE) + 1
        status = json.loads(ok(cli("--home", replica, "replica", "status", "--json")))
        assert status["source_catalog"] == service.uri and status["events_behind"] == 0


def test_a_stopped_sources_embedded_metastore_is_read_and_a_running_one_is_refused_saying_what_to_do(tmp_path):
    source, replica = str(tmp_path / "source"), str(tmp_path / "replica")
    ok(cli("--home", source, "sql", *SOURCE))  # its driver ends with the command: its Derby is free
    refused = cli("--home", replica, "replica", "bootstrap", "--source", source, "--databases", "src")
    assert refused.returncode == 1 and "embedded Derby" in refused.stderr and "--source-metastore" in refused.stderr
    report = json.loads(ok(cli("--home", replica, "replica", "bootstrap", "--source", source, "--databases", "src",
                               "--source-metastore", "embedded", "--json")))
    assert report["position"] == len(SOURCE)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from ddl_log import AtomicDDL; "
                               f"d = AtomicDDL(home={source!r}); d.spark.sql('SHOW DATABASES').collect(); "
                               "print('held', flush=True); time.sleep(600)"],
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True,
                              cwd=ROOT, start_new_session=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        busy = cli("--home", replica, "replica", "check")
        assert busy.returncode == 1 and "open in its driver's JVM" in busy.stderr, busy.stderr[-2000:]
    finally:
        os.killpg(holder.pid, 9)
        holder.wait()
    time.sleep(1)
    checked = json.loads(ok(cli("--home", replica, "replica", "check", "--json")))
    assert checked["ok"] and checked["compared"] == 4
