"""The JVM told where each table's new version lives, right after its install: the project's extension drops a
session's cached relation of a table whose location is no longer the one installed here, before a query resolves the
table (``spark_ddl_log.FreshRelations``, ``spark_ddl_log.Installed``). Without the project's jar in the session's JVM
this does nothing (Spark's own caching, as documented in docs/guarantees.md)."""

from __future__ import annotations

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, has_class
from storage.catalogs.spark.handle_answers import HandleAnswers
from storage.catalogs.spark.jvm import static
from storage.catalogs.spark.profile import Jvm

INSTALLED = "spark_ddl_log.Installed"
EXTENSION = "spark_ddl_log.DdlLogExtension"
"""The class in ``spark.sql.extensions`` that gives a session ``FreshRelations`` (the front end's ``EXTENSION_CLASS``,
which this layer cannot import)."""

_HAS_CLASS: HandleAnswers[bool] = HandleAnswers(kept=8)
"""Per ``JavaSparkContext``, as :func:`storage.catalogs.spark.fs.named_jobs.context_names_jobs` keeps its answer:
whether its JVM has the project's class. Not per JVM view: one Python process keeps its view across SparkContexts
that differ in ``spark.jars`` (:func:`~storage.catalogs.spark.engine.has_class`)."""
_GUARDED: HandleAnswers[bool] = HandleAnswers(kept=32)
"""Per JVM ``SparkSession``: whether it was built with the project's extension (a server's client sessions each
ask)."""


def note_installed(jvm: Jvm, name: TableName, location: str) -> None:
    """Tell the JVM that ``name``'s current version lives at ``location`` (one round trip; work tables are not
    told: no query of a user's reads them)."""
    if name.is_reserved or not location or not _has_installed(jvm):
        return
    try:
        static(jvm.view, INSTALLED, "location")(name.db, name.name, location)
    except ENGINE_ERRORS:
        return  # a hint for the sessions' caches, never a reason to fail the statement that installed it


def _has_installed(jvm: Jvm) -> bool:
    return _HAS_CLASS.get(jvm.context, lambda: has_class(jvm, INSTALLED))


def relations_kept_fresh(jvm: Jvm) -> bool:
    """Whether the session's analyzer drops a cached relation whose location is not the one :func:`note_installed`
    told (``FreshRelations``): the session was built with the project's extension (a static setting: asked once per
    session, two round trips) and its JVM has the class the notes go to."""
    return _GUARDED.get(jvm.session, lambda: _built_with_extension(jvm) and _has_installed(jvm))


def _built_with_extension(jvm: Jvm) -> bool:
    try:
        named = str(jvm.session.conf().get("spark.sql.extensions", ""))
    except ENGINE_ERRORS:
        return False
    return EXTENSION in (part.strip() for part in named.split(","))
