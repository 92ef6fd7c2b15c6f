"""The statement benchmarks on a Spark standalone cluster (issue 30): a master and 2 workers of 1 core started here
from pyspark's jars (:mod:`ddl_log.ops.spark_cluster`, stopped at the end), the bench session a driver on it, so the
data files are written by executors in JVMs of their own, as on a platform's cluster. The catalog is the embedded
Derby metastore, as in ``bench/conftest.py``.

These fixtures override the embedded ones of ``bench/conftest.py``; a bench process has one SparkContext, so this
folder runs as its own pytest process (``make bench`` runs it with ``BENCH_SPARK_CLUSTER=1``), and its figures are a
separate group: the local-mode ones stay comparable with earlier runs."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.conftest import create_table, drop_every_table, run, select


@pytest.fixture(scope="session")
def cluster_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="ddl-log-bench-cluster-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def spark(cluster_root: Path) -> Iterator[Any]:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: the statement benchmarks need Spark")
    from ddl_log.frontends.extension.conf import extension_settings
    from ddl_log.ops import spark_cluster
    from storage.catalogs.spark.session import embedded_session

    # the project's jar loaded as `ddl-log session-conf` loads it (spark.jars: the executors fetch it too), the
    # extension off as in bench/conftest.py: the paths that need the jar are the ones a platform's cluster runs
    with spark_cluster.running(cluster_root / "cluster", workers=2, cores=1, memory="1g") as cluster:
        session = embedded_session(cluster_root / "driver", cluster.url, extra=extension_settings(enabled=False))
        try:
            yield session
        finally:
            session.stop()


@pytest.fixture(scope="session")
def ddl(spark: Any, cluster_root: Path) -> Iterator[Any]:
    """The AtomicDDL of the run (a directory home), warmed up like the embedded one."""
    from ddl_log import AtomicDDL

    atomic = AtomicDDL(spark=spark, home=cluster_root / "ddl-home")
    for _ in range(2):
        create_table(spark, "warm_plain", 100_000)
        atomic.create_or_replace_table("warm_atomic", as_select=select(100_000))
        atomic.insert_overwrite("warm_atomic", as_select=select(1000))
        atomic.truncate_table("warm_atomic")
        run(spark, "DROP TABLE warm_plain")
        atomic.drop_tables(["warm_atomic"])
    drop_every_table(spark)
    yield atomic
    atomic.close()
