"""Inside a DDL transaction a statement never reads what the transaction changed (issue 39, isolation): each
statement's change is built aside and published at COMMIT, so a later statement that read such an object (a CTAS
selecting from a table replaced earlier, a view over a table created earlier, a LIKE of a renamed one) would see it as
before, or not at all. Such a statement is refused with :class:`UnpublishedReadError` (the transaction rolled back).

What a statement reads is its :meth:`~ddl_log.engine.typed.Statement.reads`: names, query texts (read by the
catalog's parser, no analysis: a table the transaction creates does not exist yet) and DataFrames (their analysed
plans); every view among them is followed to its own sources (its query read against the view's database), so a read
through a view is found too. Costs, paid only once the transaction changed something: one parse of each query, one
view lookup per object read (views followed: their parse and lookups)."""

from __future__ import annotations

from collections.abc import Mapping

from chains.lock_keys import object_key
from ddl_log.engine.typed import Statement
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import CatalogError

MOST_OBJECTS = 200
"""Objects looked at for one statement (views within views): a bound on the lookups, never reached by real views."""


def unpublished_read(statement: Statement, changed: Mapping[str, str],
                     catalog: Catalog) -> tuple[TableName, str] | None:
    """The first object ``statement`` reads that ``changed`` (lock key -> the statement that changed it) holds, with
    that statement's label; None when it reads none of them."""
    if not changed:
        return None
    reads = statement.reads()
    pending = list(reads.names)
    for query in reads.queries:
        pending += catalog.names.relations_read(query)
    for frame in reads.frames:
        pending += catalog.names.relations_read(frame=frame)
    seen: set[str] = set()
    while pending and len(seen) < MOST_OBJECTS:
        name = pending.pop(0)
        key = object_key(name)
        if key in seen:
            continue
        seen.add(key)
        if key in changed:
            return name, changed[key]
        try:
            view = catalog.views.view_definition(name)
        except CatalogError:  # a name no catalog object can have (a path read as a table): nothing to follow
            continue
        if view is not None:
            pending += catalog.names.relations_read(view.query, default_db=name.db)
    return None
