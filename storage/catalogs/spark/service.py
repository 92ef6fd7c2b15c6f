"""What a Spark driver needs to join a shared Hive metastore service; free of pyspark, so that commands which only
print these settings (``ddl-log metastore status``) start no JVM and import no Spark."""

from __future__ import annotations

from pathlib import Path

from storage.errors import CatalogError


def service_settings(uri: str, warehouse: str | Path | None = None) -> dict[str, str]:
    """Spark settings of a driver whose catalog is the metastore service at ``uri`` (``thrift://host:port``).

    ``spark.sql.catalogImplementation=hive`` makes the session catalog a Hive one, ``hive.metastore.uris`` (through
    ``spark.hadoop.``) points its Hive client at the service instead of an embedded Derby database, and
    ``spark.sql.warehouse.dir`` is where new databases (and ``default``) keep managed tables: the same for every
    driver, or each would put them somewhere else. None leaves Spark's default."""
    if not uri.startswith("thrift://"):
        raise CatalogError(f"a metastore service URI is thrift://host:port, not {uri!r}", uri)
    settings = {"spark.sql.catalogImplementation": "hive", "spark.hadoop.hive.metastore.uris": uri}
    if warehouse is not None:
        settings["spark.sql.warehouse.dir"] = str(warehouse)
    return settings
