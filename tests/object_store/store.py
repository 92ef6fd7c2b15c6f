"""The simulated object store of the tests (issue 40): a Spark session whose warehouse is on it, and what its file
system counts.

The file system is Java (tests/jvm/objectstore, ``make install`` builds :data:`JAR`): ``s3sim://BUCKET/KEY`` is the
local file ``<root>/BUCKET/KEY``, with S3's semantics (a rename is a copy then a delete, object by object; no
directories of their own; no hsync; output visible on close; per-call latency and injected failures). Its class
comment says each rule. The tests read its counters through py4j (:class:`StoreCalls`).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parent.parent.parent
JAR = ROOT / ".venv" / "jvm" / "objectstore.jar"
SCHEME = "s3sim"
BUCKET = "bucket"
WAREHOUSE_KEY = "warehouse"
FILE_SYSTEM_CLASS = "ddllog.objectstore.SimulatedObjectStore"
RUN_ENV = "DDL_LOG_TEST_OBJECT_STORE"
"""Set (``short`` or ``full``) in the test process whose Spark session has its warehouse on the simulated store: the
``spark`` fixture of tests/conftest.py then makes that session (:func:`object_store_session`)."""


def run_mode() -> str | None:
    """``short`` or ``full`` in the object-store test process; None in any other."""
    mode = os.environ.get(RUN_ENV)
    return mode if mode in ("short", "full") else None


def store_settings(root: Path, latency_ms: int = 0, faults: str = "") -> dict[str, str]:
    """Spark settings that register the file system with its buckets under ``root`` (its jar on the driver's and the
    executors' class path: Hadoop and the Hive metastore client find it there)."""
    if not JAR.is_file():
        raise FileNotFoundError(f"{JAR} is missing: `make install` builds the object-store file system")
    settings = {
        "spark.driver.extraClassPath": str(JAR),
        "spark.executor.extraClassPath": str(JAR),
        f"spark.hadoop.fs.{SCHEME}.impl": FILE_SYSTEM_CLASS,
        f"spark.hadoop.fs.{SCHEME}.root": str(root),
        f"spark.hadoop.fs.{SCHEME}.latency.ms": str(latency_ms),
    }
    if faults:
        settings[f"spark.hadoop.fs.{SCHEME}.faults"] = faults
    return settings


def object_store_settings(home: Path, latency_ms: int = 0) -> dict[str, str]:
    """The embedded session's settings (metastore under ``home``) with the warehouse at ``s3sim://bucket/warehouse``,
    the store's buckets under ``home/store``."""
    from storage.catalogs.spark.session import embedded_settings

    settings = embedded_settings(home)
    settings.update(store_settings(home / "store", latency_ms))
    settings["spark.sql.warehouse.dir"] = f"{SCHEME}://{BUCKET}/{WAREHOUSE_KEY}"
    return settings


def object_store_session(home: Path, latency_ms: int = 0, extra: dict[str, str] | None = None) -> Any:
    """A local Spark session with Hive support whose warehouse is on the simulated store (one per process: an
    active session is returned as it is, as ``embedded_session`` does, whose making it shares)."""
    from storage.catalogs.spark.session import _session

    return _session({**object_store_settings(home, latency_ms), **(extra or {})}, None)


def backing_path(spark: Any, location: str) -> Path | None:
    """The local file behind ``s3sim://BUCKET/KEY`` (None for another scheme): for the tests' own inspections."""
    prefix = f"{SCHEME}://"
    if not location.startswith(prefix):
        return None
    root = Path(str(spark.sparkContext._jsc.hadoopConfiguration().get(f"fs.{SCHEME}.root")))
    return root / location.removeprefix(prefix).rstrip("/")


@attrs.frozen
class Rename:
    """One rename the store made: ``kind`` (``data`` or ``staging``: out of a commit protocol's or Hive's staging
    directory), the objects it copied, from where to where (URIs)."""

    kind: str
    objects: int
    source: str
    target: str


class StoreCalls:
    """The store's counters and rename journal in ``spark``'s JVM (static: every instance of the store counts into
    them), its latency and injected faults."""

    def __init__(self, spark: Any) -> None:
        package = spark._jvm.ddllog.objectstore
        self._calls, self._faults = package.Calls, package.Faults

    def reset(self) -> None:
        self._calls.reset()

    def counts(self) -> Counter[str]:
        return Counter({str(key): int(value) for key, value in dict(self._calls.counts()).items()})

    def renames(self) -> list[Rename]:
        entries = [str(line).split("\t") for line in self._calls.renames()]
        return [Rename(kind, int(objects), source, target) for kind, objects, source, target in entries]

    def set_latency(self, millis: int) -> None:
        self._faults.setLatencyMillis(millis)

    def inject(self, rules: str) -> None:
        """Fault rules (``operation:nth[:objects][:halt]``, comma-separated), counted from now."""
        self._faults.inject(rules)

    def clear_faults(self) -> None:
        self._faults.clear()
