"""What to say when a statement's object is not there as the kind it needs: Spark tells "missing" from "there, but a
view" (or "a table"), and so do the statements here, with Spark's conditions."""

from __future__ import annotations

from storage.catalogs.interface import Catalog
from storage.catalogs.names import TableName
from storage.errors import CatalogError, NoSuchObjectError, WrongObjectKindError


def missing_table(catalog: Catalog, name: TableName, *, hint: str = "",
                  condition: str = "EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE") -> CatalogError:
    """The error for a table ``name`` that is not there: :class:`WrongObjectKindError` when a view has the name,
    else :class:`NoSuchObjectError`."""
    if catalog.view_definition(name) is not None:
        return WrongObjectKindError.view_not_table(name, hint, condition=condition)
    return NoSuchObjectError.relation(f"table {name} does not exist", str(name))


def missing_view(catalog: Catalog, name: TableName, *, hint: str = "",
                 condition: str = "EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE") -> CatalogError:
    """The error for a view ``name`` that is not there: :class:`WrongObjectKindError` when a table has the name,
    else :class:`NoSuchObjectError`."""
    if catalog.identity(name) is not None:
        return WrongObjectKindError.table_not_view(name, hint, condition=condition)
    return NoSuchObjectError.relation(f"view {name} does not exist", str(name))
