"""Does a metastore ``getTable`` ever return a *torn* definition? ``python -m tests.readers.torn_probe --seconds 60``.

Why (issue 14, 3 failed reads of 488 in another driver during ``alter_rebuild``): one ``alter_table`` commits a
table's definition in one metastore transaction, but ``getTable`` reads it back with several SELECTs (the table row,
its storage descriptor and serde parameters, its parameters) at Hive's default isolation
(``datanucleus.transactionIsolation=read-committed``), each seeing the latest commit. A read that overlaps the
commit can return the table parameters (Spark's schema, ``spark.sql.sources.schema``) of one definition and the serde
``path`` (Spark's location) of the other: a reader then reads the new files with the old schema (or the reverse).

The probe starts a metastore service, a writer thread that alternates ``alter_table`` between definitions A and B
(path ``..._A`` / ``..._B``, a marker and an extra schema column naming the same letter), and reader threads with
clients of their own; it counts reads whose marker or schema disagree with their path. ``--bridge``: the writer
goes through definitions without schema properties between A and B (Spark then infers the schema from the files it
lists, so a read that mixes two adjacent steps is whole); the figure that matters is then ``schema/path``.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SCHEMA = "spark.sql.sources.schema"


def definitions(jvm: Any, table: Any, bridge: bool) -> list[Any]:
    """The writer's cycle of definitions of ``table`` (no Hive columns: Spark reads a data source table's schema
    from its properties, and the metastore would refuse some column changes)."""

    def state(tag: str, with_schema: bool) -> Any:
        copy = table.deepCopy()
        location = f"{table.getSd().getLocation()}_{tag}"
        copy.getSd().setLocation(location)
        copy.getSd().getSerdeInfo().getParameters().put("path", location)
        copy.getSd().setCols(jvm.java.util.ArrayList())
        parameters = copy.getParameters()
        parameters.put("marker", tag)
        extra = f',{{"name":"{tag}","type":"long","nullable":true,"metadata":{{}}}}]}}'
        if with_schema:
            parameters.put(SCHEMA, str(parameters.get(SCHEMA)).removesuffix("]}") + extra)
        else:
            parameters.remove(SCHEMA)
        return copy

    if not bridge:
        return [state("A", True), state("B", True)]
    return [state("A", True), state("A", False), state("B", False), state("B", True), state("B", False),
            state("A", False)]


@contextlib.contextmanager
def postgres_service(root: Path) -> Iterator[Any]:
    """The product's service on a local PostgreSQL cluster (the production shape), stopped afterwards."""
    from ddl_log.ops import metastore

    root.chmod(0o755)  # the user PostgreSQL runs as must reach it
    try:
        yield metastore.start(root / "service")
    finally:
        metastore.stop(root / "service")


def probe(seconds: float, readers: int, bridge: bool, backend: str = "derby") -> Counter[str]:
    from tests.readers.drivers import service_session
    from tests.servers.metastore import metastore_service

    root = Path(tempfile.mkdtemp(prefix="torn-probe-"))
    counts: Counter[str] = Counter()
    running = postgres_service(root) if backend == "postgres" else metastore_service(root / "metastore")
    with running as service:
        spark = service_session(service.uri, service.warehouse, root / "home")
        spark.sql("CREATE DATABASE IF NOT EXISTS probe")
        spark.sql("CREATE TABLE probe.t USING parquet AS SELECT id AS a, CAST(0 AS INT) AS v FROM range(10)")
        jvm = spark._jvm
        conf = spark._jsparkSession.sharedState().externalCatalog().unwrapped().client().conf()

        def client() -> Any:
            return jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)

        writer_client = client()
        cycle = definitions(jvm, writer_client.getTable("probe", "t"), bridge)
        stop, lock = threading.Event(), threading.Lock()

        def write() -> None:
            done = 0
            while not stop.is_set():
                writer_client.alter_table("probe", "t", cycle[done % len(cycle)])
                done += 1
            with lock:
                counts["alters"] += done

        def read() -> None:
            reader_client = client()
            while not stop.is_set():
                table = reader_client.getTable("probe", "t")
                path = str(table.getSd().getSerdeInfo().getParameters().get("path"))[-1:]
                parameters = table.getParameters()
                schema = parameters.get(SCHEMA)
                with lock:
                    counts["reads"] += 1
                    if parameters.get("marker") not in (None, path):
                        counts["marker/path torn"] += 1
                    tag = next((t for t in "AB" if schema is not None and f'"name":"{t}"' in str(schema)), None)
                    if tag not in (None, path):
                        counts["schema/path torn"] += 1

        threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(readers)]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join()
        spark.stop()
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.readers.torn_probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--bridge", action="store_true")
    parser.add_argument("--backend", choices=("derby", "postgres"), default="derby")
    args = parser.parse_args(argv)
    counts = probe(args.seconds, args.readers, args.bridge, args.backend)
    print(dict(counts))
    return 1 if counts["schema/path torn"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
