"""Statements as typed values: what the SQL router reads (:mod:`ddl_log.sql.router`) and
:meth:`AtomicDDL.execute <ddl_log.api.AtomicDDL.execute>` runs by type (:mod:`ddl_log.dispatch`).

Each is generic in how it names objects: the router builds them with the names as written (``Statement[Name]``),
resolved as Spark would just before they run into backquoted text (``Statement[str]``). ``statement`` is the original
SQL text (what the binlog records); ``method`` the :class:`AtomicDDL` method that runs the statement, for messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Generic, TypeVar

import attrs

from ddl_log.statements.alter_ops import AlterOp
from storage.catalogs.interface import CreateText

N = TypeVar("N")


def _strings(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(items)


def _resources(items: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((kind, uri) for kind, uri in items)


def _items(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


@attrs.frozen(kw_only=True)
class Statement(Generic[N]):
    """One DDL statement the DDL log runs atomically."""

    method: ClassVar[str] = ""
    statement: str | None = None


@attrs.frozen(kw_only=True)
class TableDefinition(Statement[N]):
    """What CREATE TABLE and CREATE OR REPLACE TABLE share: the new table (a column list, LIKE or AS SELECT)."""

    name: N
    schema: str | None = None
    like: N | None = None
    as_select: str | None = None
    using: str | None = None
    partitioned_by: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    properties: dict[str, str] | None = None
    comment: str | None = None
    text: CreateText | None = None
    """The statement as written: what Spark runs (the fields above describe it for checks and other engines)."""


@attrs.frozen(kw_only=True)
class CreateOrReplaceTable(TableDefinition[N]):
    method: ClassVar[str] = "create_or_replace_table"
    must_exist: bool = False
    """``REPLACE TABLE`` (without ``CREATE OR``): the table must exist, as Spark requires."""


@attrs.frozen(kw_only=True)
class CreateTable(TableDefinition[N]):
    method: ClassVar[str] = "create_table"
    if_not_exists: bool = False


@attrs.frozen(kw_only=True)
class TruncateTable(Statement[N]):
    method: ClassVar[str] = "truncate_table"
    name: N


@attrs.frozen(kw_only=True)
class InsertOverwrite(Statement[N]):
    method: ClassVar[str] = "insert_overwrite"
    name: N
    as_select: str
    partition: dict[str, str | None] | None = None
    if_not_exists: bool = False


@attrs.frozen(kw_only=True)
class RenameTables(Statement[N]):
    method: ClassVar[str] = "rename_tables"
    pairs: tuple[tuple[N, N], ...] = attrs.field(converter=_items)


@attrs.frozen(kw_only=True)
class DropTables(Statement[N]):
    method: ClassVar[str] = "drop_tables"
    names: tuple[N, ...] = attrs.field(converter=_items)
    if_exists: bool = False
    purge: bool = False


@attrs.frozen(kw_only=True)
class AlterTable(Statement[N]):
    method: ClassVar[str] = "alter_table"
    name: N
    op: AlterOp


@attrs.frozen(kw_only=True)
class CreateDatabase(Statement[N]):
    method: ClassVar[str] = "create_database"
    name: N
    if_not_exists: bool = False
    comment: str | None = None
    properties: dict[str, str] | None = None


@attrs.frozen(kw_only=True)
class DropDatabase(Statement[N]):
    method: ClassVar[str] = "drop_database"
    name: N
    if_exists: bool = False
    cascade: bool = False


@attrs.frozen(kw_only=True)
class CreateView(Statement[N]):
    method: ClassVar[str] = "create_view"
    name: N
    as_select: str
    or_replace: bool = False
    comment: str | None = None
    columns: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    if_not_exists: bool = False
    properties: dict[str, str] | None = None


@attrs.frozen(kw_only=True)
class AlterView(Statement[N]):
    method: ClassVar[str] = "alter_view"
    name: N
    as_select: str


@attrs.frozen(kw_only=True)
class RenameView(Statement[N]):
    method: ClassVar[str] = "rename_view"
    old: N
    new: N


@attrs.frozen(kw_only=True)
class DropViews(Statement[N]):
    method: ClassVar[str] = "drop_views"
    names: tuple[N, ...] = attrs.field(converter=_items)
    if_exists: bool = False


@attrs.frozen(kw_only=True)
class CreateFunction(Statement[N]):
    """CREATE FUNCTION ... AS 'class' [USING JAR ..., FILE ...]."""

    method: ClassVar[str] = "create_function"
    name: N
    class_name: str
    resources: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_resources)
    or_replace: bool = False
    if_not_exists: bool = False


@attrs.frozen(kw_only=True)
class CreateSqlFunction(Statement[N]):
    """CREATE FUNCTION f(params) RETURNS type RETURN body."""

    method: ClassVar[str] = "create_sql_function"
    name: N
    params: str
    returns: str
    body: str
    or_replace: bool = False
    if_not_exists: bool = False


@attrs.frozen(kw_only=True)
class DropFunction(Statement[N]):
    method: ClassVar[str] = "drop_function"
    name: N
    if_exists: bool = False
