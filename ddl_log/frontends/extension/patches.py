"""The PySpark writer calls that Spark 4.0 gives no plan a JVM rule could see, routed in Python on attached
sessions: ``saveAsTable`` in overwrite mode (the JVM writer drops the table, then creates it, before any plan
exists) and ``writeTo(t).create/replace/createOrReplace/append/overwrite/overwritePartitions`` (refused for v1 tables
before any rule runs). Installed once per process by ``ddl_log.attach``; on a session that is not attached (or has
``spark.ddlLog.enabled=false``) each is PySpark's own, unchanged. Every other writer call reaches the JVM, whose
rules route it (:mod:`ddl_log.frontends.extension.writes`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ddl_log.frontends.extension.writes import Write, from_writer, from_writer_v2

V2_CALLS = ("create", "replace", "createOrReplace", "append", "overwrite", "overwritePartitions")
_MARK = "__spark_ddl_log__"


class Route(Protocol):
    """What routing a writer call needs of its attached session (``ddl_log.frontends.extension.attachment``)."""

    def writer_state(self, jwriter: Any) -> dict[str, Any]: ...

    def writer_v2_state(self, jwriter: Any) -> dict[str, Any]: ...

    def name_parts(self, name: str) -> list[str]: ...

    def table_columns(self, parts: Sequence[str], given: Sequence[str]) -> list[str] | None: ...

    def write(self, write: Write, frame: Any) -> bool: ...

    def as_spark(self, call: Callable[[], Any]) -> Any: ...


Lookup = Callable[[Any], Route | None]
_lookup: list[Lookup] = []


def install(lookup: Lookup) -> None:
    """Route the calls above through ``lookup`` (a session -> its :class:`Route`, None when not attached)."""
    _lookup[:] = [lookup]
    from pyspark.sql.readwriter import DataFrameWriter, DataFrameWriterV2

    if getattr(DataFrameWriter.saveAsTable, _MARK, False):
        return
    DataFrameWriter.saveAsTable = _save_as_table(DataFrameWriter.saveAsTable)  # type: ignore[method-assign]
    for name in V2_CALLS:
        setattr(DataFrameWriterV2, name, _writer_v2(name, getattr(DataFrameWriterV2, name)))


def _route(spark: Any) -> Route | None:
    return _lookup[0](spark) if _lookup else None


def _save_as_table(original: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(original)
    def save_as_table(self: Any, name: str, format: str | None = None, mode: str | None = None,
                      partitionBy: str | list[str] | None = None, **options: Any) -> None:  # noqa: N803
        route = _route(self._spark)
        if route is None:
            return original(self, name, format=format, mode=mode, partitionBy=partitionBy, **options)
        self.mode(mode).options(**options)  # the writer set up as PySpark's own saveAsTable sets it up
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        if format is not None:
            self.format(format)
        state = route.writer_state(self._jwrite)
        if state["mode"] != "Overwrite":
            self._jwrite.saveAsTable(name)  # the JVM rules route the other modes
            return None
        if not route.write(from_writer(route.name_parts(name), state), self._df):
            route.as_spark(lambda: self._jwrite.saveAsTable(name))  # left to Spark: its own call, as asked
        return None

    setattr(save_as_table, _MARK, True)
    return save_as_table


def _writer_v2(verb: str, original: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(original)
    def call(self: Any, *args: Any) -> None:
        route = _route(self._spark)
        if route is None or (verb == "overwrite" and not _always_true(args[0])):
            return original(self, *args)
        state = route.writer_v2_state(self._jwriter)
        columns = None
        if verb in ("overwrite", "overwritePartitions"):
            columns = route.table_columns(state["table"], self._df.columns)
            if columns is None:
                return original(self, *args)  # no table to overwrite: Spark says so
        write = from_writer_v2(verb, state, columns)
        if write is None or not route.write(write, self._df):
            return original(self, *args)  # no matching statement, or left to Spark: Spark's own call
        return None

    setattr(call, _MARK, True)
    return call


def _always_true(condition: Any) -> bool:
    """Whether ``writeTo(t).overwrite(condition)`` replaces every row (``lit(True)``): INSERT OVERWRITE."""
    try:
        return str(condition._jc.toString()).strip().upper() == "TRUE"
    except Exception:  # noqa: BLE001 - a Column of another kind: not the literal
        return False
