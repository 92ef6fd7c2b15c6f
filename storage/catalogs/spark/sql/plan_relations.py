"""The tables and views a query or a DataFrame reads (:meth:`SparkTables.relations_read`): what a DDL transaction
checks so that none of its statements reads an object the transaction changed but has not published yet.

A query is read by sqlglot's Spark parser (no analysis, so a table the transaction creates, which does not exist yet,
is found as well; pure Python, about a millisecond, where Spark's own parser walked through Py4J costs a round trip
per field of its plan), and by Spark's own parser through the session where sqlglot cannot read it
(:mod:`storage.catalogs.spark.sql.parsed_references`). A DataFrame is analysed already: its plan is walked through
Py4J for the nodes that name a catalog object (``View``, ``LogicalRelation`` with a catalog table,
``HiveTableRelation``), a few round trips a node."""

from __future__ import annotations

from typing import Any

from storage.catalogs.name_references import session_relations, sqlglot_relations
from storage.catalogs.names import DEFAULT_DATABASE, TableName
from storage.catalogs.spark.engine import DATAFRAME_ERRORS
from storage.catalogs.spark.profile import analysed_plan, is_classic
from storage.catalogs.spark.sql.parsed_references import spark_references

_NAMED_NODES = {"View": "desc", "HiveTableRelation": "tableMeta", "LogicalRelation": "catalogTable"}
"""Plan nodes that name a catalog object, and the field holding its ``CatalogTable`` (an ``Option`` for
``LogicalRelation``: a relation over bare files names none)."""
_MOST_NODES = 2000
"""A plan walked no further (a generated plan of that size reads more than any transaction check needs to know)."""


def query_relations(spark: Any, text: str, default_db: str) -> list[TableName]:
    """The session catalog's relations ``text`` names (unqualified ones in ``default_db``); none when it does not
    parse (the statement's own check reports Spark's parse error)."""
    found = sqlglot_relations(text, default_db)
    if found is not None:
        return found
    if not is_classic(spark):
        return []
    try:
        return session_relations(spark_references(spark, text), default_db)
    except DATAFRAME_ERRORS:
        return []


def frame_relations(frame: Any) -> list[TableName]:
    """The catalog tables and views of ``frame``'s analysed plan (none for a Spark Connect DataFrame)."""
    try:
        plan = analysed_plan(frame)
    except DATAFRAME_ERRORS:
        return []
    found: list[TableName] = []
    pending = [] if plan is None else [plan]
    walked = 0
    while pending and walked < _MOST_NODES:
        node = pending.pop()
        walked += 1
        table = _catalog_table(node)
        if table is not None:
            identifier = table.identifier()
            database = identifier.database()
            found.append(TableName(str(database.get()) if database.isDefined() else DEFAULT_DATABASE,
                                   str(identifier.table())))
        children = node.children().iterator()
        while children.hasNext():
            pending.append(children.next())
    return found


def _catalog_table(node: Any) -> Any | None:
    field = _NAMED_NODES.get(str(node.getClass().getSimpleName()))
    if field is None:
        return None
    value = getattr(node, field)()
    if field == "catalogTable":
        return value.get() if value.isDefined() else None
    return value
