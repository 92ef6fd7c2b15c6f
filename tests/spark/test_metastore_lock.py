"""The engine's metastore changes are made holding the lock Spark's own Hive client holds for each of its calls, so
that no metastore read of the JVM's sessions overlaps one (under read-committed isolation a read that overlaps an
``alter_table`` can return the new location with the old schema: the readers' proof saw it fail reads in the writer's
session). Shown by holding that lock from another JVM thread: Spark's read and the engine's install both wait for it,
and both finish once it is let go."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.names import TableName
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.spark_client_lock import call_locked, spark_client_lock
from storage.catalogs.spark.profile import jvm_of
from storage.errors import CatalogError, NoSuchObjectError

pytestmark = pytest.mark.spark

WAIT = 0.6
"""How long a call must stay blocked while the lock is held (it takes a few milliseconds otherwise)."""


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Path) -> Iterator[AtomicDDL]:
    with AtomicDDL(spark=clean_spark, home=tmp_path / "home", retention_seconds=3600) as engine:
        yield engine


def started(call: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    done: list[Any] = []

    def run() -> None:
        try:
            done.append(call())
        except Exception as error:  # noqa: BLE001 - reported by the assertion on ``done``
            done.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def test_an_install_waits_while_sparks_client_lock_is_held_as_sparks_own_reads_do(clean_spark: Any,
                                                                                   ddl: AtomicDDL) -> None:
    spark = clean_spark
    ddl.sql("CREATE TABLE ml USING parquet AS SELECT 1 AS v")
    jvm = jvm_of(spark)
    assert jvm is not None
    lock = spark_client_lock(spark._jsparkSession.sharedState().externalCatalog().unwrapped().client())
    assert lock is not None
    client = MetastoreClient(spark_catalog(spark).views._engine)
    name = TableName("default", "ml")
    record = client.get(name)
    assert record is not None
    latch = spark._jvm.java.util.concurrent.CountDownLatch(1)
    holder, _ = started(lambda: call_locked(jvm, lock, latch, "await"))
    try:
        time.sleep(0.2)  # the holder's JVM thread takes the lock
        reader, read = started(lambda: spark._jsparkSession.sharedState().externalCatalog().tableExists("default",
                                                                                                          "ml"))
        installer, installed = started(lambda: client.install(name, record.with_parameters({"k": "v"})))
        time.sleep(WAIT)
        assert (read, installed) == ([], [])
    finally:
        latch.countDown()
    for thread in (holder, reader, installer):
        thread.join(timeout=30)
    assert read == [True]
    assert installed == [None]
    assert spark.sql("SHOW TBLPROPERTIES ml ('k')").collect()[0].value == "v"


def test_a_change_raises_the_metastores_own_error_as_a_direct_call_does(clean_spark: Any, ddl: AtomicDDL) -> None:
    """The locked call rethrows what the metastore threw, so the engine's typed errors keep their causes: a missing
    database's drop is the engine's NoSuchObjectError, a non-empty one's a CatalogError saying so."""
    client = MetastoreClient(spark_catalog(clean_spark).views._engine)
    with pytest.raises(NoSuchObjectError, match="database ml_missing does not exist"):
        client.drop_database("ml_missing")
    ddl.sql("CREATE DATABASE ml_full")
    ddl.sql("CREATE TABLE ml_full.t USING parquet AS SELECT 1 AS v")
    with pytest.raises(CatalogError, match="database ml_full is not empty"):
        client.drop_database("ml_full")
