"""The metastore's tables on PostgreSQL, created before the service first starts.

The service could create them lazily (``datanucleus.schema.autoCreateAll``), but on PostgreSQL that was measured to
hang; Hive's own schema scripts are not shipped with pyspark (nor copied here). What pyspark does ship is the
metastore's JDO model (``package.jdo`` in the ``hive-metastore`` jar) and DataNucleus's ``SchemaTool``, which
creates every table that model maps, named as the service names them (:func:`hive_site.schema_naming`). It does
not create Hive's transaction and lock tables (not JDO-mapped), which only Hive ACID tables and the metastore lock
API use; Spark uses neither.

Idempotent and safe to run from two starts at once: under a PostgreSQL advisory lock, a database that has the
metastore's ``DBS`` table is left as it is.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ddl_log.ops.errors import MetastoreSchemaError
from ddl_log.ops.hive_site import POSTGRES_DRIVER, PostgresDatabase, schema_naming, write_private
from ddl_log.ops.postgres import log_tail

if TYPE_CHECKING:
    import psycopg

SCHEMA_TOOL = "org.datanucleus.store.schema.SchemaTool"
JDO_MODEL = "package.jdo"
"""The metastore's JDO mapping, a resource of pyspark's ``hive-metastore`` jar (found on the classpath)."""
MARKER_TABLE = "DBS"
"""A table the schema tool creates (the databases): its presence means the schema exists."""
ADVISORY_LOCK = 0x6464_6C6D
"""The advisory lock key two concurrent starts serialise the check-and-create on ("ddlm")."""
SCHEMA_TIMEOUT = 300.0
JDBC_JAR = Path("/usr/share/java/postgresql.jar")
"""PostgreSQL's JDBC driver from Debian's ``libpostgresql-jdbc-java`` (pyspark ships none)."""
JDBC_JAR_ENV = "DDL_LOG_POSTGRES_JDBC_JAR"
JAVA_OPTIONS_ENV = "DDL_LOG_METASTORE_JAVA_OPTS"
DEFAULT_JAVA_OPTIONS = "-Xmx512m"




def java_options() -> list[str]:
    """The options of the service's and the schema tool's JVMs: ``$DDL_LOG_METASTORE_JAVA_OPTS`` (split on blanks)
    or a heap limit."""
    return os.environ.get(JAVA_OPTIONS_ENV, DEFAULT_JAVA_OPTIONS).split()


def jdbc_jar() -> Path:
    """The PostgreSQL JDBC driver jar: ``$DDL_LOG_POSTGRES_JDBC_JAR`` or Debian's."""
    jar = Path(os.environ.get(JDBC_JAR_ENV) or JDBC_JAR)
    if not jar.is_file():
        raise MetastoreSchemaError(str(jar), f"no PostgreSQL JDBC driver jar (Debian: apt-get install "
                                   f"libpostgresql-jdbc-java, or set {JDBC_JAR_ENV})")
    return jar


def connect(database: PostgresDatabase) -> psycopg.Connection[Any]:
    """A psycopg connection (autocommit), or :class:`MetastoreSchemaError` naming the database."""
    import psycopg

    try:
        return psycopg.connect(database.libpq_url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise MetastoreSchemaError(database.shown, f"cannot connect: {str(exc).strip()}") from exc


def schema_exists(database: PostgresDatabase) -> bool:
    with connect(database) as connection:
        return _has_marker(connection)


def _has_marker(connection: psycopg.Connection[Any]) -> bool:
    row = connection.execute("SELECT to_regclass(%s) IS NOT NULL", (f'"{MARKER_TABLE}"',)).fetchone()
    return bool(row and row[0])


def ensure_schema(database: PostgresDatabase, workdir: Path, jars: Path, *,
                  timeout: float = SCHEMA_TIMEOUT) -> float | None:
    """Create the metastore's tables in ``database`` unless they exist. Returns the seconds the schema tool took,
    None when the schema was there already. ``workdir`` keeps the tool's properties file and log."""
    with connect(database) as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", (ADVISORY_LOCK,))
        try:
            if _has_marker(connection):
                return None
            return run_schema_tool(database, workdir, jars, timeout=timeout)
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_LOCK,))


def run_schema_tool(database: PostgresDatabase, workdir: Path, jars: Path, *, timeout: float = SCHEMA_TIMEOUT) -> float:
    """Run DataNucleus's SchemaTool ``-create`` on the metastore's JDO model; returns its wall time."""
    properties = {"javax.jdo.option.ConnectionURL": database.jdbc_url,
                  "javax.jdo.option.ConnectionDriverName": POSTGRES_DRIVER, **schema_naming()}
    props_path, log_path = workdir / "schema-tool.properties", workdir / "schema-tool.log"
    write_private(props_path, "".join(f"{k}={_escape(v)}\n" for k, v in properties.items()))
    command = ["java", *java_options(), "-cp", f"{jars}/*:{jdbc_jar()}", SCHEMA_TOOL, "-create", "-api", "JDO",
               "-props", str(props_path), JDO_MODEL]
    began = time.monotonic()
    with open(log_path, "wb") as log:
        try:
            result = subprocess.run(command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            raise MetastoreSchemaError(database.shown, f"schema tool still running after {timeout:.0f} s",
                                       log_tail(log_path)) from exc
    output = log_tail(log_path, 100_000)
    if result.returncode != 0 or "completed successfully" not in output:
        raise MetastoreSchemaError(database.shown, f"schema tool exited with {result.returncode}", output[-3000:])
    return time.monotonic() - began


def _escape(value: str) -> str:
    """A value in a Java properties file: backslashes doubled (``:`` and ``=`` in values need no escape)."""
    return value.replace("\\", "\\\\")
