"""The JVM told where each table's new version lives and its Spark schema, right after its install: the project's
extension drops a session's cached relation of a table whose location or schema is not the one installed here, before
a query resolves the table (``spark_ddl_log.FreshRelations``, ``spark_ddl_log.Installed``). Without the project's jar
in the session's JVM this does nothing (Spark's own caching, as documented in docs/guarantees.md)."""

from __future__ import annotations

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS
from storage.catalogs.spark.handle_answers import HandleAnswers
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.hms.spark_client_lock import has_project_jar
from storage.catalogs.spark.jvm import static
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import SCHEMA_PROPERTY, large_property
from storage.errors import UnrenderedSchemaError

INSTALLED = "spark_ddl_log.Installed"
EXTENSION = "spark_ddl_log.DdlLogExtension"
"""The class in ``spark.sql.extensions`` that gives a session ``FreshRelations`` (the front end's ``EXTENSION_CLASS``,
which this layer cannot import)."""

_GUARDED: HandleAnswers[bool] = HandleAnswers(kept=32)
"""Per JVM ``SparkSession``: whether it was built with the project's extension (a server's client sessions each
ask)."""


def note_installed(jvm: Jvm, name: TableName, table: HiveTable) -> None:
    """Tell the JVM that ``name``'s current version is ``table``: its location and its Spark schema (the JSON of its
    ``spark.sql.sources.schema`` property, none for a table without one). One round trip; work tables are not told:
    no query of a user's reads them. The schema because a metastore read torn by the install (read-committed
    isolation: the new location with the old schema) builds a relation at the installed location that reads the new
    files with the old types."""
    location = table.location
    if name.is_reserved or not location or not has_project_jar(jvm):
        return
    try:
        schema = large_property(table.parameters, SCHEMA_PROPERTY)
    except UnrenderedSchemaError:
        schema = None  # Spark cannot read it either: the location alone decides
    try:
        static(jvm.view, INSTALLED, "location")(name.db, name.name, location, schema)
    except ENGINE_ERRORS:
        return  # a hint for the sessions' caches, never a reason to fail the statement that installed it


def relations_kept_fresh(jvm: Jvm) -> bool:
    """Whether the session's analyzer drops a cached relation whose location or schema is not the one
    :func:`note_installed` told (``FreshRelations``): the session was built with the project's extension (a static
    setting: asked once per session, two round trips) and its JVM has the class the notes go to."""
    return _GUARDED.get(jvm.session, lambda: _built_with_extension(jvm) and has_project_jar(jvm))


def _built_with_extension(jvm: Jvm) -> bool:
    try:
        named = str(jvm.session.conf().get("spark.sql.extensions", ""))
    except ENGINE_ERRORS:
        return False
    return EXTENSION in (part.strip() for part in named.split(","))
