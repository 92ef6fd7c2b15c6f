"""The production shape for the statement benchmarks: the session is a driver on a Hive metastore service backed by
PostgreSQL (both started here, from the project's own code) and the DDL log lives in a PostgreSQL database home.

These fixtures override the embedded ones of ``bench/conftest.py``; a bench process has one SparkContext, so this
folder runs as its own pytest process (``make bench`` runs it second, with ``BENCH_SERVICE=1``)."""

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
def service_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="ddl-log-bench-service-"))
    root.chmod(0o755)  # PostgreSQL runs as an unprivileged user when we are root
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def spark(service_root: Path) -> Iterator[Any]:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: the statement benchmarks need Spark")
    from ddl_log.ops import metastore
    from storage.catalogs.spark.session import service_session

    service = metastore.start(service_root / "service")
    try:
        session = service_session(service_root / "driver", service.uri, str(service.warehouse))
        yield session
        session.stop()
    finally:
        metastore.stop(service_root / "service")


@pytest.fixture(scope="session")
def ddl(spark: Any, service_root: Path) -> Iterator[Any]:
    """The AtomicDDL of the run, its log in a PostgreSQL database home on the service's own cluster, warmed up."""
    from ddl_log import AtomicDDL
    from ddl_log.ops import metastore, postgres

    service = metastore.status(service_root / "service")
    assert service is not None and service.postgres_root is not None
    cluster = postgres.status(service.postgres_root)
    assert cluster is not None
    home = f"{postgres.create_database(cluster, 'ddl_homes')}?home=bench"
    atomic = AtomicDDL(spark=spark, home=home)
    for _ in range(2):
        create_table(spark, "warm_plain", 100_000)
        atomic.create_or_replace_table("warm_atomic", as_select=select(100_000))
        run(spark, "DROP TABLE warm_plain")
        atomic.drop_tables(["warm_atomic"])
    drop_every_table(spark)
    yield atomic
    atomic.close()
