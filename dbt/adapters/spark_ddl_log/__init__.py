"""dbt adapter ``spark_ddl_log``: dbt-spark's session method with every statement through the DDL log. It inherits
every ``spark__`` macro and materialization of dbt-spark (``dependencies=["spark"]``) and overrides the ones that
drop before they create (``dbt/include/spark_ddl_log/macros``)."""

from dbt.adapters.base.plugin import AdapterPlugin

from dbt.adapters.spark_ddl_log.connections import SparkDDLLogConnectionManager
from dbt.adapters.spark_ddl_log.credentials import SparkDDLLogCredentials
from dbt.adapters.spark_ddl_log.impl import Spark_DDL_LogAdapter
from dbt.include import spark_ddl_log

__all__ = ["Plugin", "SparkDDLLogConnectionManager", "SparkDDLLogCredentials", "Spark_DDL_LogAdapter"]

Plugin = AdapterPlugin(
    adapter=Spark_DDL_LogAdapter,  # type: ignore[arg-type]
    credentials=SparkDDLLogCredentials,
    include_path=spark_ddl_log.PACKAGE_PATH,
    dependencies=["spark"],
)
