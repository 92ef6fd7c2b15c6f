"""A Spark driver on a metastore service (the settings of the embedded session, with the service's catalog)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def service_session(uri: str, warehouse: Path | str, home: Path) -> Any:
    """This process's Spark session, on the service at ``uri``; logs and scratch space under ``home``."""
    from storage.catalogs.spark.session import service_session as session_on_service

    return session_on_service(home, uri, warehouse)
