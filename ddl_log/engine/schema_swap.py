"""ALTER SCHEMA a SWAP WITH b (Snowflake's form; also ALTER DATABASE): every table and view of the two databases
exchanged, all or none, by their metastore records: no table is renamed, no file moves (the metastore moves no
table between databases, and a rename would move a managed table's directory).

Each name of the two databases' union is exchanged in place:

- a table in both: each name gets the other's whole definition (location, schema, properties, partitions) in one
  catalog call (``Versions.install_version``), logged first as INSTALL_VERSION with the definition it had;
- a table in one only: the other database's name is made from its definition (INSTALL_VERSION with none before),
  then its own record is removed, its files kept (REMOVE_RECORD);
- a view in both, or in one only: its text is put under the other name (CREATE_VIEW, the old text logged), the view
  only in one then dropped (CREATE_VIEW logging the same text as old and new: undo makes it again while the name is
  free). A view's text is kept as written: a view of ``a`` reading ``a.t`` reads ``a.t`` under its new name too.

Every action is on one undo chain C, with one XID and one binlog event: a crash before the commit point undoes the
whole swap in reverse, one after it leaves all of it. Each name holds its old object or its new one at every
instant. Checked before anything is logged: both databases exist and differ, every object can be carried (a managed
table the log can keep whole, a view; no function, no external or Hive serde table, no name a table in one database
and a view in the other, no two tables of one name with different partition columns)."""

from __future__ import annotations

from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.results import StatementResult
from chains.lock_keys import LockKeys
from ddl_log.engine.typed import Statement
from replace_table.plans.schema_exchange import Side, TableSide, swap_schemas
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import check_identifier, quote_ident
from storage.catalogs.ports import Catalog
from storage.errors import InvalidNameError, NoSuchObjectError, NotAtomicError


@attrs.frozen(kw_only=True)
class SwapSchemas(Statement):
    """ALTER SCHEMA first SWAP WITH second: the two databases exchange every table and view (see the module)."""

    label: ClassVar[str] = "ALTER SCHEMA SWAP WITH"
    first: str = attrs.field(converter=check_identifier)
    second: str = attrs.field(converter=check_identifier)

    @classmethod
    def of(cls, first: str, second: str, *, text: str | None = None) -> SwapSchemas:
        return cls(first=first, second=second, text=text)

    def canonical_text(self) -> str:
        return f"ALTER SCHEMA {quote_ident(self.first)} SWAP WITH {quote_ident(self.second)}"

    def lock_keys(self) -> LockKeys:
        """Both databases exclusively (every statement on an object in one takes its database shared), in one
        sorted order."""
        return LockKeys(tuple(sorted({self.first, self.second})))

    def run(self, ctx: ActionContext) -> StatementResult:
        first, second = self.first, self.second
        if first == second:
            raise InvalidNameError(f"cannot swap database {first} with itself", first)
        with reuse_lookups():
            sides = {db: objects_of(ctx.catalog, db) for db in (first, second)}
            event = swap_schemas(ctx, self.binlog_text, first, second, sides, verb=self.label)
        found = [side for objects_ in sides.values() for side in objects_.values()]
        tables = sum(isinstance(side, TableSide) for side in found)
        return StatementResult(objects=(first, second), event=event,
                               detail=f"{first} <-> {second}: {tables} tables, {len(found) - tables} views")


def objects_of(catalog: Catalog, db: str) -> dict[str, Side]:
    """Every object of ``db`` by name, each checked to be one a swap carries."""
    if not catalog.databases.database_exists(db):
        raise NoSuchObjectError(f"database {db} does not exist", db)
    objects = catalog.databases.list_objects(db)
    if objects.functions:
        raise NotAtomicError(f"cannot swap database {db}: it holds functions ({objects.functions[0]}), which the "
                             "metastore cannot exchange between databases in one call; drop or move them first", db)
    found: dict[str, Side] = {}
    for name in objects.tables:
        version = catalog.versions.version_of(name)
        tag = catalog.names.identity(name)
        if version is None or tag is None:
            raise NotAtomicError(f"cannot swap database {db}: table {name} is external, a Hive serde table or "
                                 "otherwise not one whose whole definition the DDL log can keep", str(name))
        found[name.name] = TableSide(tag, version)
    for name in objects.views:
        view = catalog.views.view_definition(name)
        if view is not None:
            found[name.name] = view
    return found
