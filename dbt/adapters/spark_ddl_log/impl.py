"""The adapter: dbt-spark's, with its connection manager (statements through the DDL log) and its type."""

from __future__ import annotations

from typing import Any

from dbt.adapters.base.meta import available
from dbt.adapters.contracts.connection import AdapterResponse
from dbt.adapters.spark.impl import SparkAdapter
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.spark_ddl_log.connections import (
    DDLLogConnectionWrapper,
    DDLLogThriftWrapper,
    SparkDDLLogConnectionManager,
)
from dbt.adapters.spark_ddl_log.seeds import SeedRows

PYTHON_MODELS = (
    "spark_ddl_log does not run Python models ({model}): dbt-spark's session method has no way to run them either "
    "(SparkAdapter.python_submission_helpers offers only job_cluster and all_purpose_cluster, which send the model "
    "to a Databricks cluster through its REST API, where its saveAsTable runs outside the DDL log); materialize "
    "the model as SQL")


class Spark_DDL_LogAdapter(SparkAdapter):  # noqa: N801 - dbt reads the adapter's module from the class name
    """dbt-core finds ``dbt.adapters.<name>.__version__`` by the class name before ``Adapter``, lowercased, so the
    class is named after the module."""

    ConnectionManager = SparkDDLLogConnectionManager

    @classmethod
    def type(cls) -> str:
        return "spark_ddl_log"

    @available
    def spark_ddl_log_replace_seed(self, create: str, relation: str, clauses: str, names: list[str],
                                   quoted: list[str], types: list[str], partition_by: Any,
                                   batches: list[list[Any]]) -> None:
        """The seed materialization's one statement (:class:`SeedRows`): ``create`` (CREATE OR REPLACE TABLE
        ``relation`` with the seed's columns, then ``clauses``) filled with the rows of ``batches``; on the session
        method through the engine, on the thrift method as one CREATE OR REPLACE TABLE ... AS SELECT."""
        connection = self.connections.get_thread_connection()
        seed = SeedRows(create, relation, clauses, names, quoted, types, partition_by, batches)
        with self.connections.exception_handler(create):
            handle = connection.handle
            assert isinstance(handle, DDLLogConnectionWrapper | DDLLogThriftWrapper)
            handle.cursor().replace_with_rows(seed)

    @available.parse_none
    def submit_python_job(self, parsed_model: dict, compiled_code: str) -> AdapterResponse:  # type: ignore[type-arg]
        """Refused before anything runs: see :data:`PYTHON_MODELS` (README "dbt")."""
        raise DbtRuntimeError(PYTHON_MODELS.format(model=parsed_model.get("unique_id", "a Python model")))
