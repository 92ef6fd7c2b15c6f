"""Table versions, measured (``python -m bench.versions``): metastore calls per statement and the time of RESTORE and
UNDROP of a 1k-row and a 1M-row table, which should not depend on the size (metadata only). ``calls``: the catalog's
own metastore client, counted per method (a read a statement answers from its own earlier reading counts too);
``jvm``: what the statement asks the JVM (:mod:`bench.py4j_calls`: Py4J round trips, the metastore calls it makes
itself, its SQL statements). Runs on any checkout: statements it lacks are skipped, so the same script counts the
calls before and after a change (``PYTHONPATH=<other checkout> python -m bench.versions``)."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from typing import Any

from bench.py4j_calls import counting
from ddl_log import AtomicDDL

CLIENT_METHODS = ("get", "install", "create", "partitions", "switch_partitions", "forget", "add_partitions",
                  "default_location", "drop_database", "user_of")


def count_calls(ddl: AtomicDDL) -> Counter[str]:
    """Wrap the catalog's metastore client methods (bench-side only) and return the live counter."""
    counter: Counter[str] = Counter()
    client = ddl.catalog.backend.metastore  # type: ignore[attr-defined]
    for method in CLIENT_METHODS:
        original = getattr(client, method, None)
        if original is None:
            continue

        def wrapped(*args: Any, _original: Any = original, _name: str = method, **kwargs: Any) -> Any:
            counter[_name] += 1
            return _original(*args, **kwargs)

        setattr(client, method, wrapped)
    return counter


def timed(counter: Counter[str], action: Any) -> tuple[float, dict[str, int]]:
    counter.clear()
    start = time.perf_counter()
    action()
    return time.perf_counter() - start, dict(counter)


def main() -> None:
    from storage.catalogs.spark.session import embedded_session

    home = tempfile.mkdtemp(prefix="bench-versions-")
    spark = embedded_session(home)
    try:
        ddl = AtomicDDL(spark=spark, home=f"{home}/ddl_home", grace_seconds=0, retention_seconds=3600)
    except TypeError:  # a checkout without versions
        ddl = AtomicDDL(spark=spark, home=f"{home}/ddl_home", grace_seconds=0)
    counter = count_calls(ddl)
    spark.sql("CREATE TABLE s USING parquet AS SELECT id, id * 2 AS v, concat('r', id) AS s FROM range(1000)")
    ddl.create_or_replace_table("t", as_select="SELECT * FROM s")  # away from <db>/<name> once
    spark.sql("CREATE TABLE p USING parquet PARTITIONED BY (k) AS SELECT id AS v, id % 4 AS k FROM range(1000)")
    ddl.truncate_table("p")
    ddl.sql("CREATE OR REPLACE VIEW w AS SELECT * FROM s")
    figures: dict[str, Any] = {"calls": {}, "jvm": {}, "seconds": {}}
    statements = {
        "CREATE OR REPLACE AS SELECT": lambda: ddl.create_or_replace_table("t", as_select="SELECT * FROM s"),
        "TRUNCATE": lambda: ddl.truncate_table("t"),
        "INSERT OVERWRITE": lambda: ddl.insert_overwrite("t", as_select="SELECT * FROM s"),
        "INSERT INTO": lambda: ddl.insert_into("t", as_select="SELECT * FROM s"),
        "TRUNCATE (partitioned)": lambda: ddl.truncate_table("p"),
        "INSERT OVERWRITE (partitioned, dynamic)": lambda: ddl.insert_overwrite(
            "p", as_select="SELECT id AS v, id % 4 AS k FROM range(1000)", partition={"k": None},
            overwrite_mode="dynamic"),
        "CREATE TABLE AS SELECT": lambda: ddl.create_table("c", as_select="SELECT * FROM s"),
        "RENAME TABLE": lambda: ddl.rename_tables([("c", "c2")]),
        "CREATE OR REPLACE VIEW (SQL)": lambda: ddl.sql("CREATE OR REPLACE VIEW w AS SELECT * FROM s"),
        "DROP TABLE": lambda: ddl.drop_tables(["t"]),
    }
    if not hasattr(ddl, "insert_into"):  # a checkout before the logged INSERT INTO
        del statements["INSERT INTO"]
    if hasattr(ddl, "undrop_table"):
        statements["UNDROP TABLE"] = lambda: ddl.undrop_table("t")
        statements["RESTORE TABLE"] = lambda: ddl.restore_table(
            "t", version=ddl.describe_history("t").rows[0].version)
    for label, action in statements.items():
        with counting() as jvm:
            figures["calls"][label] = timed(counter, action)[1]
        figures["jvm"][label] = {key: jvm[key] for key in ("round trips", "metastore", "spark.sql")}
    if hasattr(ddl, "undrop_table"):
        for rows in (1000, 1_000_000):
            spark.sql(f"DROP TABLE IF EXISTS big{rows}")
            spark.sql(f"CREATE TABLE big{rows} USING parquet AS SELECT id, id * 2 AS v, concat('r', id) AS s "
                      f"FROM range({rows})")
            ddl.truncate_table(f"big{rows}")  # off <db>/<name>: its versions keep their retention
            ddl.insert_overwrite(f"big{rows}", as_select=f"SELECT id, id * 2, concat('r', id) FROM range({rows})")
            restores, undrops = [], []
            for _ in range(5):
                version = ddl.describe_history(f"big{rows}").rows[0].version
                name = f"big{rows}"
                restores.append(timed(counter, lambda n=name, v=version: ddl.restore_table(n, version=v))[0])
                ddl.drop_tables([name])
                undrops.append(timed(counter, lambda n=name: ddl.undrop_table(n))[0])
            figures["seconds"][f"RESTORE {rows}"] = statistics.median(restores)
            figures["seconds"][f"UNDROP {rows}"] = statistics.median(undrops)
    json.dump(figures, sys.stdout, indent=1)
    print()
    ddl.close()
    spark.stop()


if __name__ == "__main__":
    main()
