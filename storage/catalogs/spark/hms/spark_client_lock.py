"""The engine's metastore changes made while holding the lock Spark's own Hive client holds for each of its calls
(``HiveClientImpl`` synchronizes on its ``IsolatedClientLoader``), through ``spark_ddl_log.MetastoreLock`` of the
project's jar: no metastore read of this JVM's sessions overlaps a change of the engine.

Why: the metastore reads a definition back in several queries, and under read-committed isolation (Hive's default,
and the embedded Derby metastore's) a read that overlaps an ``alter_table`` can return the new location with the old
schema: the query fails (``PARQUET_COLUMN_DATA_TYPE_MISMATCH``) or reads wrongly typed rows, and its relation stays
in the session's cache (found by the readers' proof: eight failed reads in the writer's session during ALTER TABLE
rebuilds, then the writer's next ALTER failed reading the table). Spark keeps its own changes apart from its reads by
that lock; the engine's client is a metastore client of its own. Without the project's jar in the JVM the call is made
directly, as before (readers of other JVMs are never covered: docs/guarantees.md says what a metastore needs)."""

from __future__ import annotations

from typing import Any

from storage.catalogs.spark.engine import ENGINE_ERRORS, has_class
from storage.catalogs.spark.handle_answers import HandleAnswers
from storage.catalogs.spark.jvm import static
from storage.catalogs.spark.profile import Jvm

LOCKED_CALL = "spark_ddl_log.MetastoreLock"

_HAS_JAR: HandleAnswers[bool] = HandleAnswers(kept=8)
"""Per ``JavaSparkContext``, as :func:`storage.catalogs.spark.fs.named_jobs.context_names_jobs` keeps its answer:
whether its JVM has the project's jar. Not per JVM view: one Python process keeps its view across SparkContexts that
differ in ``spark.jars`` (:func:`~storage.catalogs.spark.engine.has_class`)."""


def has_project_jar(jvm: Jvm) -> bool:
    """Whether the JVM of ``jvm``'s SparkContext has the project's jar (asked once per SparkContext)."""
    return _HAS_JAR.get(jvm.context, lambda: has_class(jvm, LOCKED_CALL))


def spark_client_lock(hive: Any) -> Any:
    """What Spark's Hive client ``hive`` (a ``HiveClientImpl``) synchronizes its calls on; None for a client
    without one (then changes are made unlocked)."""
    try:
        return hive.clientLoader()
    except ENGINE_ERRORS:
        return None


def call_locked(jvm: Jvm, lock: Any, client: Any, method: str, *args: Any) -> Any:
    """``client.method(*args)`` (at most four arguments) while holding ``lock`` (:func:`spark_client_lock`): one
    round trip, as the direct call. Raises the metastore's own exception, as the direct call does."""
    if lock is None or not has_project_jar(jvm):
        return getattr(client, method)(*args)
    return static(jvm.view, LOCKED_CALL, "call")(lock, client, method, *args)
