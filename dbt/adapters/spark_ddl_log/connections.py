"""dbt-spark's connection manager with the adapter's two handles: ``method: session``, dbt-spark's session wrapper
with its cursor replaced by :class:`DDLLogCursor`; ``method: thrift``, dbt-spark's own PyHive connection (its connect,
polling, retries and error translation) to ``ddl-log thrift-server``, whose driver runs each statement through the
DDL log. Everything else (no transactions, the response) is dbt-spark's."""

from __future__ import annotations

from typing import Any

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import PyhiveConnectionWrapper, SparkConnectionManager, SparkConnectionWrapper

from dbt.adapters.spark_ddl_log.credentials import SparkDDLLogCredentials
from dbt.adapters.spark_ddl_log.cursor import DDLLogCursor, Description, with_comment_inside
from dbt.adapters.spark_ddl_log.seeds import SeedRows


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
            self.current.execute(sql, *[SeedRows.binding(value) for value in bindings])

    def replace_with_rows(self, seed: SeedRows) -> None:
        """See ``Spark_DDL_LogAdapter.spark_ddl_log_replace_seed``: ``seed.create`` with the seed's rows, in one
        statement of the engine (``CreateOrReplaceTable.rows``)."""
        assert self.current is not None, "no cursor"
        self.current.replace_with_rows(seed.create, seed.rows(SeedRows.binding), seed.count)

    @property
    def description(self) -> Description:
        assert self.current is not None, "no cursor"
        return self.current.description


class DDLLogThriftWrapper(SparkConnectionWrapper):
    """dbt-spark's PyHive connection to ``ddl-log thrift-server``: each statement's text as the session method's
    cursor gives it to the DDL log (dbt's query comment moved inside, so the server's binlog says which model made
    each change), and a seed's one statement as SQL text (:meth:`SeedRows.as_select_statement`)."""

    def __init__(self, pyhive: PyhiveConnectionWrapper) -> None:
        self.pyhive = pyhive

    def cursor(self) -> DDLLogThriftWrapper:
        self.pyhive.cursor()
        return self

    def cancel(self) -> None:
        self.pyhive.cancel()

    def close(self) -> None:
        self.pyhive.close()

    def rollback(self, *args: Any, **kwargs: Any) -> None:
        self.pyhive.rollback()

    def fetchall(self) -> list[Any]:
        return self.pyhive.fetchall()

    def execute(self, sql: str, bindings: list[Any] | None = None) -> None:
        self.pyhive.execute(with_comment_inside(sql), bindings)

    def replace_with_rows(self, seed: SeedRows) -> None:
        """The seed as one CREATE OR REPLACE TABLE ... AS SELECT of its typed rows. The server's session keeps a
        VARCHAR or CHAR column's declared type only with ``spark.sql.preserveCharVarcharTypeInfo`` (Spark's CTAS
        makes them STRING otherwise, where the session method's columns form keeps them): set for that statement,
        then put back to the connection's value."""
        if not seed.has_char_types:
            self.execute(seed.as_select_statement(self.binding))
            return
        self.execute(f"SET {PRESERVE_CHAR_TYPES}")
        before = str(self.fetchall()[0][1])
        self.execute(f"SET {PRESERVE_CHAR_TYPES}=true")
        try:
            self.execute(seed.as_select_statement(self.binding))
        finally:
            self.execute(f"SET {PRESERVE_CHAR_TYPES}={before}")

    @property
    def description(self) -> Description:
        return self.pyhive.description

    @staticmethod
    def binding(value: Any) -> str | float:
        """A seed value as dbt-spark's thrift method binds it: its ``_fix_binding``, then PyHive's escaping (an
        empty cell is NULL), so the seed's rows are plain dbt-spark's over the same server."""
        from pyhive import hive  # type: ignore[import-untyped]

        return str(hive._escaper.escape_item(PyhiveConnectionWrapper._fix_binding(value)))


PRESERVE_CHAR_TYPES = "spark.sql.preserveCharVarcharTypeInfo"


class SparkDDLLogConnectionManager(SparkConnectionManager):
    TYPE = "spark_ddl_log"

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        if connection.state == ConnectionState.OPEN:
            return connection
        if connection.credentials.thrift:  # dbt-spark's own thrift connect (its retries, its errors)
            connection = super().open(connection)
            assert isinstance(connection.handle, PyhiveConnectionWrapper)
            connection.handle = DDLLogThriftWrapper(connection.handle)
            return connection
        connection.handle = DDLLogConnectionWrapper(connection.credentials)
        connection.state = ConnectionState.OPEN
        return connection
