"""A class-data-sharing archive for the Spark JVMs the tests start; ``make test`` builds it once per ``.venv``.

The suite starts dozens of Spark JVMs (the two test processes, every CLI run, soak and production driver, killed
worker), and on this 2-core machine a start spends most of its CPU loading, verifying and linking the classes of
Spark, Hive and Derby: measured 15 CPU-seconds per start and query without an archive, 9 with it (session up in
5.4 -> 2.8 s, first CTAS and query 8.2 -> 4.9 s). JDK 17 records the classes one representative run loaded
(``-XX:ArchiveClassesAtExit``); later JVMs with the same class path map them instead (``-XX:SharedArchiveFile``).
Nothing a test observes changes. A JVM whose class path, jars or JDK differ from the recording run ignores the
archive and loads classes as usual (its warning is silenced: unified JVM logging writes to stdout, which the
driver subprocesses use for their JSON lines); so does a missing archive (e.g. ``pytest`` run without ``make``).

``python -m tests.jvm_archive PATH`` builds the archive at ``PATH`` (atomically; a failure is reported and leaves
none, and the tests then run without it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = ROOT / ".venv" / "spark-classes.jsa"
BASE_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=512m"
"""Test JVMs are short-lived and run small jobs: the C1 compiler alone and the serial collector spend far less CPU
on compiling and collecting than the defaults do (the Spark half of tests/contract: 138 -> 79 CPU-seconds). With C1
alone the JVM reserves only 48 MB for compiled code, which a test process filled after 21 s ("CodeCache is full.
Compiler has been disabled": every method compiled later ran interpreted for the rest of the process); the code
cache is reserved, not committed, so a large one costs nothing until used (the statement sweeps and preservation
tests in one process: 322 -> 261 s)."""
SERVICE_JVM_OPTIONS = f"-Xmx512m {BASE_JVM_OPTIONS}"
"""For the metastore services the tests start (``DDL_LOG_METASTORE_JAVA_OPTS``): short-lived too, so they start
sooner; their class path is not Spark's, so the archive would not apply."""
QUIET_CDS = "-Xlog:cds=off -Xlog:cds+dynamic=off"

WORKLOAD = [
    "CREATE DATABASE d",
    "CREATE TABLE d.a USING parquet AS SELECT CAST(id AS INT) AS x, concat('a', id) AS y FROM range(20)",
    "CREATE TABLE d.p USING parquet PARTITIONED BY (day) AS SELECT id AS v, concat('d', id % 2) AS day FROM range(8)",
    "CREATE VIEW d.v AS SELECT x FROM d.a WHERE x < 5",
    "CREATE FUNCTION d.f AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'",
    "DESCRIBE TABLE EXTENDED d.a",
    "SHOW TBLPROPERTIES d.a",
    "SHOW PARTITIONS d.p",
    "SHOW USER FUNCTIONS IN d",
    "SHOW VIEWS IN d",
    "INSERT OVERWRITE TABLE d.p PARTITION (day) SELECT x, y FROM d.a",
    "ALTER TABLE d.a SET TBLPROPERTIES ('k' = 'v')",
    "ALTER TABLE d.a RENAME TO d.b",
    "SELECT count(*), sum(x) FROM d.b",
    "DROP TABLE d.b",
    "DROP DATABASE d CASCADE",
]
"""What the tests' JVMs mostly do: CTAS, partitions, views, functions, metadata reads, renames and drops."""


def spark_jvm_options(archive: Path = ARCHIVE) -> str:
    """The JVM options for test Spark JVMs: the base ones, plus the archive when it has been built."""
    if archive.is_file():
        return f"{BASE_JVM_OPTIONS} -XX:SharedArchiveFile={archive} {QUIET_CDS}"
    return BASE_JVM_OPTIONS


def build(archive: Path) -> bool:
    """Record the archive by running :func:`workload` in a fresh process; True when it was written."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(archive.name + ".partial")
    partial.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "SPARK_SUBMIT_OPTS": f"{BASE_JVM_OPTIONS} -XX:ArchiveClassesAtExit={partial}"}
    with tempfile.TemporaryDirectory(prefix="ddl-log-cds-") as home:
        done = subprocess.run([sys.executable, "-m", "tests.jvm_archive", "--workload", home], env=env, cwd=ROOT,
                              capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0 or not partial.is_file():
        print(f"no class archive (the tests run without it): {done.stderr[-2000:]}", file=sys.stderr)
        partial.unlink(missing_ok=True)
        return False
    partial.replace(archive)
    return True


def workload(home: Path) -> None:
    """Start a session and run :data:`WORKLOAD` and one atomic replace; the JVM writes the archive as it exits."""
    from ddl_log import AtomicDDL
    from storage.catalogs.spark.session import embedded_session

    spark = embedded_session(home / "spark")
    for statement in WORKLOAD:
        spark.sql(statement).collect()
    ddl = AtomicDDL(spark=spark, home=home / "log", grace_seconds=0)
    ddl.create_table("t", as_select="SELECT id FROM range(3)")
    ddl.create_or_replace_table("t", as_select="SELECT id * 2 AS id FROM range(3)")
    ddl.insert_overwrite("t", as_select="SELECT id + 1 FROM range(2)")
    ddl.drop_tables(["t"])
    ddl.close()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--workload"]:
        workload(Path(argv[1]))
        return 0
    if len(argv) != 1:
        print("usage: python -m tests.jvm_archive ARCHIVE_PATH", file=sys.stderr)
        return 2
    if build(Path(argv[0])):
        print(f"class archive written: {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
