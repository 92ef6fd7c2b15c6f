"""How :class:`~ddl_log.api.AtomicDDL` runs a typed statement (:mod:`ddl_log.statements.typed`): one explicit table
from statement type to handler, each handler calling the API method of that statement with the statement's fields
(:class:`StatementMethods`: what the table needs of the API, so that this module does not import it back).

``options``: the optional clauses a handler runs (``CREATE VIEW ... TBLPROPERTIES`` is read, but the DDL log cannot
run it yet); a statement using another one is refused before anything of its script runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import attrs

from ddl_log.statements.alter_ops import AlterOp
from ddl_log.statements.typed import (
    AlterTable,
    AlterView,
    CreateDatabase,
    CreateFunction,
    CreateOrReplaceTable,
    CreateSqlFunction,
    CreateTable,
    CreateView,
    DropDatabase,
    DropFunction,
    DropTables,
    DropViews,
    InsertOverwrite,
    RenameTables,
    RenameView,
    Statement,
    TruncateTable,
)
from storage.catalogs.interface import CreateText


class StatementMethods(Protocol):
    """The :class:`~ddl_log.api.AtomicDDL` methods the statements run through, as the handlers call them."""

    def create_or_replace_table(self, name: str, *, schema: str | None, like: str | None, as_select: str | None,
                                using: str | None, partitioned_by: Iterable[str], properties: dict[str, str] | None,
                                comment: str | None, statement: str | None, must_exist: bool,
                                text: CreateText | None) -> object: ...

    def create_table(self, name: str, *, if_not_exists: bool, schema: str | None, like: str | None,
                     as_select: str | None, using: str | None, partitioned_by: Iterable[str],
                     properties: dict[str, str] | None, comment: str | None, statement: str | None,
                     text: CreateText | None) -> object: ...

    def truncate_table(self, name: str, *, statement: str | None) -> object: ...

    def insert_overwrite(self, name: str, *, as_select: str, partition: dict[str, str | None] | None,
                         if_not_exists: bool, statement: str | None) -> object: ...

    def rename_tables(self, pairs: Iterable[tuple[str, str]], *, statement: str | None) -> object: ...

    def drop_tables(self, names: Iterable[str], *, if_exists: bool, purge: bool, statement: str | None) -> object: ...

    def alter_table(self, name: str, op: AlterOp, *, statement: str | None) -> object: ...

    def create_database(self, name: str, *, if_not_exists: bool, comment: str | None,
                        properties: dict[str, str] | None, statement: str | None) -> object: ...

    def drop_database(self, name: str, *, if_exists: bool, cascade: bool, statement: str | None) -> object: ...

    def create_view(self, name: str, *, as_select: str, or_replace: bool, comment: str | None,
                    columns: Iterable[str], if_not_exists: bool, statement: str | None) -> object: ...

    def alter_view(self, name: str, *, as_select: str, statement: str | None) -> object: ...

    def rename_view(self, old: str, new: str, *, statement: str | None) -> object: ...

    def drop_views(self, names: Iterable[str], *, if_exists: bool, statement: str | None) -> object: ...

    def create_function(self, name: str, *, class_name: str, resources: Iterable[tuple[str, str]],
                        or_replace: bool, if_not_exists: bool, statement: str | None) -> object: ...

    def create_sql_function(self, name: str, *, params: str, returns: str, body: str, or_replace: bool,
                            if_not_exists: bool, statement: str | None) -> object: ...

    def drop_function(self, name: str, *, if_exists: bool, statement: str | None) -> object: ...


@attrs.frozen
class Handler:
    run: Callable[[StatementMethods, Any], object]
    options: frozenset[str] = frozenset()
    """The optional clauses (field names) this handler runs."""


def _create_or_replace_table(ddl: StatementMethods, s: CreateOrReplaceTable[str]) -> object:
    return ddl.create_or_replace_table(s.name, schema=s.schema, like=s.like, as_select=s.as_select, using=s.using,
                                       partitioned_by=s.partitioned_by, properties=s.properties, comment=s.comment,
                                       statement=s.statement, must_exist=s.must_exist, text=s.text)


def _create_table(ddl: StatementMethods, s: CreateTable[str]) -> object:
    return ddl.create_table(s.name, if_not_exists=s.if_not_exists, schema=s.schema, like=s.like,
                            as_select=s.as_select, using=s.using, partitioned_by=s.partitioned_by,
                            properties=s.properties, comment=s.comment, statement=s.statement, text=s.text)


def _insert_overwrite(ddl: StatementMethods, s: InsertOverwrite[str]) -> object:
    return ddl.insert_overwrite(s.name, as_select=s.as_select, partition=s.partition, if_not_exists=s.if_not_exists,
                                statement=s.statement)


def _create_database(ddl: StatementMethods, s: CreateDatabase[str]) -> object:
    return ddl.create_database(s.name, if_not_exists=s.if_not_exists, comment=s.comment, properties=s.properties,
                               statement=s.statement)


def _create_view(ddl: StatementMethods, s: CreateView[str]) -> object:
    return ddl.create_view(s.name, as_select=s.as_select, or_replace=s.or_replace, comment=s.comment,
                           columns=s.columns, if_not_exists=s.if_not_exists, statement=s.statement)


def _create_function(ddl: StatementMethods, s: CreateFunction[str]) -> object:
    return ddl.create_function(s.name, class_name=s.class_name, resources=s.resources, or_replace=s.or_replace,
                               if_not_exists=s.if_not_exists, statement=s.statement)


def _create_sql_function(ddl: StatementMethods, s: CreateSqlFunction[str]) -> object:
    return ddl.create_sql_function(s.name, params=s.params, returns=s.returns, body=s.body, or_replace=s.or_replace,
                                   if_not_exists=s.if_not_exists, statement=s.statement)


def _truncate_table(ddl: StatementMethods, s: TruncateTable[str]) -> object:
    return ddl.truncate_table(s.name, statement=s.statement)


def _rename_tables(ddl: StatementMethods, s: RenameTables[str]) -> object:
    return ddl.rename_tables(s.pairs, statement=s.statement)


def _drop_tables(ddl: StatementMethods, s: DropTables[str]) -> object:
    return ddl.drop_tables(s.names, if_exists=s.if_exists, purge=s.purge, statement=s.statement)


def _alter_table(ddl: StatementMethods, s: AlterTable[str]) -> object:
    return ddl.alter_table(s.name, s.op, statement=s.statement)


def _drop_database(ddl: StatementMethods, s: DropDatabase[str]) -> object:
    return ddl.drop_database(s.name, if_exists=s.if_exists, cascade=s.cascade, statement=s.statement)


def _alter_view(ddl: StatementMethods, s: AlterView[str]) -> object:
    return ddl.alter_view(s.name, as_select=s.as_select, statement=s.statement)


def _rename_view(ddl: StatementMethods, s: RenameView[str]) -> object:
    return ddl.rename_view(s.old, s.new, statement=s.statement)


def _drop_views(ddl: StatementMethods, s: DropViews[str]) -> object:
    return ddl.drop_views(s.names, if_exists=s.if_exists, statement=s.statement)


def _drop_function(ddl: StatementMethods, s: DropFunction[str]) -> object:
    return ddl.drop_function(s.name, if_exists=s.if_exists, statement=s.statement)


HANDLERS: Mapping[type[Statement[Any]], Handler] = {
    CreateOrReplaceTable: Handler(_create_or_replace_table),
    CreateTable: Handler(_create_table),
    TruncateTable: Handler(_truncate_table),
    InsertOverwrite: Handler(_insert_overwrite, frozenset({"partition", "if_not_exists"})),
    RenameTables: Handler(_rename_tables),
    DropTables: Handler(_drop_tables),
    AlterTable: Handler(_alter_table),
    CreateDatabase: Handler(_create_database, frozenset({"comment", "properties"})),
    DropDatabase: Handler(_drop_database),
    CreateView: Handler(_create_view, frozenset({"columns", "if_not_exists"})),
    AlterView: Handler(_alter_view),
    RenameView: Handler(_rename_view),
    DropViews: Handler(_drop_views),
    CreateFunction: Handler(_create_function, frozenset({"if_not_exists"})),
    CreateSqlFunction: Handler(_create_sql_function, frozenset({"if_not_exists"})),
    DropFunction: Handler(_drop_function),
}
"""Every statement type and its handler (a test checks that none is missing)."""
