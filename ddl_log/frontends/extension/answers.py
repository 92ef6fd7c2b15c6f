"""What the Python side answers the JVM (one JSON object per call): a statement's result as rows, or its failure as
the Spark error condition the JVM raises with, the project's typed error kept here for :func:`statement_error`."""

from __future__ import annotations

import datetime
import decimal
import itertools
import json
import threading
from collections import OrderedDict
from typing import Any

import attrs

from actions.errors import user_names
from ddl_log.engine.history_statements import HistoryResult, HistoryRow
from ddl_log.frontends.sql import SqlResult
from storage.catalogs.names import quote_ident
from storage.errors import spark_condition

PASS = json.dumps({"pass": True})
DONE = json.dumps({"done": True})
HISTORY_TYPES = {"version": "BIGINT", "size": "BIGINT", "current": "BOOLEAN", "dropped": "BOOLEAN"}
"""The Spark type of each HistoryRow field that is not a string (``periods``: its JSON text)."""
HISTORY_SCHEMA = ", ".join(f"{quote_ident(field.name)} {HISTORY_TYPES.get(field.name, 'STRING')}"
                           for field in attrs.fields(HistoryRow))
"""DESCRIBE HISTORY's and SHOW TABLES DROPPED's columns (:class:`~ddl_log.engine.history_statements.HistoryRow`)."""
SIMPLE_TYPES = ("string", "bigint", "int", "double", "boolean")
KEPT_ERRORS = 256

_errors: OrderedDict[int, BaseException] = OrderedDict()
_error_ids = itertools.count(1)
_errors_lock = threading.Lock()


def token(value: int) -> str:
    return json.dumps({"token": value})


def rows(result: SqlResult) -> str:
    """The rows ``spark.sql`` returns for ``result``: none (and no columns) for DDL, as Spark's own commands; the
    versions for DESCRIBE HISTORY and SHOW TABLES DROPPED; a query's rows for a statement Spark ran."""
    if isinstance(result.result, HistoryResult):
        data = [[_plain(value) for value in attrs.astuple(row)] for row in result.result.rows]
        return json.dumps({"schema": HISTORY_SCHEMA, "rows": data})
    if result.kind != "query" or not getattr(result.result, "columns", None):
        return json.dumps({"schema": "", "rows": []})
    frame = result.result
    fields = frame.schema.fields
    schema = ", ".join(f"{quote_ident(f.name)} {_simple(f.dataType.simpleString())}" for f in fields)
    return json.dumps({"schema": schema, "rows": [[_plain(value) for value in row] for row in frame.collect()]})


def _simple(type_name: str) -> str:
    return type_name if type_name in SIMPLE_TYPES else "string"


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, decimal.Decimal | datetime.date | datetime.datetime):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return str(value)


def failure(error: BaseException) -> str:
    """A failed call: the error's type and message, Spark's condition and parameters when the project has them
    (its typed error's ``condition``, or the Spark error it carries as its cause), and the id of the error kept for
    :func:`statement_error`."""
    condition, parameters = spark_condition(error)
    work_tables = getattr(error, "work_tables", None)
    if work_tables:  # Spark's parameters about the statement's work table: about the user's table
        parameters = {key: user_names(value, work_tables) for key, value in parameters.items()}
    with _errors_lock:
        number = next(_error_ids)
        _errors[number] = error
        while len(_errors) > KEPT_ERRORS:
            _errors.popitem(last=False)
    return json.dumps({"error": {"type": type(error).__name__, "message": str(error) or type(error).__name__,
                                 "condition": condition, "parameters": parameters, "id": number}})


def statement_error(error: BaseException) -> BaseException | None:
    """The project's typed error behind the Spark exception ``spark.sql`` raised for a routed statement (its cause,
    ``spark_ddl_log.StatementError``, names it); None when ``error`` is not one, or this process no longer keeps it
    (the last :data:`KEPT_ERRORS` are kept)."""
    origin = getattr(error, "_origin", None) or getattr(error, "java_exception", None)
    for _ in range(8):
        if origin is None:
            return None
        try:
            if str(origin.getClass().getName()) == "spark_ddl_log.StatementError":
                with _errors_lock:
                    return _errors.get(int(origin.getErrorId()))
            origin = origin.getCause()
        except Exception:  # noqa: BLE001 - a JVM that is gone cannot be asked
            return None
    return None
