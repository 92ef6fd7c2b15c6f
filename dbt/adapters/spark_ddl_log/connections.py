"""dbt-spark's connection manager with the session method's cursor replaced by :class:`DDLLogCursor`: everything
else (error translation, no transactions, the response) is dbt-spark's."""

from __future__ import annotations

from typing import Any

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import SparkConnectionManager, SparkConnectionWrapper

from dbt.adapters.spark_ddl_log.credentials import SparkDDLLogCredentials
from dbt.adapters.spark_ddl_log.cursor import DDLLogCursor, Description


class DDLLogConnectionWrapper(SparkConnectionWrapper):
    """What dbt-spark calls a connection handle: one cursor at a time, statements through the DDL log."""

    def __init__(self, credentials: SparkDDLLogCredentials) -> None:
        self.credentials = credentials
        self.current: DDLLogCursor | None = None

    def cursor(self) -> DDLLogConnectionWrapper:
        c = self.credentials
        self.current = DDLLogCursor(c.server_side_parameters, c.ddl_log_home, c.settings(), own_session=c.own_session)
        return self

    def cancel(self) -> None:
        """Spark statements of the session method cannot be cancelled from here (as in dbt-spark)."""

    def close(self) -> None:
        if self.current is not None:
            self.current.close()

    def rollback(self, *args: Any, **kwargs: Any) -> None:
        """No transactions: each DDL statement is atomic on its own."""

    def fetchall(self) -> list[Any]:
        assert self.current is not None, "no cursor"
        return self.current.fetchall()

    def execute(self, sql: str, bindings: list[Any] | None = None) -> None:
        assert self.current is not None, "no cursor"
        if bindings is None:
            self.current.execute(sql)
        else:
            self.current.execute(sql, *[self._binding(value) for value in bindings])

    def replace_with_rows(self, create: str, names: list[str], quoted: list[str], partition_by: Any,
                          batches: list[list[Any]]) -> None:
        """See ``Spark_DDL_LogAdapter.spark_ddl_log_replace_seed``: the rows' SELECT built here, bound as
        :meth:`execute` binds, then one statement."""
        assert self.current is not None, "no cursor"
        selects = [f"SELECT * FROM VALUES {values}" % tuple(self._binding(value) for value in bindings)
                   for values, bindings in batches]
        rows = None
        if selects:
            last = {str(column).lower() for column in _listed(partition_by)}
            order = [q for n, q in zip(names, quoted, strict=True) if n.lower() not in last]
            order += [q for column in _listed(partition_by) for n, q in zip(names, quoted, strict=True)
                      if n.lower() == str(column).lower()]
            rows = (f"SELECT {', '.join(order)} FROM ({' UNION ALL '.join(selects)}) "
                    f"AS `spark_ddl_log_seed_rows`({', '.join(quoted)})")
        count = sum(len(bindings) for _, bindings in batches) // max(len(names), 1)
        self.current.replace_with_rows(create, rows, count)

    @property
    def description(self) -> Description:
        assert self.current is not None, "no cursor"
        return self.current.description

    @staticmethod
    def _binding(value: Any) -> str | float:
        """As dbt-spark's session method binds seed values: numbers as floats, the rest as SQL strings."""
        import datetime as dt
        from decimal import Decimal

        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, dt.datetime):
            return f"'{value.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]}'"
        return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _listed(columns: Any) -> list[Any]:
    """dbt's ``partition_by``: none, one column, or a list."""
    if columns is None:
        return []
    return [columns] if isinstance(columns, str) else list(columns)


class SparkDDLLogConnectionManager(SparkConnectionManager):
    TYPE = "spark_ddl_log"

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        if connection.state == ConnectionState.OPEN:
            return connection
        connection.handle = DDLLogConnectionWrapper(connection.credentials)
        connection.state = ConnectionState.OPEN
        return connection
