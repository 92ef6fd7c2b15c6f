"""What each name of a statement is, and what to say when it is not there as the kind the statement needs: Spark
tells "missing" from "there, but a view" (or "a table"), and so do the statements here, with Spark's conditions."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from storage.catalogs.interface import ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import CatalogError, NoSuchObjectError, WrongObjectKindError


def missing_table(catalog: Catalog, name: TableName, *, hint: str = "",
                  condition: str = "EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE") -> CatalogError:
    """The error for a table ``name`` that is not there: :class:`WrongObjectKindError` when a view has the name,
    else :class:`NoSuchObjectError`."""
    if catalog.views.view_definition(name) is not None:
        return WrongObjectKindError.view_not_table(name, hint, condition=condition)
    return NoSuchObjectError.relation(f"table {name} does not exist", str(name))


def missing_view(catalog: Catalog, name: TableName, *, hint: str = "",
                 condition: str = "EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE") -> CatalogError:
    """The error for a view ``name`` that is not there: :class:`WrongObjectKindError` when a table has the name,
    else :class:`NoSuchObjectError`."""
    if catalog.names.identity(name) is not None:
        return WrongObjectKindError.table_not_view(name, hint, condition=condition)
    return NoSuchObjectError.relation(f"view {name} does not exist", str(name))


@attrs.frozen
class NamedObject:
    """What one name of a DROP TABLE or DROP VIEW is now: a table (its identity), a view (its definition and
    identity), or nothing."""

    name: TableName
    table_identity: str | None = None
    view: ViewDefinition | None = None
    view_identity: str | None = None

    @property
    def is_table(self) -> bool:
        return self.table_identity is not None


def named_objects(catalog: Catalog, names: Iterable[TableName]) -> list[NamedObject]:
    """Each distinct name of ``names``, in order, as the catalog has it: the one per-name check DROP TABLE and DROP
    VIEW share before each applies its own rules (which kinds it drops, what a missing name is)."""
    found: list[NamedObject] = []
    for name in dict.fromkeys(names):
        identity = catalog.names.identity(name)
        if identity is not None:
            found.append(NamedObject(name, table_identity=identity))
            continue
        definition = catalog.views.view_definition(name)
        view_identity = catalog.views.view_identity(name) if definition is not None else None
        found.append(NamedObject(name, view=definition, view_identity=view_identity))
    return found
