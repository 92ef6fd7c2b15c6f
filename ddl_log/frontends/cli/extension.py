"""``ddl-log session-conf``: the Spark settings that attach a session to the home (README "Attached sessions")."""

from __future__ import annotations

import argparse
from typing import Any

import attrs

from ddl_log.frontends.cli.output import EXIT_OK, dumps, home_path, out
from ddl_log.settings import Settings, settings_from_options


def add_session_conf_parser(commands: argparse._SubParsersAction,  # type: ignore[type-arg]
                            common: argparse.ArgumentParser) -> None:
    conf = commands.add_parser(
        "session-conf", parents=[common], help="the Spark settings that attach a session to this home",
        description="Print the key=value Spark settings (one a line) that put the DDL log under a Spark session "
                    "built with them (SparkSession.builder.config, spark-submit --conf, a notebook's config): the "
                    "extension, the home and its settings and, on the embedded default, the home's metastore and "
                    "warehouse. Then call ddl_log.attach(spark) in the PySpark driver. Reads nothing, locks nothing.")
    conf.add_argument("--json", action="store_true", help="one JSON object instead")


def cmd_session_conf(args: argparse.Namespace) -> int:
    from ddl_log.frontends.extension import session_conf

    settings = settings_from_options(args)
    conf = session_conf(home_path(args), settings, carried_settings(settings))
    if args.json:
        out(dumps(conf))
    else:
        for key, value in conf.items():
            out(f"{key}={value}")
    return EXIT_OK


def carried_settings(settings: Settings) -> dict[str, Any]:
    """The settings that differ from the defaults (given as options or ``DDL_LOG_*`` variables): what a session
    built elsewhere must carry (``spark.ddlLog.<name>``)."""
    defaults = Settings()
    return {field.name: getattr(settings, field.name) for field in attrs.fields(Settings)
            if getattr(settings, field.name) != getattr(defaults, field.name)}
