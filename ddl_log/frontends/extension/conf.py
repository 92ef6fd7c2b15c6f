"""The Spark settings that attach a session to a DDL log home (``ddl-log --home H session-conf``): the extension
(its jar and class), the home, the home's own settings, and, on the embedded default, the home's metastore and
warehouse, so that such a session and ``ddl-log --home H sql`` see one catalog (one process at a time, as embedded
Derby allows). Runtime switches a session may set itself: :data:`ENABLED`, :data:`ALLOW_NON_ATOMIC`."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ddl_log.cluster.project_jar import jar_for, stale
from ddl_log.errors import ExtensionError
from ddl_log.settings import ENV_PREFIX, Settings

EXTENSION_CLASS = "spark_ddl_log.DdlLogExtension"
PREFIX = "spark.ddlLog."
HOME = PREFIX + "home"
ENABLED = PREFIX + "enabled"
"""``false``: the session runs Spark's own statements (not atomic), as a session without the extension would."""
ALLOW_NON_ATOMIC = PREFIX + "allowNonAtomic"
"""``true``: a DDL form the log cannot make atomic runs as Spark runs it instead of being refused."""
SESSION_SETTINGS = ("metastore_uri", "warehouse", "spark_master")
"""Settings of the Spark session itself (its catalog, its master), not of the engine: they become Spark settings."""
EMBEDDED_CATALOG = ("spark.sql.catalogImplementation", "spark.hadoop.javax.jdo.option.ConnectionURL",
                    "spark.sql.warehouse.dir", "spark.hadoop.hive.exec.scratchdir",
                    "spark.hadoop.hive.exec.local.scratchdir")


def jar_path() -> str:
    """The extension's jar, built by ``make install`` (:class:`ExtensionError` when it is missing or older than its
    sources)."""
    jar = jar_for()
    if stale(jar):
        raise ExtensionError(f"{jar} is missing or older than its Java sources: run `make install` (or "
                             "`python -m ddl_log.frontends.extension.build`) with a JDK on PATH")
    return str(jar)


def extension_settings(*, enabled: bool | None = None) -> dict[str, str]:
    """The settings that load the extension into a Spark being built (``enabled``: the default of every session's
    :data:`ENABLED`; None leaves it on). A JVM that also serves sessions without the log (the test suite's, the
    benchmarks') loads it off, and the sessions that attach turn it on."""
    settings = {"spark.jars": jar_path(), "spark.sql.extensions": EXTENSION_CLASS}
    if enabled is not None:
        settings[ENABLED] = str(enabled).lower()
    return settings


def conf_key(setting: str) -> str:
    """``grace_seconds`` -> ``spark.ddlLog.graceSeconds``."""
    head, *rest = setting.split("_")
    return PREFIX + head + "".join(word.capitalize() for word in rest)


def session_conf(home: str | os.PathLike[str], settings: Settings | None = None,
                 given: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The ``key=value`` Spark settings of a session attached to ``home``. ``settings``: the home's (their
    ``metastore_uri`` and ``warehouse`` make a session on that metastore service; without them, the home's embedded
    metastore and warehouse); ``given``: engine settings to carry (``spark.ddlLog.<name>``), those explicitly set."""
    from storage.records.home import is_database_url

    settings = settings or Settings.from_env()
    location = str(home) if is_database_url(str(home)) else os.path.abspath(home)
    conf = {**extension_settings(), HOME: location}
    if settings.metastore_uri is not None:
        from storage.catalogs.spark.service import service_settings

        conf.update(service_settings(settings.metastore_uri, settings.warehouse))
    elif is_database_url(location):
        raise ExtensionError(f"{location} is a database home: it has no embedded metastore, give --metastore-uri "
                             "(the service its drivers share)")
    else:
        conf.update(embedded_catalog(location))
    for name, value in (given or {}).items():
        if value is not None and name not in SESSION_SETTINGS:
            conf[conf_key(name)] = str(value).lower() if isinstance(value, bool) else str(value)
    return conf


def embedded_catalog(home: str) -> dict[str, str]:
    """The embedded session's catalog settings for ``home``: its Derby metastore, warehouse and Hive scratch space,
    and Derby's own files under it (its logging and UI settings are the embedded session's, not a user's)."""
    from storage.catalogs.spark.session import embedded_settings

    embedded = embedded_settings(Path(home))
    conf = {key: embedded[key] for key in EMBEDDED_CATALOG}
    derby = [option for option in shlex.split(embedded["spark.driver.extraJavaOptions"])
             if option.startswith("-Dderby.")]
    conf["spark.driver.extraJavaOptions"] = " ".join(f"'{option}'" for option in derby)
    return conf


def settings_from_conf(spark: Any, explicit: Mapping[str, Any]) -> Settings:
    """The engine's settings for an attached session: ``explicit`` keywords, over the session's
    ``spark.ddlLog.<name>`` settings, over ``DDL_LOG_<NAME>`` variables, over the defaults."""
    environ = dict(os.environ)
    for field in attrs.fields(Settings):
        if field.name in SESSION_SETTINGS:
            continue
        value = spark.conf.get(conf_key(field.name), None)
        if value is not None and str(value) != "":
            environ[ENV_PREFIX + field.name.upper()] = str(value)
    return Settings.from_env(environ, **{k: v for k, v in explicit.items() if k not in SESSION_SETTINGS})
