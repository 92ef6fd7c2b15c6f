"""INSERT INTO checked before anything is logged: Spark's parser and analyzer on the statement against the table
itself, nothing run (:func:`~storage.catalogs.spark.sql.analysis.analysis_failure`), so that what Spark refuses (too
many or too few columns, a column or source that does not exist, a partition spec that does not fit) is refused
with Spark's reason before the statement logs its chain or makes its work table."""

from __future__ import annotations

from typing import Any

import attrs

from storage.catalogs.interface import Fill
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.engine import select_sql
from storage.catalogs.spark.sql.analysis import CheckedStatement, analysis
from storage.catalogs.spark.sql.partition_keep import insert_error, partition_clause


def insert_statement(name: TableName, fill: Fill, view: str | None = None) -> str | None:
    """The ``INSERT INTO`` text of ``fill`` into ``name``: the user's text, the SELECT, or a DataFrame's rows read
    through the temporary view ``view``; None for a replica's files or a DataFrame without its view."""
    if fill.insert_text is not None:
        source = fill.insert_text
    elif fill.df is not None and view is not None:
        source = f"{partition_clause(fill)} {fill.column_clause} SELECT * FROM {quote_ident(view)}"
    elif fill.as_select is not None and fill.df is None:
        source = f"{partition_clause(fill)} {fill.column_clause} {select_sql(fill.as_select, name)}"
    else:
        return None
    return f"INSERT INTO {name.quoted} {source}"


def check_insert(spark: Any, name: TableName, fill: Fill) -> CheckedStatement | None:
    """Raise what ``INSERT INTO name`` with ``fill`` would raise when Spark analyses it; no side effect. A
    DataFrame's rows and a replica's files are checked when they are written. The accepted statement with its
    analysed plan (None on Spark Connect, or with nothing to check)."""
    statement = insert_statement(name, fill)
    if statement is None:
        return None
    analysed = analysis(spark, statement)
    if analysed.failure is not None:
        raise insert_error(name, attrs.evolve(analysed.failure, analysis=True)) from None
    return None if analysed.plan is None else CheckedStatement(statement, analysed.plan)
