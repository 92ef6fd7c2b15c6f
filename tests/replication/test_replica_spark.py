"""A replica on real Spark, in its own process (its own JVM and embedded metastore; two Hive metastores cannot share
one session): it ends with the source's rows, also of non-deterministic queries and of queries over a table it does
not have (copied from the version's files, the query not run again; an INSERT INTO's files too, followed through a
later RENAME of their table), a reader on it never sees a gap, and a real
SIGKILL of the applier (JVM included) mid-copy is recovered with every event applied once. RESTORE and UNDROP
replicate as the version they installed (its files), since the replica numbers its own history. A table dropped and
made again on the source before the replica copied it is copied from where the source moved the dropped version.
A copied partitioned version keeps its empty partitions (no file tells them: the event lists them)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = pytest.mark.xdist_group("replication")

ROOT = Path(__file__).resolve().parents[2]
TABLES = ["rp.r", "rp.s2", "rp.p", "rp.c", "rp.d", "rp.d2"]
SOURCE_SCRIPT = [
    "CREATE DATABASE rp",
    "CREATE TABLE rp.r USING parquet AS SELECT id, rand() AS x FROM range(100)",
    "CREATE TABLE rp.p USING parquet PARTITIONED BY (k) AS SELECT id, CAST(id % 3 AS STRING) AS k FROM range(30)",
    "INSERT OVERWRITE rp.r SELECT id, rand() AS x FROM range(50)",
    "CREATE TABLE rp.s USING parquet COMMENT 'from a table only the source has' AS SELECT * FROM default.hidden",
    "INSERT INTO rp.s SELECT id + 100, concat('r', rand()) FROM range(3)",
    "ALTER TABLE rp.r SET TBLPROPERTIES ('team' = 'blue')",
    "CREATE VIEW rp.v AS SELECT count(*) AS c FROM rp.r",
    "ALTER TABLE rp.s RENAME TO rp.s2",
    "CREATE TABLE rp.c (a INT, b STRING) USING parquet",
    "ALTER TABLE rp.p ADD PARTITION (k = 'e6')",  # empty: the overwrite's version keeps it, no file tells it
    "INSERT OVERWRITE rp.p PARTITION (k = '1') SELECT id + 100 FROM range(3)",
    "INSERT INTO rp.p SELECT CAST(rand() * 1000000 AS BIGINT), CAST(id % 2 + 5 AS STRING) FROM range(6)",
    "INSERT INTO rp.p PARTITION (k = 'empty') SELECT 1 WHERE false",
    "DROP TABLE rp.c",
    "CREATE TABLE rp.d USING parquet AS SELECT id, rand() AS x FROM range(4)",
    "INSERT INTO rp.d SELECT 99, rand()",
    "DROP TABLE rp.d",
    "CREATE TABLE rp.d USING parquet AS SELECT 'new' AS y",  # moves the dropped version out of <rp>/d, kept
    "ALTER TABLE rp.d RENAME TO rp.d2",
]


def run_worker(replica: Path, source: Path, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DDL_LOG_CRASH_AT", None)
    if crash_at is not None:
        env["DDL_LOG_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "tests.replication.worker", str(replica), str(source), *TABLES],
                          env=env, capture_output=True, text=True, timeout=300, cwd=ROOT, start_new_session=True)


def report_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def source_tables(spark: Any) -> dict[str, Any]:
    from tests.replication.worker import table_dump

    return {table: table_dump(spark, table) for table in TABLES}


@pytest.fixture
def source(clean_spark: Any, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A source home whose binlog holds the script (the long grace keeps replaced versions' files for replicas)."""
    clean_spark.sql("CREATE TABLE default.hidden USING parquet AS SELECT id, 'only here' AS w FROM range(7)")
    home = tmp_path / "source"
    with AtomicDDL(spark=clean_spark, home=str(home)) as ddl:
        for statement in SOURCE_SCRIPT:
            ddl.sql(statement)
        first = min(row.version for row in ddl.describe_history("rp.r").rows)  # the CTAS rows, before the overwrite
        ddl.sql(f"RESTORE TABLE rp.r TO VERSION AS OF {first}")
        ddl.sql("UNDROP TABLE rp.c")
        ddl.sql("UNDROP TABLE rp.d")  # the first rp.d, from the directory its version was moved to
        events = ddl.binlog_events()
    assert [event.version is not None for event in events] == [
        False, True, True, True, True, False, False, False, False, False, False, True, False, False, False,
        True, False, False, True, False, True, True, True]
    assert [i for i, event in enumerate(events) if event.added is not None] == [5, 12, 13, 16]  # the INSERT INTOs
    assert events[11].version is not None and sorted(events[11].version.partitions or ()) == [
        (("k", "0"),), (("k", "1"),), (("k", "2"),), (("k", "e6"),)]  # the empty one too
    return home, source_tables(clean_spark)


JOB_PREFIX = re.compile(r"^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}-(?=.)")


def source_name(name: str) -> str:
    """The source's name of a replica's data file: a copy an INSERT INTO made in place is ``<job id>-<name>``."""
    return JOB_PREFIX.sub("", name)


def test_a_replica_killed_mid_copy_ends_with_the_sources_rows_each_event_once(source, tmp_path):
    """Two runs of the replica process: SIGKILLed (JVM included) once a version's files are in its TMP table, before
    the swap, then to the end with a reader on the replica throughout. (Every other instant of an apply is swept
    in-process: test_apply_exactly_once.py for the applier, test_install_sweep.py for the install as files.)"""
    home, expected = source
    replica = tmp_path / "replica"
    killed = run_worker(replica, home, crash_at="replace.fill_tmp.after:1")
    assert killed.returncode == -9, killed.stderr[-2000:]
    report = report_of(run_worker(replica, home))
    assert report["seqs"] == list(range(1, len(SOURCE_SCRIPT) + 4))  # every source event once, in order
    copied_as_files = {"rp.r", "rp.s2", "rp.d", "rp.d2"}  # unpartitioned versions: the source's files themselves
    # (an INSERT INTO's copies carry the replica's job id before the source's name: see job_copy_name)
    assert {t: d and {**d, "files": sorted(map(source_name, d["files"])) if t in copied_as_files else []}
            for t, d in report["tables"].items()} \
        == {t: d and {**d, "files": d["files"] if t in copied_as_files else []} for t, d in expected.items()}
    assert report["tables"]["rp.r"]["files"]  # rand() rows, rows of default.hidden, properties, types: the source's
    assert report["tables"]["rp.c"] is not None and report["views"] == ["v"]  # undropped on the source
    assert len(report["tables"]["rp.r"]["rows"]) == 100  # restored: the CTAS's rows, copied, not drawn again
    assert ["101", "1"] in report["tables"]["rp.p"]["rows"]  # the overwritten partition, the others kept
    assert "k=e6" in report["tables"]["rp.p"]["partitions"]  # empty, registered with the copied version's rows
    assert len(report["tables"]["rp.s2"]["rows"]) == 10  # the INSERT INTO's rand() rows, its files followed
    assert report["bad"] == [] and report["reads"] > 0  # the reader on the replica never saw a gap
    # the replica applied the first rp.d and its INSERT INTO after the source had dropped it and made a new rp.d:
    # their files came from where the source moved the dropped version (it deleted them before: the replica stopped)
    assert len(report["tables"]["rp.d"]["rows"]) == 5 and report["tables"]["rp.d2"]["rows"] == [["new"]]
