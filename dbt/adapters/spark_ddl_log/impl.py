"""The adapter: dbt-spark's, with its connection manager (statements through the DDL log) and its type."""

from __future__ import annotations

from dbt.adapters.spark.impl import SparkAdapter

from dbt.adapters.spark_ddl_log.connections import SparkDDLLogConnectionManager


class Spark_DDL_LogAdapter(SparkAdapter):  # noqa: N801 - dbt reads the adapter's module from the class name
    """dbt-core finds ``dbt.adapters.<name>.__version__`` by the class name before ``Adapter``, lowercased, so the
    class is named after the module."""

    ConnectionManager = SparkDDLLogConnectionManager

    @classmethod
    def type(cls) -> str:
        return "spark_ddl_log"
