"""ALTER SCHEMA a SWAP WITH b as one undo statement (:mod:`replace_table.plans.undo`'s ``swap_schemas`` plan): the
logged catalog calls that give each name of two databases what the other database's name holds (see
:mod:`ddl_log.engine.schema_swap`), on one chain C, one XID, one binlog event."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import attrs

from actions.context import ActionContext
from actions.kinds.create_view import log_create_view
from actions.kinds.install_version import log_install_version
from actions.kinds.remove_record import log_remove_record
from chains.binlog import BinlogEvent
from replace_table.plans.undo import SWAP_SCHEMAS, Logged, run_undo
from storage.catalogs.interface import TableVersion, ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import CatalogError, NotAtomicError


@attrs.frozen
class TableSide:
    """One database's table of a name: its identity and whole definition."""

    tag: str
    version: TableVersion


Side = TableSide | ViewDefinition | None


def swap_schemas(ctx: ActionContext, statement: str, first: str, second: str,
                 sides: dict[str, dict[str, Side]], *, verb: str) -> BinlogEvent | None:
    """Exchange every object of ``sides`` (each database's objects by name, as found) between ``first`` and
    ``second``, all or none, the views first (undone last), so that each view's text is checked by Spark against the
    tables it was written for; the event (None with the binlog off). Refuses (before anything is logged) a name a
    table in one database and a view in the other, and two tables whose partition columns differ."""
    names = sorted(set(sides[first]) | set(sides[second]))
    pairs: list[Logged] = []
    for tables in (False, True):  # views first: Spark checks a view's text as it is made, against the tables before
        for name in names:
            at_first, at_second = sides[first].get(name), sides[second].get(name)
            if (isinstance(at_first, TableSide) or isinstance(at_second, TableSide)) == tables:
                pairs += exchange(ctx.catalog, TableName(first, name), at_first, TableName(second, name), at_second)
    objects = tuple(str(TableName(db, name)) for name in names for db in (first, second))
    return run_undo(ctx, SWAP_SCHEMAS, statement, pairs, verb=verb, subject=f"{first} WITH {second}",
                    objects=objects)

def exchange(catalog: Catalog, one: TableName, at_one: Side, other: TableName, at_other: Side) -> list[Logged]:
    """The logged catalog calls that give ``one`` what ``other`` holds and the other way round."""
    if isinstance(at_one, TableSide) != isinstance(at_other, TableSide) and None not in (at_one, at_other):
        table = one if isinstance(at_one, TableSide) else other
        viewed = other if table == one else one
        raise NotAtomicError(f"cannot swap {one} with {other}: {table} is a table and {viewed} a view, and a name "
                             "cannot change kind in one metastore call", str(viewed))
    if isinstance(at_one, TableSide) and isinstance(at_other, TableSide):
        for name, wanted in ((one, at_other), (other, at_one)):
            refusal = catalog.versions.install_refusal(name, wanted.version.definition)
            if refusal is not None:
                raise NotAtomicError(f"cannot swap {one} with {other}: {refusal}", str(name))
        return [install(catalog, one, at_other, at_one), install(catalog, other, at_one, at_other)]
    if isinstance(at_one, TableSide) or isinstance(at_other, TableSide):
        source, target = (one, other) if at_other is None else (other, one)
        moved = at_one if isinstance(at_one, TableSide) else at_other
        assert isinstance(moved, TableSide)
        return [install(catalog, target, moved, None),
                Logged(partial(log_remove_record, name=source, tag=moved.tag, definition=moved.version.definition),
                       partial(remove_record, catalog, source, moved.tag))]
    assert not isinstance(at_one, TableSide) and not isinstance(at_other, TableSide)
    if at_one is not None and at_other is not None:
        return [put_view(catalog, one, at_one, at_other), put_view(catalog, other, at_other, at_one)]
    source, target, view = (one, other, at_one) if at_other is None else (other, one, at_other)
    assert view is not None
    return [put_view(catalog, target, None, view),
            Logged(partial(log_create_view, name=source, old=view, new=view), partial(catalog.views.drop_view, source))]


def install(catalog: Catalog, name: TableName, wanted: TableSide, had: TableSide | None) -> Logged:
    """``name`` made ``wanted``'s table (with its identity), its own definition (``had``; None: no table) logged."""
    log = partial(log_install_version, name=name, new_tag=wanted.tag,
                  previous=None if had is None else had.version.definition)
    do: Callable[[], None] = partial(catalog.versions.install_version, name, wanted.version.definition, wanted.tag,
                                     create=had is None)
    return Logged(log, do)


def put_view(catalog: Catalog, name: TableName, had: ViewDefinition | None, wanted: ViewDefinition) -> Logged:
    return Logged(partial(log_create_view, name=name, old=had, new=wanted),
                  partial(catalog.views.create_view, name, wanted, replace=had is not None))


def remove_record(catalog: Catalog, name: TableName, tag: str) -> None:
    """``name``'s record out of the catalog, its files kept (read by the other database's table of the name now),
    only while it is the table of identity ``tag`` (a tagged table or one plain Spark made, by its fingerprint)."""
    if not catalog.names.drop(name, expect=tag, keep_files=True):
        raise CatalogError(f"cannot move {name}: it is no longer the table the swap read", str(name))
