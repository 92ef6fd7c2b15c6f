"""Bootstrap figures (issue 28): a replica made from a source database of 8 tables (2 of them partitioned) and 1M
rows, beside a plain ``cp -r`` of the same database directory, paired round by round; and ``replica check`` of the
result (definitions and Spark's row checksums on both sides).

Source and replica share one metastore (the replica keeps ``src`` as ``dstN``), so what is measured is the
bootstrap itself: reading the source's definitions twice, one atomic replace per table (its TMP made from the
source's definition, the files copied as files, the swap), the views, and the position note."""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL

TABLES = 8
ROWS = 1_000_000


def source_database(spark: Any, home: Path) -> str:
    """The source home with ``src``: 8 tables of ROWS / 8 rows each, every fourth one partitioned, and a view."""
    ddl = AtomicDDL(spark=spark, home=str(home))
    ddl.sql("CREATE DATABASE IF NOT EXISTS src")
    per_table = ROWS // TABLES
    for n in range(TABLES):
        partitioned = "PARTITIONED BY (k) " if n % 4 == 0 else ""
        ddl.sql(f"CREATE TABLE src.t{n} USING parquet {partitioned}AS SELECT id, id * 2 AS v, concat('r', id) AS s, "
                f"CAST(id % 5 AS STRING) AS k FROM range({per_table})")
    ddl.sql("CREATE VIEW src.everything AS SELECT count(*) AS n FROM src.t0")
    ddl.close()
    return str(home)


def test_bootstrap_of_8_tables_and_1m_rows_beside_cp_r(benchmark, spark: Any, tmp_path):
    source = source_database(spark, tmp_path / "source")
    database_dir = str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:") + "/src.db"
    rounds: list[tuple[float, float, float]] = []

    def once(index: int) -> None:
        started = time.perf_counter()
        subprocess.run(["cp", "-r", database_dir, str(tmp_path / f"copy{index}")], check=True)
        plain = time.perf_counter() - started
        replica = AtomicDDL(spark=spark, home=str(tmp_path / f"replica{index}"))
        started = time.perf_counter()
        report = replica.replica_bootstrap(source, databases=["src"], rewrite_db={"src": f"dst{index}"})
        bootstrap = time.perf_counter() - started
        assert report.statements == TABLES + 2 and report.rounds == 1
        started = time.perf_counter()
        assert replica.replica_check().ok
        rounds.append((plain, bootstrap, time.perf_counter() - started))
        replica.close()

    once(99)  # warm-up: the first copies of a JVM pay class loading
    rounds.clear()
    counter = iter(range(1000))
    benchmark.pedantic(lambda: once(next(counter)), rounds=3, iterations=1)
    benchmark.extra_info.update({
        "tables": TABLES, "rows": ROWS,
        "cp_r_seconds": round(statistics.median(r[0] for r in rounds), 3),
        "bootstrap_seconds": round(statistics.median(r[1] for r in rounds), 3),
        "paired_ratio": round(statistics.median(r[1] / r[0] for r in rounds), 1),
        "check_seconds": round(statistics.median(r[2] for r in rounds), 3),
    })
