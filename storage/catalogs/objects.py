"""The records of the catalog's non-table objects (views, functions, a database's contents), apart from the
interface (:mod:`storage.catalogs.interface` re-exports them) to keep each module to one job."""

from __future__ import annotations

import attrs

from storage.catalogs.names import TableName


@attrs.frozen
class ViewDefinition:
    """A persistent view as the catalog stores it; kept in the log so undo can restore the old one."""

    query: str
    comment: str | None = None
    columns: tuple[str, ...] = ()
    """Explicit column names (``CREATE VIEW v (a, b) AS ...``); empty for the query's own names."""
    properties: tuple[tuple[str, str], ...] = ()
    """The view's own TBLPROPERTIES (sorted by key), without what the metastore or Spark maintain."""

    @property
    def property_map(self) -> dict[str, str]:
        return dict(self.properties)


@attrs.frozen
class FunctionDefinition:
    """A persistent function: a class with resources (JARs, files), or a SQL function (params, returns, body)."""

    class_name: str | None = None
    resources: tuple[tuple[str, str], ...] = ()
    params: str | None = None
    returns: str | None = None
    body: str | None = None

    @property
    def is_sql(self) -> bool:
        return self.body is not None


@attrs.frozen
class DatabaseObjects:
    tables: tuple[TableName, ...] = ()
    views: tuple[TableName, ...] = ()
    functions: tuple[TableName, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.tables or self.views or self.functions)

