"""ALTER SCHEMA blue SWAP WITH green of N = 50 tables a side (issue 39, "Performance"), paired in one run with what
plain Spark can do instead. Spark cannot move a table between databases (the v1 session catalog refuses a rename
into another database), so no sequence of its statements exchanges two schemas' tables by name; the nearest
metadata-only equivalent is ``ALTER TABLE blue.tI SET LOCATION <green.tI's directory>`` and back for every pair
(2N statements, each table's other properties and schema left as they were, not atomic, a reader of two tables sees
any mix): each round's setup runs those 2N statements (timed by themselves) right before the timed swap, and
``extra_info["paired_ratio"]`` is the median of the per-round ratios swap / plain. Tables are tiny: the swap is
metastore work only (no file moves), one INSTALL_VERSION per table and name."""

from __future__ import annotations

import time
from typing import Any

from bench.pairing import run_paired

N = 50
ROUNDS = 3


def locations(spark: Any, db: str) -> dict[str, str]:
    external = spark._jsparkSession.sharedState().externalCatalog()
    return {f"t{i}": str(external.getTable(db, f"t{i}").location()) for i in range(N)}


def test_schema_swap_of_fifty_tables(benchmark: Any, ddl: Any, clean: Any) -> None:
    spark = clean
    for db in ("blue", "green"):
        spark.sql(f"CREATE DATABASE {db}")
        for index in range(N):
            spark.sql(f"CREATE TABLE {db}.t{index} USING parquet AS SELECT {index} AS x, '{db}' AS side")
    try:
        def set_locations() -> float:
            blue, green = locations(spark, "blue"), locations(spark, "green")
            start = time.perf_counter()
            for name in blue:
                spark.sql(f"ALTER TABLE blue.{name} SET LOCATION '{green[name]}'")
                spark.sql(f"ALTER TABLE green.{name} SET LOCATION '{blue[name]}'")
            return time.perf_counter() - start

        benchmark.group = "schema swap of 50 tables"
        benchmark.extra_info["tables_a_side"] = N
        run_paired(benchmark, lambda: ddl.swap_schemas("blue", "green"), set_locations, rounds=ROUNDS, warmup=1,
                   plain_key="paired_plain_set_location_median_s")
        assert ddl.binlog_events()[-1].statement == "ALTER SCHEMA `blue` SWAP WITH `green`"
    finally:
        for db in ("blue", "green"):
            spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")
