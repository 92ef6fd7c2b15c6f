"""Which reader of the source's catalog a bootstrap, ``check`` or ``resync`` uses, and what is refused.

Supported:

* the replica's own metastore, when the replica lives in the source's metastore under other database names
  (``--rewrite-db`` for every replicated database): read in this process, no second driver;
* a metastore service (``thrift://HOST:PORT``, e.g. on PostgreSQL) that the source's drivers use, when the replica
  has a catalog of its own: read by a Spark driver of its own (:mod:`~ddl_log.replication.reader_process`);
* ``embedded``: the source home's own embedded Derby metastore, read by such a driver while the source's driver is
  stopped (Derby lets one JVM open it at a time);
* a catalog object given to the Python API (the in-memory catalog of tests).

Refused, with what to do instead (:class:`~ddl_log.replication.errors.SourceCatalogError`): no source metastore given
and the replica's own is not the source's (an embedded source and an embedded replica are two metastores).
"""

from __future__ import annotations

import os

from ddl_log.engine.core import DDLEngine
from ddl_log.replication.errors import SourceCatalogError
from ddl_log.replication.follow import Filters
from ddl_log.replication.reader_process import EMBEDDED, ProcessReader
from ddl_log.replication.replica_state import REPLICATION_DIR
from ddl_log.replication.snapshot import CatalogReader, SourceCatalog
from ddl_log.replication.source import Source
from storage.catalogs.ports import Catalog


def source_reader(ddl: DDLEngine, source: Source, filters: Filters, *, metastore: str | None = None,
                  catalog: object | None = None) -> tuple[SourceCatalog, bool]:
    """The reader and whether it reads the replica's own catalog (then every database must be renamed)."""
    if catalog is not None:
        if not isinstance(catalog, Catalog):
            raise SourceCatalogError(source.path, "the catalog given cannot be read for copying")
        same = catalog is ddl.catalog
        return CatalogReader(catalog, None if same else catalog), same
    own = ddl.settings.metastore_uri
    if metastore is None or (own is not None and metastore == own):
        renamed = filters.databases and all(filters.target_db(db) != db for db in filters.databases)
        if not renamed:
            embedded = os.path.isdir(os.path.join(source.path, "metastore_db"))
            raise SourceCatalogError(source.path, (
                "it keeps its catalog in an embedded Derby metastore, which is not the replica's: give "
                "--source-metastore embedded (read while the source's driver is stopped), or run the source on a "
                "metastore service (ddl-log metastore start) and give --source-metastore thrift://HOST:PORT"
                if embedded else
                "give the metastore its drivers use (--source-metastore thrift://HOST:PORT); without it the replica "
                "reads its own metastore, which works only for a replica that lives in the source's metastore "
                "under other database names (--rewrite-db src=dst for each of --databases)"))
        return CatalogReader(ddl.catalog, None), True  # type: ignore[arg-type]
    scratch = os.path.join(ddl.home.spark_directory(), REPLICATION_DIR, "reader")
    if metastore == EMBEDDED:
        if not os.path.isdir(os.path.join(source.path, "metastore_db")):
            raise SourceCatalogError(source.path, "it has no embedded metastore (a database home, or a home whose "
                                     "drivers use a metastore service: give its URI)")
        return ProcessReader(source.path, scratch, embedded=source.path), False
    if not metastore.startswith("thrift://"):
        raise SourceCatalogError(source.path, f"--source-metastore takes thrift://HOST:PORT or {EMBEDDED}, not "
                                 f"{metastore!r}")
    return ProcessReader(source.path, scratch, metastore_uri=metastore), False
