"""A table's cached data (``CACHE TABLE``, ``spark.table(t).cache()``) carried over to the version an install puts in
place, as Spark's own writes carry it: after Spark's INSERT OVERWRITE or TRUNCATE a cached table is cached still,
with its new rows (the catalog's ``refreshTable`` re-caches the plan it resolved).

Spark's way does not reach a version at a new location: its cached data is keyed by the plan of the old version's
relation, which a resolution after the install no longer returns (the extension's ``FreshRelations`` drops the old
relation, and the invalidation does too), so ``refreshTable`` found nothing to re-cache and the table silently stopped
being cached, its old rows held in memory until ``clearCache``. Here the old version's plan is read before the
install (:func:`cached_table`) and, after it, uncached (with what depends on it, as Spark's re-caching drops it) and
the new version cached lazily under the same name and storage level (:func:`cache_again`)."""

from __future__ import annotations

from typing import Any

import attrs

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS
from storage.catalogs.spark.jvm import caches_data, session_part
from storage.catalogs.spark.profile import Jvm


@attrs.frozen
class CachedTable:
    """What the session caches of a table's current version: the JVM ``Dataset`` of its relation, and how it was
    cached (the ``Option`` of its table name, its ``StorageLevel``)."""

    dataset: Any
    table_name: Any
    level: Any


def cached_table(jvm: Jvm | None, name: TableName) -> CachedTable | None:
    """The cached data of ``name`` as it resolves now, None when none (one round trip where the session caches
    nothing at all; else the table resolved, a metastore read and a listing of its files, as ``isCached`` does)."""
    if jvm is None or not caches_data(jvm):
        return None
    try:
        dataset = jvm.session.table(name.quoted)
        found = session_part(jvm, "cache manager").lookupCachedData(dataset)
        if found.isEmpty():
            return None
        builder = found.get().cachedRepresentation().cacheBuilder()
        return CachedTable(dataset, builder.tableName(), builder.storageLevel())
    except ENGINE_ERRORS:
        return None  # nothing of it readable: nothing cached to carry over


def cache_again(jvm: Jvm, name: TableName, cached: CachedTable) -> None:
    """After the install: the old version's cached data dropped (and the caches built on it), the table's current
    version cached under the same name and level (built at its next read, as ``CACHE LAZY TABLE``). The session's
    relation of ``name`` must be invalidated first."""
    manager = session_part(jvm, "cache manager")
    try:
        manager.uncacheQuery(cached.dataset, True, False)
        manager.cacheQuery(jvm.session.table(name.quoted), cached.table_name, cached.level)
    except ENGINE_ERRORS:
        return  # a cache is a copy: the table reads its new version uncached
