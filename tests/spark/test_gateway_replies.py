"""Every Py4J connection the catalog uses replies without Nagle's delay (TCP_NODELAY at the JVM's end): PySpark
leaves it off, and a reply over 8 KB (a partition listing, a wide table's record) then waits 44 ms for an
acknowledgement Python delays. Each Python thread has its own connection; each is set the first time it reaches the
JVM through the catalog."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from py4j.java_gateway import JavaObject
from py4j.protocol import GATEWAY_SERVER_OBJECT_ID

from storage.catalogs.spark.profile import jvm_of

pytestmark = pytest.mark.spark


def no_delay(spark: Any) -> bool:
    """Whether the JVM's end of the calling thread's connection has TCP_NODELAY."""
    server = JavaObject(GATEWAY_SERVER_OBJECT_ID, spark._jvm._gateway_client)
    return bool(server.getCallbackClient().getPerThreadConnection().getSocket().getTcpNoDelay())


def test_each_threads_connection_replies_promptly_once_the_catalog_reaches_the_jvm(spark):
    found: dict[str, tuple[bool, bool]] = {}

    def fresh_thread() -> None:
        spark._jvm.java.lang.System.nanoTime()  # PySpark's own call: a new connection, as PySpark makes it
        before = no_delay(spark)
        jvm_of(spark)
        found["new thread"] = (before, no_delay(spark))

    worker = threading.Thread(target=fresh_thread)
    worker.start()
    worker.join()
    assert found["new thread"] == (False, True)
    jvm_of(spark)
    assert no_delay(spark)
    reply = spark._jvm.org.apache.commons.lang3.StringUtils.repeat("x", 100_000)  # over 8 KB: whole, as before
    assert reply == "x" * 100_000
