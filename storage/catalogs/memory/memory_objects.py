"""Views and functions of the in-memory catalog (mixed into :class:`~storage.catalogs.memory.MemoryCatalog`, which
provides the tables, databases and the failure hook): views share the tables' namespace, as in Spark."""

from __future__ import annotations

import itertools

import attrs

from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.memory.memory_table import MemoryTable
from storage.catalogs.names import TableName
from storage.catalogs.rules import check_function, check_name, check_view
from storage.errors import CatalogError, NoSuchObjectError, ObjectExistsError, WrongObjectKindError

_view_ids = itertools.count(1)


class MemoryObjects:
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog`."""

    tables: dict[TableName, MemoryTable]
    views: dict[TableName, ViewDefinition]
    view_ids: dict[TableName, str]
    functions: dict[TableName, FunctionDefinition]

    def _check(self, operation: str, name: TableName) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def _require_database(self, db: str) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def _missing_view(self, name: TableName) -> CatalogError:
        """What Spark raises where a view is expected: a table of that name is the wrong kind, else it is missing."""
        if name in self.tables:
            return WrongObjectKindError.table_not_view(name)
        return NoSuchObjectError(f"view {name} does not exist", str(name))

    def set_view_properties(self, name: TableName, properties: dict[str, str]) -> None:
        self._check("set_view_properties", name)
        if name not in self.views:
            raise self._missing_view(name)
        merged = {**self.views[name].property_map, **properties}
        self.views[name] = attrs.evolve(self.views[name], properties=tuple(sorted(merged.items())))

    def unset_view_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        self._check("unset_view_properties", name)
        if name not in self.views:
            raise self._missing_view(name)
        kept = {k: v for k, v in self.views[name].property_map.items() if k not in keys}
        self.views[name] = attrs.evolve(self.views[name], properties=tuple(sorted(kept.items())))

    def view_definition(self, name: TableName) -> ViewDefinition | None:
        return self.views.get(name)

    def view_identity(self, name: TableName) -> str | None:
        if name not in self.views:
            return None
        return self.view_ids.setdefault(name, f"view:{next(_view_ids)}")  # a view a test put straight into ``views``

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None:
        self._check("create_view", name)
        check_view(name, definition)
        if name in self.tables:
            raise ObjectExistsError(f"{name} is a table, not a view", str(name))
        if name in self.views and not replace:
            raise ObjectExistsError(f"{name} already exists", str(name))
        self._require_database(name.db)
        self.view_ids[name] = f"view:{next(_view_ids)}"  # a replace is a new view, as in Spark's metastore
        self.views[name] = definition

    def rename_view(self, old: TableName, new: TableName) -> None:
        self._check("rename_view", old)
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: views cannot move between databases", str(new))
        if old not in self.views:
            raise self._missing_view(old)
        check_name(new, "view")
        if new in self.views or new in self.tables:
            raise ObjectExistsError(f"cannot rename {old} to {new}: {new} already exists", str(new))
        self.views[new] = self.views.pop(old)
        self.view_ids[new] = self.view_ids.pop(old, "") or f"view:{next(_view_ids)}"

    def drop_view(self, name: TableName) -> None:
        self._check("drop_view", name)
        if name not in self.views:
            raise self._missing_view(name)
        del self.views[name]
        self.view_ids.pop(name, None)

    def function_definition(self, name: TableName) -> FunctionDefinition | None:
        return self.functions.get(name)

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None:
        self._check("create_function", name)
        check_function(name, definition)
        if name in self.functions and not replace:
            raise ObjectExistsError(f"function {name} already exists", str(name))
        self._require_database(name.db)
        self.functions[name] = definition

    def drop_function(self, name: TableName) -> None:
        self._check("drop_function", name)
        if name not in self.functions:
            raise NoSuchObjectError(f"function {name} does not exist", str(name))
        del self.functions[name]
