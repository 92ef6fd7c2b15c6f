"""A self-contained local Spark session with a Hive metastore, for tests, benchmarks and single-machine use.

Everything the session writes lives under one ``home`` directory::

    home/metastore_db/     embedded Derby database of the Hive metastore
    home/warehouse/        managed tables (the ``default`` database lives here directly)
    home/derby.log         Derby's own log
    home/logs/spark.log    Spark/Hive log (level ERROR), so the console stays quiet
    home/log4j2.properties the logging setup the JVM is started with

Embedded Derby lets one JVM open a metastore at a time: two processes cannot share a ``home`` (the second fails to
boot the database). The DDL log holds its home lock; keep one Spark home per DDL log home. Drivers that share a
catalog use :func:`service_session` instead: the catalog is a Hive metastore service (``ddl-log metastore start``),
and ``home`` keeps only this driver's logs and scratch space.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pyspark.logger import PySparkLogger
from pyspark.sql import SparkSession

from storage.catalogs.spark.service import service_settings

APP_NAME = "spark-ddl-log"
LOCAL_MASTER = "local[2]"
"""The master when none is given: the driver runs the tasks itself, in two threads."""
LOOPBACK_HOSTS = ("127.", "localhost")

_LOG4J2_TEMPLATE = """\
# Written by storage.catalogs.spark.session.embedded_session: Spark/Hive log to a file, console only for FATAL.
status = error
name = spark-ddl-log
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log_file}
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n
appender.console.filter.threshold.type = ThresholdFilter
appender.console.filter.threshold.level = fatal
rootLogger.level = error
# For PySpark and shells Spark resets the root level to the level of the launching class's logger (WARN when it has
# none) and says so on stderr; giving that logger the root's level keeps both quiet.
logger.pygateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.pygateway.level = error
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
rootLogger.appenderRef.file.ref = file
rootLogger.appenderRef.console.ref = console
"""

PYSPARK_ERROR_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
"""Python loggers through which PySpark 4 prints every captured SQL error (with the JVM stack trace) to stderr."""


def quiet_pyspark_error_loggers() -> None:
    """Stop PySpark from printing a JSON record with a JVM stack trace for every SQL error it raises.

    PySpark 4 logs each ``AnalysisException`` (and friends) at ERROR on the loggers above as soon as the exception
    object is built, even when the caller catches and handles it — :func:`storage.catalogs.spark.catalog.spark_catalog`
    probes for missing tables and translates every engine error, so those records would only be noise. The
    exception itself is unchanged. Process-wide and idempotent.
    """
    for name in PYSPARK_ERROR_LOGGERS:
        # Through PySparkLogger, so the logger is the kind PySpark expects (it logs with extra keyword arguments).
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


def embedded_session(home: Path, master: str | None = None, extra: dict[str, str] | None = None) -> SparkSession:
    """Return a local Spark session with Hive support whose metastore and warehouse live under ``home``.

    If a Spark session is already active in this process it is returned as it is (``getOrCreate`` semantics: one
    SparkContext per process, and static settings such as the warehouse cannot change once the JVM runs).

    Settings, and why:

    * ``master local[2]``: two cores are enough for DDL and small CTAS jobs and keep start-up cheap. ``master``
      instead: a cluster manager's (``spark://host:port``, ``yarn``, ``k8s://...``), whose executors, in JVMs of
      their own, write the data files (:func:`master_settings`).
    * ``spark.sql.catalogImplementation=hive`` (``enableHiveSupport``): the DDL log acts on persistent tables in a
      Hive metastore, the catalog most deployments use.
    * ``javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=<home>/metastore_db;create=true``: an embedded Derby
      metastore under ``home`` instead of ``./metastore_db`` in the working directory.
    * ``-Dderby.system.home`` / ``-Dderby.stream.error.file`` (driver JVM options): Derby's system directory and
      ``derby.log`` go under ``home`` instead of the working directory.
    * ``spark.sql.warehouse.dir=<home>/warehouse``: managed tables under ``home`` (not ``./spark-warehouse``).
    * ``hive.exec.scratchdir`` / ``hive.exec.local.scratchdir``: Hive's scratch space under ``home`` too, not
      ``/tmp/hive``.
    * ``spark.ui.enabled=false``: no web UI (no port to bind, faster start, nothing to expose).
    * ``spark.ui.showConsoleProgress=false``: no ``[Stage 0:>`` progress bars on the console.
    * ``spark.sql.shuffle.partitions=4``: the default 200 makes every small aggregation a 200-task job.
    * ``spark.driver.host`` / ``spark.driver.bindAddress=127.0.0.1``: local mode needs no network interface; binding
      to loopback avoids hostname-resolution warnings and firewall prompts. On a cluster manager only when its
      master is on loopback too (a cluster of this machine); else Spark's own choice, which executors on other
      machines can reach.
    * ``-Dlog4j2.configurationFile=<home>/log4j2.properties``: Spark/Hive log at ERROR into ``home/logs/spark.log``
      from the first line on (the console only gets FATAL), so failed jobs do not spray stack traces over the
      user's terminal; ``setLogLevel("ERROR")`` afterwards keeps the level if the JVM was configured elsewhere.
    * :func:`quiet_pyspark_error_loggers`: the same for PySpark's own Python-side error records.

    ``extra``: more settings (the test suite's JVM loads the session extension this way).
    """
    return _session({**embedded_settings(home), **(extra or {})}, master)


def _session(settings: dict[str, str], master: str | None) -> SparkSession:
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.master(master or LOCAL_MASTER).appName(APP_NAME)
    for key, value in master_settings(settings, master).items():
        builder = builder.config(key, value)
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    quiet_pyspark_error_loggers()
    return spark


def master_settings(settings: dict[str, str], master: str | None) -> dict[str, str]:
    """``settings`` for a driver of ``master``: as they are in local mode and on a cluster of this machine; on a
    cluster manager elsewhere without the loopback driver address (its executors must reach the driver)."""
    if master is None or is_local_master(master) or master_host(master).startswith(LOOPBACK_HOSTS):
        return settings
    return {key: value for key, value in settings.items()
            if key not in ("spark.driver.host", "spark.driver.bindAddress")}


def is_local_master(master: str) -> bool:
    """Whether ``master`` runs tasks inside the driver's JVM (``local``, ``local[N]``, ``local[*]``)."""
    return master == "local" or master.startswith("local[")


def master_host(master: str) -> str:
    """The first host of a ``spark://host:port[,host:port]`` master ("" for any other kind)."""
    if not master.startswith("spark://"):
        return ""
    return master.removeprefix("spark://").split(",")[0].rsplit(":", 1)[0]


def service_session(home: Path, uri: str, warehouse: str | Path | None = None,
                    master: str | None = None, extra: dict[str, str] | None = None) -> SparkSession:
    """A local Spark session like :func:`embedded_session`, whose catalog is the metastore service at ``uri``
    (``thrift://host:port``) instead of a Derby database under ``home``: every driver given the same ``uri`` sees
    the same databases and tables. ``warehouse``: where new databases' (and ``default``'s) managed tables go; give
    the service's, so that every driver writes to the same place (on a cluster manager: a file system every
    executor reaches). ``master`` and ``extra``: as for :func:`embedded_session`. An active session is returned as
    it is."""
    return _session({**service_session_settings(home, uri, warehouse), **(extra or {})}, master)


def service_session_settings(home: Path, uri: str, warehouse: str | Path | None = None) -> dict[str, str]:
    """The settings of :func:`service_session`: those of :func:`embedded_session` without its Derby database,
    with the service's address and warehouse (:func:`storage.catalogs.spark.service.service_settings`)."""
    settings = embedded_settings(home)
    del settings["spark.hadoop.javax.jdo.option.ConnectionURL"]
    if warehouse is None:
        del settings["spark.sql.warehouse.dir"]
    settings.update(service_settings(uri, warehouse))
    return settings


def embedded_settings(home: Path) -> dict[str, str]:
    """The Spark settings of :func:`embedded_session` for ``home`` (creating ``home`` and its logging setup).

    Also what a local Spark Connect server needs: ``SparkSession.builder.remote("local[2]")`` with these settings
    starts one in this process and connects to it (a classic and a Connect session cannot share a process). The
    Connect client then also tries to set each of them as a runtime setting and warns ``CANNOT_MODIFY_CONFIG``
    for the static ones; the server has them already.
    """
    home = Path(home).resolve()
    home.mkdir(parents=True, exist_ok=True)
    (home / "logs").mkdir(exist_ok=True)
    log4j_file = home / "log4j2.properties"
    log4j_file.write_text(_LOG4J2_TEMPLATE.format(log_file=home / "logs" / "spark.log"), encoding="utf-8")
    java_options = " ".join(
        [
            _java_property("derby.system.home", str(home)),
            _java_property("derby.stream.error.file", str(home / "derby.log")),
            _java_property("log4j2.configurationFile", log4j_file.as_uri()),
        ]
    )
    return {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.javax.jdo.option.ConnectionURL": metastore_url(home),
        "spark.driver.extraJavaOptions": java_options,
        "spark.sql.warehouse.dir": str(home / "warehouse"),
        "spark.hadoop.hive.exec.scratchdir": str(home / "hive-scratch"),
        "spark.hadoop.hive.exec.local.scratchdir": str(home / "hive-scratch-local"),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
    }


def _java_property(key: str, value: str) -> str:
    """``-Dkey=value`` for ``spark.driver.extraJavaOptions``, which Spark splits on blanks unless quoted."""
    if "'" in value:
        raise ValueError(f"a Spark home path may not contain a single quote: {value!r}")
    return f"'-D{key}={value}'"


def metastore_url(home: Path) -> str:
    """JDBC URL of the embedded Derby metastore under ``home`` (created on first use).

    Derby separates URL attributes with ``;``, so a home whose path contains one cannot be expressed.
    """
    if ";" in str(home):
        raise ValueError(f"a Spark home path may not contain ';': {str(home)!r}")
    return f"jdbc:derby:;databaseName={Path(home) / 'metastore_db'};create=true"
