"""RENAME TABLE (all or none, undone in reverse order), DROP TABLE (checked first, then rolled forward), CREATE
DATABASE and DROP DATABASE (every object, or nothing before the log write), on the DDL log. Seeds: mysql-wl7743 F-1,
F-3; MariaDB's DROP_INIT / DROP_TABLE / DROP_DB actions."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from functools import partial
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.deletions import pending_deletions
from actions.results import NOTHING_DONE, StatementResult
from chains.lock_keys import LockKeys
from ddl_log.engine.lookups import missing_table, named_objects
from ddl_log.engine.release_name import other_homes_note
from ddl_log.engine.texts import drop_database_text, drop_text, rename_tables_text
from ddl_log.engine.typed import Statement
from ddl_log.errors import kept_elsewhere
from replace_table.plans import forward, undo
from storage.catalogs.interface import TAG_PROPERTY, ViewDefinition, new_database_tag
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import RESERVED_PREFIX, TableName, check_identifier, quote_ident
from storage.catalogs.rules import check_database_name_length, check_name, check_new_name
from storage.errors import (
    CatalogError,
    InvalidNameError,
    LeftoverFilesError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)


def _table_name(name: str | TableName) -> TableName:
    return TableName.of(name)


def _pairs(pairs: Iterable[tuple[str | TableName, str | TableName]]) -> tuple[tuple[TableName, TableName], ...]:
    return tuple((TableName.of(old), TableName.of(new)) for old, new in pairs)


@attrs.frozen(kw_only=True)
class RenameTables(Statement):
    """RENAME TABLE a TO b, c TO d: all or none; on failure or crash the renames are undone in reverse order."""

    label: ClassVar[str] = "RENAME TABLE"
    transactional: ClassVar[bool] = True
    pairs: tuple[tuple[TableName, TableName], ...] = attrs.field(converter=_pairs)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str | TableName, str | TableName]], *, text: str | None = None) -> RenameTables:
        return cls(pairs=pairs, text=text)

    def canonical_text(self) -> str:
        return rename_tables_text(list(self.pairs))

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(*(name for pair in self.pairs for name in pair))

    def run(self, ctx: ActionContext) -> StatementResult:
        if not self.pairs:
            raise InvalidNameError("RENAME TABLE needs at least one pair", "")
        for _, new in self.pairs:
            check_new_name(new)
        with reuse_lookups():  # a target found free is not looked up again as a view
            plan = plan_renames(ctx, list(self.pairs))
            event = undo.rename_tables(ctx, self.binlog_text, plan, verb=self.label,
                                       rename=partial(rename_table, ctx))
        return StatementResult(objects=tuple(f"{old} -> {new}" for old, new, _ in plan), event=event)


@attrs.frozen(kw_only=True)
class SwapTables(Statement):
    """ALTER TABLE a SWAP WITH b (Snowflake's form): the two tables exchange names in one statement, three renames
    through a reserved work name (a to it, b to a, it to b), all or none, as one RENAME TABLE; each name is never
    missing for longer than one metastore call. Both tables must be in one database (the metastore moves no table
    between databases)."""

    label: ClassVar[str] = "ALTER TABLE SWAP WITH"
    transactional: ClassVar[bool] = True
    first: TableName = attrs.field(converter=_table_name)
    second: TableName = attrs.field(converter=_table_name)

    @classmethod
    def of(cls, first: str | TableName, second: str | TableName, *, text: str | None = None) -> SwapTables:
        return cls(first=first, second=second, text=text)

    def canonical_text(self) -> str:
        return f"ALTER TABLE {self.first.quoted} SWAP WITH {self.second.quoted}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.first, self.second)

    def run(self, ctx: ActionContext) -> StatementResult:
        first, second = self.first, self.second
        if first == second:
            raise InvalidNameError(f"cannot swap {first} with itself", str(first))
        if first.db != second.db:
            raise CatalogError(f"cannot swap {first} with {second}: tables cannot move between databases",
                               str(second))
        aside = first.sibling(f"{RESERVED_PREFIX}swap_{secrets.token_hex(4)}")
        with reuse_lookups():
            plan = plan_renames(ctx, [(first, aside), (second, first), (aside, second)])
            event = undo.rename_tables(ctx, self.binlog_text, plan, verb=self.label,
                                       rename=partial(rename_table, ctx))
        return StatementResult(objects=(str(first), str(second)), event=event, detail=f"{first} <-> {second}")


def plan_renames(ctx: ActionContext,
                 pairs: list[tuple[TableName, TableName]]) -> list[tuple[TableName, TableName, str]]:
    """Check every rename against the state the earlier ones leave (so swaps through a third name work), before
    anything is logged. Returns (old, new, identity of the moved table)."""
    identities: dict[TableName, str | None] = {}

    def identity(name: TableName) -> str | None:
        if name not in identities:
            identities[name] = ctx.catalog.names.identity(name)
        return identities[name]

    plan = []
    for old, new in pairs:  # in the order Spark checks: the table, the database of the new name, the new name
        tag = identity(old)
        if tag is None:
            raise missing_table(ctx.catalog, old, hint="use ALTER VIEW ... RENAME TO",
                                condition="EXPECT_TABLE_NOT_VIEW.USE_ALTER_VIEW")
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: tables cannot move between databases", str(new),
                               condition="CANNOT_RENAME_ACROSS_SCHEMA")
        check_name(new)
        if identity(new) is not None or ctx.catalog.views.view_definition(new) is not None:
            raise ObjectExistsError.relation(f"table {new} already exists", str(new))
        identities[new], identities[old] = tag, None
        plan.append((old, new, tag))
    return plan


def rename_table(ctx: ActionContext, old: TableName, new: TableName) -> None:
    """One rename of a RENAME TABLE statement, after the plan's name-hold pre-flight moved a kept version of a
    former ``new`` at ``new``'s default directory (where the metastore moves a table at its default directory) aside,
    still restorable (as a CREATE does: :func:`~actions.name_holds.free_directory_of_dropped`). Refused as Spark
    refuses it when that directory
    exists still; when it is a version this log keeps for its readers (one that could not move), the error says so
    and until when (not "left by a failed operation": it is neither garbage nor to be removed by hand); when another
    home keeps it (drivers share the catalog, each its own log), the error gives that home's note."""
    try:
        ctx.catalog.names.rename(old, new)
    except LeftoverFilesError as exc:
        held = [deletion for deletion in pending_deletions(ctx.log)
                if exc.location is not None and deletion.location.rstrip("/") == exc.location.rstrip("/")]
        if not held:
            if exc.location is None or (note := other_homes_note(ctx, exc.location)) is None:
                raise
            elsewhere = kept_elsewhere(exc.location, note)
            raise LeftoverFilesError(f"cannot rename {old} to {new}: its directory, {elsewhere}", str(new),
                                     exc.location) from None
        due = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(held[0].due))
        raise LeftoverFilesError(
            f"cannot rename {old} to {new}: its directory {exc.location} holds a replaced version of "
            f"{held[0].table or new} kept for readers until {due} (grace_seconds); rename after that or to another "
            "name", str(new), exc.location) from None


def table_names(names: Iterable[str | TableName]) -> tuple[TableName, ...]:
    return tuple(TableName.of(name) for name in names)


@attrs.frozen(kw_only=True)
class DropTables(Statement):
    """DROP TABLE a, b [PURGE]: every name checked first (a missing table without IF EXISTS drops nothing); once
    logged, the drop rolls forward (recovery finishes it and binlogs it as generated). A managed table's files stay
    for the grace period, their deletion a chain of their own: the name goes first, so a reader that resolved the
    table just before reads its rows whole, never an empty directory; ``purge``: the files go with the table."""

    label: ClassVar[str] = "DROP TABLE"
    transactional: ClassVar[bool] = True
    names: tuple[TableName, ...] = attrs.field(converter=table_names)
    if_exists: bool = False
    purge: bool = False

    @classmethod
    def of(cls, names: Iterable[str | TableName], *, if_exists: bool = False, purge: bool = False,
           text: str | None = None) -> DropTables:
        return cls(names=names, if_exists=if_exists, purge=purge, text=text)

    def canonical_text(self) -> str:
        return drop_text("TABLE", list(self.names), if_exists=self.if_exists) + (" PURGE" if self.purge else "")

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(*self.names)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():  # the live drop reuses the check's lookup of each table to compare identities
            targets: list[tuple[TableName, str]] = []
            views: list[tuple[TableName, str | None, ViewDefinition]] = []
            for found in named_objects(ctx.catalog, self.names):
                if found.table_identity is not None:
                    targets.append((found.name, found.table_identity))
                elif found.view is not None:
                    if not ctx.catalog.names.drop_table_drops_views():
                        raise WrongObjectKindError.view_not_table(found.name, "use DROP VIEW",
                                                                  condition="WRONG_COMMAND_FOR_OBJECT_TYPE")
                    views.append((found.name, found.view_identity, found.view))
                elif not self.if_exists:
                    raise NoSuchObjectError.relation(f"table {found.name} does not exist", str(found.name))
            if views:
                return self.drop_views(ctx, views, targets)
            if not targets:
                return NOTHING_DONE
            objects = tuple(str(name) for name, _ in targets)
            event = forward.drop_tables(ctx, self.binlog_text, targets, purge=self.purge, verb=self.label)
        return StatementResult(objects=objects, event=event, detail="done: " + ", ".join(objects))

    def drop_views(self, ctx: ActionContext, views: list[tuple[TableName, str | None, ViewDefinition]],
                   tables: list[tuple[TableName, str]]) -> StatementResult:
        """DROP TABLE of views, where the engine's own DROP TABLE drops a view (Spark 4.3): DROP VIEW's roll-forward,
        binlogged as the DROP VIEW it is (a replica on another Spark line replays it alike). Tables and views in one
        statement (the project's multi-name form, which Spark does not have) are refused, nothing dropped."""
        if tables:
            raise WrongObjectKindError.view_not_table(
                views[0][0], "drop the tables and the views in two statements (DROP TABLE, DROP VIEW)",
                condition="WRONG_COMMAND_FOR_OBJECT_TYPE")
        names = [name for name, _, _ in views]
        objects = tuple(str(name) for name in names)
        event = forward.drop_views(ctx, drop_text("VIEW", names, if_exists=self.if_exists), views, verb=self.label)
        return StatementResult(objects=objects, event=event, detail="done: " + ", ".join(objects))


@attrs.frozen(kw_only=True)
class DropDatabase(Statement):
    """DROP DATABASE [CASCADE]: checked first (missing, non-empty without CASCADE), then one roll-forward chain drops
    every function, view and table in it, then the database; the tables' files and the database's directory stay
    for the grace period. Each table's lookup serves its logged identity and its drop."""

    label: ClassVar[str] = "DROP DATABASE"
    name: str = attrs.field(converter=check_identifier)
    if_exists: bool = False
    cascade: bool = False

    @classmethod
    def of(cls, name: str, *, if_exists: bool = False, cascade: bool = False,
           text: str | None = None) -> DropDatabase:
        return cls(name=name, if_exists=if_exists, cascade=cascade, text=text)

    def canonical_text(self) -> str:
        return drop_database_text(self.name, if_exists=self.if_exists, cascade=self.cascade)

    def lock_keys(self) -> LockKeys:
        return LockKeys.database(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():
            return self._run(ctx)

    def _run(self, ctx: ActionContext) -> StatementResult:
        catalog, db = ctx.catalog, self.name
        if not catalog.databases.database_exists(db):
            if self.if_exists:
                return NOTHING_DONE
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        if db == "default":
            raise CatalogError("the default database cannot be dropped", db)
        objects = catalog.databases.list_objects(db)
        if not objects.empty and not self.cascade:
            raise CatalogError(f"database {db} is not empty ({len(objects.tables)} tables, {len(objects.views)} "
                               f"views, {len(objects.functions)} functions); use CASCADE", db)
        event = forward.drop_database(ctx, self.binlog_text, db, objects, verb=self.label)
        return StatementResult(objects=(db,), event=event)


@attrs.frozen(kw_only=True)
class CreateDatabase(Statement):
    """CREATE DATABASE [IF NOT EXISTS]: logged so that a crash before the binlog write drops it again."""

    label: ClassVar[str] = "CREATE DATABASE"
    name: str = attrs.field(converter=check_identifier)
    if_not_exists: bool = False
    comment: str | None = None
    properties: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, name: str, *, if_not_exists: bool = False, comment: str | None = None,
           properties: dict[str, str] | None = None, text: str | None = None) -> CreateDatabase:
        return cls(name=name, if_not_exists=if_not_exists, comment=comment,
                   properties=tuple(sorted((properties or {}).items())), text=text)

    def canonical_text(self) -> str:
        return "CREATE DATABASE " + ("IF NOT EXISTS " if self.if_not_exists else "") + quote_ident(self.name)

    def lock_keys(self) -> LockKeys:
        return LockKeys.database(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        db, catalog = self.name, ctx.catalog
        check_database_name_length(db)
        if catalog.databases.database_exists(db):
            if self.if_not_exists:
                return NOTHING_DONE
            raise ObjectExistsError.database(f"database {db} already exists", db)
        owns_location = not catalog.databases.database_leftovers_exist(db)  # else undo must leave that directory alone
        if any(key == TAG_PROPERTY for key, _ in self.properties):
            raise InvalidNameError(f"database property {TAG_PROPERTY!r} is reserved for the DDL log", TAG_PROPERTY)
        tag = new_database_tag()  # the database's identity: undo drops this database, never one created anew
        create = partial(catalog.databases.create_database, db, comment=self.comment,
                         properties=(*self.properties, (TAG_PROPERTY, tag)))
        event = undo.create_database(ctx, self.binlog_text, db, tag=tag, owns_location=owns_location, create=create,
                                     verb=self.label)
        return StatementResult(objects=(db,), event=event)
