"""The metastore service for tests: the product's (:mod:`ddl_log.ops.metastore`), Derby-backed by default
(no PostgreSQL needed, one service per test), PostgreSQL-backed with ``backend="postgres"``.

Several Spark drivers on one service share one catalog, which is what a reader in another driver needs: the test
starts the service with :func:`metastore_service` (a context manager, so that a failing test never leaves a JVM or a
PostgreSQL cluster behind) and points each driver at it with :func:`settings_for` (or :func:`spark_settings`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ddl_log.ops.errors import MetastoreServiceError
from ddl_log.ops.metastore import MetastoreService, running
from storage.catalogs.spark.service import service_settings

__all__ = ["MetastoreService", "MetastoreServiceError", "metastore_service", "settings_for", "spark_settings"]


@contextmanager
def metastore_service(root: Path, *, backend: str = "derby", **options: Any) -> Iterator[MetastoreService]:
    """A running service under ``root`` for the ``with`` block; stopped however the block ends."""
    with running(root, backend=backend, **options) as service:
        yield service


def spark_settings(service: MetastoreService) -> dict[str, str]:
    """What a Spark driver needs to use the service's catalog (and the same warehouse directory)."""
    return service.spark_settings


def settings_for(uri: str, warehouse: Path | str) -> dict[str, str]:
    """:func:`spark_settings` from the service's address and warehouse alone (what a driver subprocess is given)."""
    return service_settings(uri, warehouse)
