"""Which Spark session an :class:`ddl_log.AtomicDDL` makes when none is given: the embedded one (Derby
metastore and warehouse under the home) or one on a shared metastore service, which other drivers use too."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import attrs

from ddl_log.cluster.project_jar import jar_settings
from storage.catalogs.ports import Catalog
from storage.catalogs.spark.service import service_settings
from storage.errors import CatalogError, NoLocalDirectoryError
from storage.records.home import AnyHome


@attrs.frozen
class SessionChoice:
    """``metastore_uri`` None: the embedded session; else a session on that service (``thrift://host:port``),
    managed tables of new databases under ``warehouse`` (the service's; None leaves Spark's default). ``master``:
    the cluster manager whose executors run the session's tasks (None: local mode, in the driver's JVM)."""

    metastore_uri: str | None = None
    warehouse: str | None = None
    master: str | None = None

    @classmethod
    def of(cls, spark: Any, metastore_uri: str | None, warehouse: str | os.PathLike[str] | None,
           master: str | None = None) -> SessionChoice:
        """Checked when the API object is made, not when Spark first starts: a session given together with a
        metastore URI or a master is a contradiction (a running session's catalog and master cannot change)."""
        if metastore_uri is not None and spark is not None:
            raise CatalogError("give a Spark session or a metastore URI, not both (a running session's catalog is "
                               "fixed)", metastore_uri)
        if master is not None and spark is not None:
            raise CatalogError("give a Spark session or a Spark master, not both (a running session's master is "
                               "fixed)", master)
        if warehouse is not None and metastore_uri is None:
            raise CatalogError("a warehouse directory is given with a metastore URI only (the embedded session's "
                               "is under the home)", str(warehouse))
        if metastore_uri is not None:
            service_settings(metastore_uri)  # refuses a URI that is not thrift://, now rather than when Spark starts
        if warehouse is not None and "://" not in str(warehouse):  # a local directory; a URL (s3a://...) as it is
            warehouse = Path(warehouse).resolve()
        return cls(metastore_uri, None if warehouse is None else str(warehouse), master)


def driver_session(home: AnyHome, choice: SessionChoice) -> Any:
    """The session ``choice`` asks for. Embedded: metastore, warehouse and Spark's logs under the home directory (a
    database home has none: :class:`NoLocalDirectoryError`). On a service: Spark's logs and scratch space under the
    home directory, or a private temporary one for a database home. Either on ``choice.master``, with the project's
    jar where it is built (:func:`~ddl_log.cluster.project_jar.jar_settings`)."""
    if choice.metastore_uri is None:
        from storage.catalogs.spark.session import embedded_session

        return embedded_session(Path(home.spark_directory()), choice.master, extra=jar_settings())
    from storage.catalogs.spark.session import service_session

    try:
        scratch = home.spark_directory()
    except NoLocalDirectoryError:
        scratch = tempfile.mkdtemp(prefix="ddl-log-driver-")
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # the session lives as long as the process
    return service_session(Path(scratch), choice.metastore_uri, choice.warehouse, choice.master,
                           extra=jar_settings())


def close_catalog(catalog: Catalog | None) -> None:
    """Close what ``catalog`` opened beside its session (the Spark catalog's own Hive metastore client: one Thrift
    connection the service keeps until it is closed), never the session; nothing for None."""
    if catalog is not None:
        catalog.close()
