"""A Spark driver on a metastore service (the settings of the embedded session, with the service's catalog)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.servers.metastore import settings_for


def service_session(uri: str, warehouse: Path | str, home: Path) -> Any:
    """This process's Spark session, on the service at ``uri``; logs and scratch space under ``home``."""
    from pyspark.sql import SparkSession

    from storage.catalogs.spark.session import APP_NAME, embedded_settings, quiet_pyspark_error_loggers

    settings = embedded_settings(home)
    settings.pop("spark.hadoop.javax.jdo.option.ConnectionURL")
    settings.update(settings_for(uri, warehouse))
    builder = SparkSession.builder.master("local[2]").appName(APP_NAME)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    quiet_pyspark_error_loggers()
    return spark
