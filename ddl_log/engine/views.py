"""Views and persistent functions on the DDL log (seed mysql-wl9173): the old definition is kept in the log for
undo; DROP VIEW / DROP FUNCTION check every name first, then roll forward."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.results import NOTHING_DONE, StatementResult
from chains.lock_keys import LockKeys
from ddl_log.engine.lookups import missing_view, named_objects
from ddl_log.engine.tables import table_names
from ddl_log.engine.texts import drop_text, function_text, sql_string, view_text
from ddl_log.engine.typed import Reads, Statement
from replace_table.plans import forward, undo
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName
from storage.catalogs.rules import check_new_name, check_settable_properties
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)


def put_view(ctx: ActionContext, name: TableName, definition: ViewDefinition, *, or_replace: bool, statement: str,
             verb: str) -> StatementResult:
    """CREATE [OR REPLACE] VIEW / ALTER VIEW: the old definition (or none) logged, the new one put in place. One
    lookup of the name serves the checks (the catalog forgets it when the view changes)."""
    with reuse_lookups():
        return _put_view(ctx, name, definition, or_replace=or_replace, statement=statement, verb=verb)


def _put_view(ctx: ActionContext, name: TableName, definition: ViewDefinition, *, or_replace: bool, statement: str,
              verb: str) -> StatementResult:
    if ctx.catalog.names.identity(name) is not None:
        if verb == "ALTER VIEW":
            raise WrongObjectKindError.table_not_view(name, condition="EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE")
        if or_replace:  # Spark: a table does not support CREATE OR REPLACE VIEW
            raise WrongObjectKindError.table_not_view(name, condition="EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE")
        raise ObjectExistsError.relation(f"{name} already exists (a table)", str(name))
    old = ctx.catalog.views.view_definition(name)
    if old is not None and not or_replace:
        raise ObjectExistsError.relation(f"view {name} already exists", str(name))
    event = undo.put_view(ctx, statement, name, old, definition, verb=verb)
    return StatementResult(objects=(str(name),), event=event)


@attrs.frozen(kw_only=True)
class CreateView(Statement):
    """CREATE [OR REPLACE] VIEW [IF NOT EXISTS] (``columns``: explicit column names). With IF NOT EXISTS a view or a
    table holding the name makes it do nothing, as in Spark."""

    label: ClassVar[str] = "CREATE VIEW"
    transactional: ClassVar[bool] = True
    name: TableName
    definition: ViewDefinition
    or_replace: bool = False
    if_not_exists: bool = False

    @classmethod
    def of(cls, name: str | TableName, *, as_select: str, or_replace: bool = False, comment: str | None = None,
           columns: Iterable[str] = (), if_not_exists: bool = False, properties: Mapping[str, str] | None = None,
           text: str | None = None, schema_mode: str | None = None) -> CreateView:
        definition = ViewDefinition(as_select, comment, tuple(columns), tuple(sorted((properties or {}).items())),
                                    schema_mode)
        return cls(name=TableName.of(name), definition=definition, or_replace=or_replace,
                   if_not_exists=if_not_exists, text=text)

    def canonical_text(self) -> str:
        return view_text(self.name, self.definition.query, or_replace=self.or_replace,
                         comment=self.definition.comment, columns=self.definition.columns,
                         properties=self.definition.properties, schema_mode=self.definition.schema_mode)

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def reads(self) -> Reads:
        return Reads.of(query=self.definition.query)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():  # the name read once serves the statement's checks (its change forgets it)
            if self.if_not_exists and (ctx.catalog.views.view_definition(self.name) is not None
                                       or ctx.catalog.names.identity(self.name)):
                return NOTHING_DONE
            check_new_name(self.name, "view")
            return put_view(ctx, self.name, self.definition, or_replace=self.or_replace,
                            statement=self.binlog_text, verb=self.label)


@attrs.frozen(kw_only=True)
class AlterView(Statement):
    """ALTER VIEW v AS <query> (``as_select``), or ALTER VIEW v WITH SCHEMA <mode> (``schema_mode``): the view made
    anew with the rest of its definition, as Spark does; the old definition is logged first, put back by undo."""

    label: ClassVar[str] = "ALTER VIEW"
    transactional: ClassVar[bool] = True
    name: TableName
    as_select: str | None = None
    schema_mode: str | None = None

    @classmethod
    def of(cls, name: str | TableName, *, as_select: str | None = None, schema_mode: str | None = None,
           text: str | None = None) -> AlterView:
        return cls(name=TableName.of(name), as_select=as_select, schema_mode=schema_mode, text=text)

    def canonical_text(self) -> str:
        if self.as_select is None:
            return f"ALTER VIEW {self.name.quoted} WITH SCHEMA {self.schema_mode}"
        return f"ALTER VIEW {self.name.quoted} AS {self.as_select}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def reads(self) -> Reads:
        return Reads.of(query=self.as_select)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():  # the view read once serves the statement's checks (its change forgets it)
            return self._run(ctx)

    def _run(self, ctx: ActionContext) -> StatementResult:
        old = ctx.catalog.views.view_definition(self.name)
        if old is None:
            raise missing_view(ctx.catalog, self.name, condition="EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE")
        if self.as_select is None:  # only the schema mode changes: Spark keeps the query and its stored columns
            mode = self.schema_mode or ""
            new = attrs.evolve(old, schema_mode=mode)
            event = undo.put_view(ctx, self.binlog_text, self.name, old, new, verb=self.label,
                                  change=lambda: ctx.catalog.views.set_view_schema_mode(self.name, mode))
            return StatementResult(objects=(str(self.name),), event=event)
        # Spark's ALTER VIEW AS keeps the comment, the properties and the schema mode
        new = ViewDefinition(self.as_select, old.comment, (), old.properties, old.schema_mode)
        return put_view(ctx, self.name, new, or_replace=True, statement=self.binlog_text, verb=self.label)


@attrs.frozen(kw_only=True)
class AlterViewProperties(Statement):
    """ALTER VIEW v SET TBLPROPERTIES (...) / UNSET TBLPROPERTIES [IF EXISTS] (...): one metastore call, as Spark
    makes it (the view is not re-analysed); the old values are logged first and put back by undo. Keys that are not
    set are ignored by UNSET, as Spark 4 ignores them."""

    label: ClassVar[str] = "ALTER VIEW"
    transactional: ClassVar[bool] = True
    name: TableName
    set: tuple[tuple[str, str], ...] = ()
    unset: tuple[str, ...] = ()
    if_exists: bool = False

    @classmethod
    def of(cls, name: str | TableName, *, set: Mapping[str, str] | None = None, unset: Iterable[str] = (),
           if_exists: bool = False, text: str | None = None) -> AlterViewProperties:
        pairs, keys = tuple((set or {}).items()), tuple(unset)
        if bool(pairs) == bool(keys):
            raise InvalidDefinitionError("give exactly one of set, unset (non-empty)", str(name))
        return cls(name=TableName.of(name), set=pairs, unset=keys, if_exists=if_exists, text=text)

    def canonical_text(self) -> str:
        if self.set:
            listed = ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in self.set)
            return f"ALTER VIEW {self.name.quoted} SET TBLPROPERTIES ({listed})"
        keys = ", ".join(sql_string(k) for k in self.unset)
        return f"ALTER VIEW {self.name.quoted} UNSET TBLPROPERTIES {'IF EXISTS ' if self.if_exists else ''}({keys})"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():  # the view read once serves the statement's checks (its change forgets it)
            return self._run(ctx)

    def _run(self, ctx: ActionContext) -> StatementResult:
        catalog, name = ctx.catalog, self.name
        definition = catalog.views.view_definition(name)
        if definition is None:
            raise missing_view(catalog, name, hint="use ALTER TABLE", condition="EXPECT_VIEW_NOT_TABLE.USE_ALTER_TABLE")
        current = definition.property_map
        check_settable_properties([key for key, _ in self.set] or self.unset, str(name), setting=bool(self.set))
        keys = tuple(key for key, _ in self.set) if self.set else tuple(k for k in self.unset if k in current)
        if not keys:
            return NOTHING_DONE
        old = tuple((key, current.get(key)) for key in keys)
        identity = catalog.views.view_identity(name)

        def change() -> None:
            if self.set:
                catalog.views.set_view_properties(name, dict(self.set))
            else:
                catalog.views.unset_view_properties(name, keys)
        event = undo.change_properties(ctx, self.binlog_text, name, identity, old, change, view=True,
                                       verb=self.label)
        return StatementResult(objects=(str(name),), event=event)


@attrs.frozen(kw_only=True)
class RenameView(Statement):
    label: ClassVar[str] = "ALTER VIEW RENAME"
    transactional: ClassVar[bool] = True
    old: TableName
    new: TableName

    @classmethod
    def of(cls, old: str | TableName, new: str | TableName, *, text: str | None = None) -> RenameView:
        return cls(old=TableName.of(old), new=TableName.of(new), text=text)

    def canonical_text(self) -> str:
        return f"ALTER VIEW {self.old.quoted} RENAME TO {self.new.quoted}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.old, self.new)

    def run(self, ctx: ActionContext) -> StatementResult:
        old, new, catalog = self.old, self.new, ctx.catalog
        check_new_name(new, "view")
        definition = catalog.views.view_definition(old)
        if definition is None:
            raise missing_view(catalog, old, hint="use ALTER TABLE ... RENAME TO",
                               condition="EXPECT_VIEW_NOT_TABLE.USE_ALTER_TABLE")
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: views cannot move between databases", str(new))
        if catalog.views.view_definition(new) is not None or catalog.names.identity(new) is not None:
            raise ObjectExistsError.relation(f"{new} already exists", str(new))
        identity = catalog.views.view_identity(old)  # a rename keeps it: undo moves back only this view
        event = undo.rename_view(ctx, self.binlog_text, old, new, identity=identity, definition=definition,
                                 verb=self.label)
        return StatementResult(objects=(f"{old} -> {new}",), event=event)


@attrs.frozen(kw_only=True)
class DropViews(Statement):
    """DROP VIEW v1, v2: every name is checked first (a missing view without IF EXISTS, or a table, is an error;
    nothing dropped), then rolled forward."""

    label: ClassVar[str] = "DROP VIEW"
    transactional: ClassVar[bool] = True
    names: tuple[TableName, ...] = attrs.field(converter=table_names)
    if_exists: bool = False

    @classmethod
    def of(cls, names: Iterable[str | TableName], *, if_exists: bool = False, text: str | None = None) -> DropViews:
        return cls(names=names, if_exists=if_exists, text=text)

    def canonical_text(self) -> str:
        return drop_text("VIEW", list(self.names), if_exists=self.if_exists)

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(*self.names)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():  # each view read once: its forward action's checks reuse the read (the drop forgets it)
            return self._run(ctx)

    def _run(self, ctx: ActionContext) -> StatementResult:
        targets: list[tuple[TableName, str | None, ViewDefinition]] = []
        for found in named_objects(ctx.catalog, self.names):
            if found.is_table:
                raise WrongObjectKindError.table_not_view(found.name, "use DROP TABLE",
                                                          condition="WRONG_COMMAND_FOR_OBJECT_TYPE")
            if found.view is not None:
                targets.append((found.name, found.view_identity, found.view))
            elif not self.if_exists:
                raise NoSuchObjectError.relation(f"view {found.name} does not exist", str(found.name))
        if not targets:
            return NOTHING_DONE
        objects = tuple(str(name) for name, _, _ in targets)
        event = forward.drop_views(ctx, self.binlog_text, targets, verb=self.label)
        return StatementResult(objects=objects, event=event, detail="done: " + ", ".join(objects))


@attrs.frozen(kw_only=True)
class CreateFunction(Statement):
    """CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS], a class with resources (``AS 'class' USING JAR ...``) or a SQL
    function (``f(params) RETURNS type RETURN body``, :meth:`sql`). With IF NOT EXISTS an existing function of that
    name makes it do nothing, as in Spark."""

    label: ClassVar[str] = "CREATE FUNCTION"
    name: TableName
    definition: FunctionDefinition
    or_replace: bool = False
    if_not_exists: bool = False

    @classmethod
    def of(cls, name: str | TableName, *, class_name: str, resources: Iterable[tuple[str, str]] = (),
           or_replace: bool = False, if_not_exists: bool = False, text: str | None = None) -> CreateFunction:
        definition = FunctionDefinition(class_name=class_name, resources=tuple((k.lower(), u) for k, u in resources))
        return cls(name=TableName.of(name), definition=definition, or_replace=or_replace,
                   if_not_exists=if_not_exists, text=text)

    @classmethod
    def sql(cls, name: str | TableName, *, params: str, returns: str, body: str, or_replace: bool = False,
            if_not_exists: bool = False, text: str | None = None) -> CreateFunction:
        return cls(name=TableName.of(name), definition=FunctionDefinition(params=params, returns=returns, body=body),
                   or_replace=or_replace, if_not_exists=if_not_exists, text=text)

    def canonical_text(self) -> str:
        d = self.definition
        if d.is_sql:
            head = "CREATE OR REPLACE FUNCTION" if self.or_replace else "CREATE FUNCTION"
            return f"{head} {self.name.quoted}({d.params}) RETURNS {d.returns} RETURN {d.body}"
        return function_text(self.name, d.class_name or "", d.resources, or_replace=self.or_replace)

    def lock_keys(self) -> LockKeys:
        return LockKeys.functions(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        name, definition = self.name, self.definition
        check_new_name(name, "function")
        old = ctx.catalog.functions.function_definition(name)
        if old is not None and self.if_not_exists:
            return NOTHING_DONE
        if old is not None and not self.or_replace:
            raise ObjectExistsError.function(f"function {name} already exists", str(name))
        if old is not None and definition.is_sql and not old.is_sql:
            raise InvalidDefinitionError(
                f"cannot replace the function {name}, which is not a SQL function, with a SQL function: drop it first",
                str(name), condition="USER_DEFINED_FUNCTIONS.CANNOT_REPLACE_NON_SQL_UDF_WITH_SQL_UDF")
        event = undo.create_function(ctx, self.binlog_text, name, old, definition, verb=self.label)
        return StatementResult(objects=(str(name),), event=event)


@attrs.frozen(kw_only=True)
class DropFunction(Statement):
    label: ClassVar[str] = "DROP FUNCTION"
    name: TableName
    if_exists: bool = False

    @classmethod
    def of(cls, name: str | TableName, *, if_exists: bool = False, text: str | None = None) -> DropFunction:
        return cls(name=TableName.of(name), if_exists=if_exists, text=text)

    def canonical_text(self) -> str:
        return drop_text("FUNCTION", [self.name], if_exists=self.if_exists)

    def lock_keys(self) -> LockKeys:
        return LockKeys.functions(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        definition = ctx.catalog.functions.function_definition(self.name)
        if definition is None:
            if self.if_exists:
                return NOTHING_DONE
            raise ctx.catalog.functions.no_such_function(self.name)
        event = forward.drop_function(ctx, self.binlog_text, self.name, definition, verb=self.label)
        return StatementResult(objects=(str(self.name),), event=event)
