"""The cursor of a ``spark_ddl_log`` connection: every statement dbt sends goes to :meth:`ddl_log.AtomicDDL.sql` on
the session dbt-spark's own session cursor would use, so DDL and ``INSERT INTO`` run through the DDL log (logged,
atomic, binlogged) and everything else (queries, ``SET``, temporary views) reaches ``spark.sql`` unchanged.

dbt puts its query comment (``/* {"app": "dbt", ..., "node_id": "model.p.m"} */``) before the statement, where a
script's reader drops it as the space between statements; it is moved after the first word, with the invocation id,
so the binlog event's text says which model of which ``dbt run`` made each change (``ddl-log binlog``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs
from dbt.adapters.events.logging import AdapterLogger
from dbt_common.exceptions import DbtRuntimeError
from dbt_common.invocation import get_invocation_id
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, Row, SparkSession

from dbt.adapters.spark_ddl_log.homes import engine_for
from ddl_log import AtomicDDL, DDLLogError
from ddl_log.engine.create_statements import CreateOrReplaceTable
from ddl_log.engine.release_name import hold_message

logger = AdapterLogger("spark_ddl_log")

_LEADING_COMMENTS = re.compile(r"\A\s*((?:/\*.*?\*/\s*)+)", re.DOTALL)
_TRAILING_COMMENTS = re.compile(r"((?:\s*/\*.*?\*/)+)\s*\Z", re.DOTALL)
_FIRST_WORD = re.compile(r"\A\s*(CREATE|REPLACE|DROP|ALTER|TRUNCATE|INSERT|RENAME)\b", re.IGNORECASE)
"""The statements the DDL log may run (and binlog); others keep their comment where dbt put it (``SET`` reads
everything after its key as the value)."""

_READ_ONLY = re.compile(r"\A\s*(?:/\*.*?\*/\s*)*(SELECT|SHOW|DESCRIBE|DESC|EXPLAIN|SET|USE)\b",
                        re.IGNORECASE | re.DOTALL)
"""Statements that change no catalog object: dbt's many metadata queries go to ``spark.sql`` directly, without the
SQL front end's parse and name checks (``WITH`` is not among them: ``WITH ... INSERT OVERWRITE`` is refused there)."""

Description = Sequence[tuple[str, Any, int | None, int | None, int | None, int | None, bool]]


def with_comment_inside(sql: str) -> str:
    """``sql`` with its leading (or, with ``query-comment: append``, trailing) comments moved after its first word,
    and the dbt invocation id added, when it is a statement the DDL log may binlog: Spark reads comments as space,
    the binlog keeps them."""
    text = sql.strip().rstrip(";").rstrip()
    match = _LEADING_COMMENTS.match(text)
    if match is not None:
        comments, body = match.group(1).strip(), text[match.end():]
    else:
        tail = _TRAILING_COMMENTS.search(text)
        if tail is None:
            return text
        comments, body = tail.group(1).strip(), text[:tail.start()]
    word = _FIRST_WORD.match(body)
    if word is None:
        return text
    comments += f" /* dbt_invocation_id: {get_invocation_id()} */"
    return f"{body[:word.end()]} {comments}{body[word.end():]}"


def warn_holds(result: object, home: str) -> None:
    """A model's replace (or drop) left its table's previous files at ``<schema>/<name>``, where plain dbt-spark
    would create the table (README "dbt", "Going back to plain dbt-spark"): say until when and what frees it."""
    for hold in getattr(result, "holds", ()):
        logger.warning(f"spark_ddl_log: {hold_message(hold, home)}, or before switching: dbt run-operation "
                       f"spark_ddl_log_release --args '{{relation: {hold.name}}}'")


def session(server_side_parameters: dict[str, str]) -> Any:
    """The session dbt-spark's session cursor uses (built the same way, so both name the same one)."""
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in server_side_parameters.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


class DDLLogCursor:
    """A DB-API-shaped cursor (what dbt-spark's session connection wraps) that runs through the DDL log."""

    def __init__(self, server_side_parameters: dict[str, str], home: str, settings: dict[str, Any], *,
                 own_session: bool = False) -> None:
        self.server_side_parameters = server_side_parameters
        self.own_session = own_session
        self.home = home
        self.settings = settings
        self.frame: DataFrame | None = None
        self.rows: list[Row] | None = None

    def _engine(self) -> AtomicDDL:
        if self.own_session:
            engine = engine_for(None, self.home, self.settings)
            for key, value in self.server_side_parameters.items():
                engine.spark.conf.set(key, value)
            return engine
        return engine_for(session(self.server_side_parameters), self.home, self.settings)

    def execute(self, sql: str, *parameters: Any) -> None:
        if parameters:
            sql = sql % parameters
        self.frame, self.rows = None, None
        engine = self._engine()
        try:
            if _READ_ONLY.match(sql):
                self.frame = engine.spark.sql(sql.strip().rstrip(";"))
                return
            results = engine.sql(with_comment_inside(sql))
        except (PySparkException, DDLLogError) as error:  # as dbt-spark's session cursor reports Spark's errors
            raise DbtRuntimeError(str(error)) from error
        for result in results:
            warn_holds(result.result, engine.home.location)
        if results and results[-1].kind == "query":
            self.frame = results[-1].result

    def replace_with_rows(self, create: str, rows: str | None, count: int) -> None:
        """``create`` (one CREATE OR REPLACE TABLE with columns) run with ``rows`` (a SELECT; None: no rows) as the
        new version's rows, in one statement of the DDL log (``CreateOrReplaceTable.rows``)."""
        self.frame, self.rows = None, None
        engine = self._engine()
        try:
            statements = engine.statements_of(with_comment_inside(create))
            statement = statements[0] if len(statements) == 1 else None
            if not isinstance(statement, CreateOrReplaceTable):
                raise DbtRuntimeError(f"spark_ddl_log: not one CREATE OR REPLACE TABLE: {create}")
            text = f"{statement.binlog_text} /* spark_ddl_log: and {count} rows */"
            result = engine.execute(attrs.evolve(statement, rows=rows, text=text))
        except (PySparkException, DDLLogError) as error:
            raise DbtRuntimeError(str(error)) from error
        warn_holds(result, engine.home.location)

    def fetchall(self) -> list[Row]:
        """The rows of a query; none for a statement the DDL log ran (as an empty result of dbt-spark's)."""
        if self.rows is None:
            self.rows = self.frame.collect() if self.frame is not None else []
        return self.rows

    def fetchone(self) -> Row | None:
        if self.rows is None and self.frame is not None:
            self.rows = self.frame.take(1)
        return self.rows.pop(0) if self.rows else None

    @property
    def description(self) -> Description:
        if self.frame is None:
            return []
        return [(field.name, field.dataType.simpleString(), None, None, None, None, field.nullable)
                for field in self.frame.schema.fields]

    def close(self) -> None:
        self.frame, self.rows = None, None
