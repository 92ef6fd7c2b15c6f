"""Fixtures of the benchmark suite: one embedded Spark session (local[2], Hive metastore on Derby) per bench process
and one :class:`~ddl_log.AtomicDDL` on it, warmed up before anything is measured.

The load average of the machine is recorded in the JSON's ``machine_info`` at the start and at the end of the run:
these figures are wall times, and on a shared two-core machine other processes move them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from storage.catalogs.names import TableName, quote_ident

SELECT = "SELECT id, id*2 AS v, concat('r', id) AS s FROM range({rows})"
"""The data of every statement benchmark: the same query for the atomic statement and its plain equivalent."""

_LOAD_AT_START: tuple[float, float, float] | None = None

collect_ignore = ([] if os.environ.get("BENCH_SERVICE") else ["service"]) + (
    [] if os.environ.get("BENCH_SPARK_CLUSTER") else ["spark_cluster"]) + (
    [] if os.environ.get("BENCH_OBJECT_STORE") else ["object_store"])
"""bench/service runs on a metastore service, bench/spark_cluster on a Spark standalone cluster and bench/object_store
on the simulated object store, each in a pytest process of its own (one SparkContext per process)."""


def pytest_configure(config: pytest.Config) -> None:
    global _LOAD_AT_START
    _LOAD_AT_START = os.getloadavg()


def pytest_benchmark_update_machine_info(config: pytest.Config, machine_info: dict[str, Any]) -> None:
    machine_info["loadavg_start"] = [round(x, 2) for x in _LOAD_AT_START or os.getloadavg()]
    machine_info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]


def select(rows: int) -> str:
    return SELECT.format(rows=rows)


def run(spark: Any, *statements: str) -> None:
    for statement in statements:
        spark.sql(statement)


def exists(spark: Any, name: str) -> bool:
    return bool(spark.catalog.tableExists(TableName("default", name).quoted))


def create_table(spark: Any, name: str, rows: int) -> None:
    """A plain parquet managed table ``default.<name>`` holding the benchmark rows (replaced if it exists)."""
    quoted = TableName("default", name).quoted
    run(spark, f"DROP TABLE IF EXISTS {quoted}", f"CREATE TABLE {quoted} USING parquet AS {select(rows)}")


def drop_every_table(spark: Any) -> None:
    """Drop every table and view of ``default`` (reserved TMP/BACKUP names included) and empty the warehouse."""
    from storage.catalogs.spark.profile import local_path

    for row in spark.sql("SHOW VIEWS IN `default`").collect():
        if row["isTemporary"]:
            spark.catalog.dropTempView(row["viewName"])
        else:
            spark.sql(f"DROP VIEW IF EXISTS `default`.{quote_ident(row['viewName'])}")
    for row in spark.sql("SHOW TABLES IN `default`").collect():
        if not row["isTemporary"]:
            spark.sql(f"DROP TABLE IF EXISTS `default`.{quote_ident(row['tableName'])} PURGE")
    warehouse = local_path(str(spark.conf.get("spark.sql.warehouse.dir")))
    if warehouse is not None and warehouse.is_dir():
        for entry in warehouse.iterdir():
            if entry.is_dir() and not entry.name.endswith(".db"):
                shutil.rmtree(entry, ignore_errors=True)


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The session of the bench process: embedded, its warehouse on the simulated object store in bench/object_store's
    process (``BENCH_OBJECT_STORE`` set)."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: the statement benchmarks need Spark")
    from ddl_log.frontends.extension.conf import extension_settings
    from storage.catalogs.spark.session import embedded_session
    from tests.object_store.store import object_store_session

    # the extension loaded, off in every session but those bench/test_attached.py attaches
    home = tmp_path_factory.mktemp("spark-home")
    extra = extension_settings(enabled=False)
    session = (object_store_session(home, extra=extra) if os.environ.get("BENCH_OBJECT_STORE")
               else embedded_session(home, extra=extra))
    yield session
    session.stop()


@pytest.fixture(scope="session")
def ddl(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The AtomicDDL of the run (its own log home, the shared session), warmed up: the first statements of a fresh
    JVM pay class loading, JIT and the Hive client's start (a first CREATE OR REPLACE takes ~20 s, later ones ~2 s);
    none of that may land in the first measured round."""
    from ddl_log import AtomicDDL

    atomic = AtomicDDL(spark=spark, home=tmp_path_factory.mktemp("ddl-home"))
    for n in range(2):  # names of their own per round: a dropped table's version keeps its directory a while
        create_table(spark, f"warm_plain{n}", 100_000)
        atomic.create_or_replace_table(f"warm_atomic{n}", as_select=select(100_000))
        atomic.insert_overwrite(f"warm_atomic{n}", as_select=select(1000))
        atomic.truncate_table(f"warm_atomic{n}")
        atomic.rename_tables([(f"warm_atomic{n}", f"warm_renamed{n}"), (f"warm_plain{n}", f"warm_plain_moved{n}")])
        atomic.drop_tables([f"warm_renamed{n}", f"warm_plain_moved{n}"])
        run(spark, f"CREATE TABLE warm_t{n} USING parquet AS SELECT 1 AS x",
            f"INSERT OVERWRITE TABLE warm_t{n} SELECT 2", f"TRUNCATE TABLE warm_t{n}",
            f"ALTER TABLE warm_t{n} RENAME TO warm_u{n}", f"DROP TABLE warm_u{n}")
    drop_every_table(spark)
    yield atomic
    atomic.close()


@pytest.fixture
def clean(spark: Any) -> Iterator[Any]:
    """The session; every table of ``default`` is dropped after the test."""
    yield spark
    drop_every_table(spark)
