"""A replica process for the SIGKILL test of bootstrap: ``python -m tests.replication.ops_worker REPLICA SOURCE PHASE``.

The process's Spark session has the replica home's embedded metastore, and the source home's statements run in it
too (one metastore; the replica keeps database ``src`` as ``dst``). ``first``: writes the source, then runs ``ddl-log
replica bootstrap`` (the command line's own code, in this process); with ``DDL_LOG_CRASH_AT`` set the process
(JVM included) is SIGKILLed there. ``second``: runs the same bootstrap again, then ``replica check --json`` and
``replica status --json``, and prints one JSON object with their outputs and both databases' tables.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.frontends.cli import main as cli
from storage.catalogs.spark.session import embedded_session
from tests.definitions import rows, table_definition

SOURCE = [
    "CREATE DATABASE src",
    "CREATE TABLE src.a USING parquet AS SELECT id, rand() AS x FROM range(300)",
    "CREATE TABLE src.b USING parquet PARTITIONED BY (k) AS SELECT id, CAST(id % 4 AS STRING) AS k FROM range(40)",
    "CREATE TABLE src.c USING orc AS SELECT id, concat('c', id) AS s FROM range(20)",
    "CREATE VIEW src.v AS SELECT count(*) AS n FROM src.a",
]
TABLES = ("a", "b", "c")


def run_cli(*args: str) -> tuple[int, str]:
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        code = cli(list(args))
    return code, captured.getvalue()


def dump(spark: Any, db: str) -> dict[str, Any]:
    return {name: {"rows": rows(spark, db, name), "definition": repr(table_definition(spark, db, name))}
            for name in TABLES}


def main(replica: str, source: str, phase: str) -> None:
    spark = embedded_session(Path(replica))
    AtomicDDL.stop_spark = lambda self: None  # type: ignore[method-assign]  # the commands share this session
    if phase == "first":
        with AtomicDDL(spark=spark, home=source) as writer:
            for statement in SOURCE:
                writer.sql(statement)
    bootstrap = ("--home", replica, "replica", "bootstrap", "--source", source, "--databases", "src",
                 "--rewrite-db", "src=dst", "--json")
    code, text = run_cli(*bootstrap)
    assert code == 0, text
    report = json.loads(text)
    code, checked = run_cli("--home", replica, "replica", "check", "--json")
    _, status = run_cli("--home", replica, "replica", "status", "--json")
    print(json.dumps({"bootstrap": report, "check_exit": code, "check": json.loads(checked),
                      "status": json.loads(status), "src": dump(spark, "src"), "dst": dump(spark, "dst"),
                      "view": spark.sql("SELECT n FROM dst.v").collect()[0][0]}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
