"""Attached sessions: a Spark session extension (``spark.sql.extensions=spark_ddl_log.DdlLogExtension``, Java under
``java/``, built by ``make install``) that hands every statement the SQL front end routes, issued as ``spark.sql``,
and the DataFrame writers' and catalog API's DDL, to the DDL log engine of the PySpark driver that owns the session.

The modules, by job: :mod:`~.conf` (the settings, ``ddl-log session-conf``), :mod:`~.attachment` (``attach``, the
process's one attached Spark), :mod:`~.engine` (the attached engine), :mod:`~.sessions` (one runner per session of
the Spark), :mod:`~.session_transactions` (a session's DDL transaction), :mod:`~.handler` (the Python side of the
bridge), :mod:`~.answers` (what it answers), :mod:`~.writes` and :mod:`~.patches` (DataFrame writes as statements),
:mod:`~.jvm` (the JVM handles), :mod:`~.build` (the jar)."""

from ddl_log.frontends.extension.answers import statement_error
from ddl_log.frontends.extension.attached_engine import AttachedEngine
from ddl_log.frontends.extension.attachment import attach, attached, last_result
from ddl_log.frontends.extension.conf import ALLOW_NON_ATOMIC, ENABLED, EXTENSION_CLASS, HOME, session_conf

__all__ = ["ALLOW_NON_ATOMIC", "ENABLED", "EXTENSION_CLASS", "HOME", "AttachedEngine", "attach", "attached",
           "last_result", "session_conf", "statement_error"]
