"""Counting what a statement asks the JVM (bench-side only, nothing in the product changes): every Py4J command the
Python side sends (a round trip each), and among them the metastore calls the statement makes itself (its own
metastore client's and Spark's external catalog's; a SQL statement's own metastore work inside Spark is not seen
here, so ``spark.sql`` calls are counted apart). Works on any checkout: it patches Py4J's client."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

METASTORE_METHODS = frozenset({
    "getTable", "getTableObjectsByName", "getTablesByName", "tableExists", "getDatabase", "listPartitions",
    "alter_table", "alter_partitions", "add_partitions", "createTable", "dropTable", "dropPartition",
    "getAllDatabases", "getAllTables", "dropDatabase", "listPartitionNames",
})
"""Methods of Hive's IMetaStoreClient and Spark's ExternalCatalog / Catalog that reach the metastore."""


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count while the block runs: ``round trips``, ``metastore`` (own calls), ``spark.sql``, and each method."""
    import py4j.clientserver
    import py4j.java_gateway

    counter: Counter[str] = Counter()
    patched = []
    for cls in (py4j.clientserver.JavaClient, py4j.java_gateway.GatewayClient):
        original = cls.send_command

        def send(self, command, *args, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            parts = command.split("\n")
            counter["round trips"] += 1
            if parts[0] == "c" and len(parts) > 2:
                method = parts[2]
                counter[method] += 1
                if method in METASTORE_METHODS:
                    counter["metastore"] += 1
                elif method == "sql":
                    counter["spark.sql"] += 1
            return _original(self, command, *args, **kwargs)

        cls.send_command = send
        patched.append((cls, original))
    try:
        yield counter
    finally:
        for cls, original in patched:
            cls.send_command = original
