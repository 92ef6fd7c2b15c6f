"""The in-memory catalog's views, functions and databases, and a replica's copies, on
:class:`~storage.catalogs.memory.memory_state.MemoryState`."""

from __future__ import annotations

import hashlib
import json

import attrs

from storage.catalogs.copying import INTERNAL_PROPERTY_PREFIXES, DatabaseDefinition
from storage.catalogs.interface import (
    TAG_PROPERTY,
    DatabaseObjects,
    FunctionDefinition,
    ViewDefinition,
    new_database_tag,
)
from storage.catalogs.memory.memory_state import MemoryPort, MemoryState, next_view_id
from storage.catalogs.memory.memory_table import (
    database_location,
)
from storage.catalogs.names import DEFAULT_DATABASE, TableName
from storage.catalogs.ports import Catalog
from storage.catalogs.rules import (
    DATABASE_TAG,
    check_database_name,
    check_function,
    check_name,
    check_view,
)
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)


class MemoryViews(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Views` port."""

    def _missing_view(self, name: TableName) -> CatalogError:
        """What Spark raises where a view is expected: a table of that name is the wrong kind, else it is missing."""
        if name in self.state.tables:
            return WrongObjectKindError.table_not_view(name)
        return NoSuchObjectError.relation(f"view {name} does not exist", str(name))

    def set_view_properties(self, name: TableName, properties: dict[str, str]) -> None:
        self.state.check("set_view_properties", name)
        if name not in self.state.views:
            raise self._missing_view(name)
        merged = {**self.state.views[name].property_map, **properties}
        self.state.views[name] = attrs.evolve(self.state.views[name], properties=tuple(sorted(merged.items())))

    def set_view_schema_mode(self, name: TableName, mode: str) -> None:
        self.state.check("set_view_schema_mode", name)
        if name not in self.state.views:
            raise self._missing_view(name)
        self.state.views[name] = attrs.evolve(self.state.views[name], schema_mode=mode)

    def unset_view_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        self.state.check("unset_view_properties", name)
        if name not in self.state.views:
            raise self._missing_view(name)
        kept = {k: v for k, v in self.state.views[name].property_map.items() if k not in keys}
        self.state.views[name] = attrs.evolve(self.state.views[name], properties=tuple(sorted(kept.items())))

    def view_definition(self, name: TableName) -> ViewDefinition | None:
        return self.state.views.get(name)

    def stored_view(self, name: TableName, definition: ViewDefinition, *, reanalysed: bool = True) -> ViewDefinition:
        check_view(name, definition)
        return definition

    def view_identity(self, name: TableName) -> str | None:
        if name not in self.state.views:
            return None
        return self.state.view_ids.setdefault(name, next_view_id())  # a view a test put straight into ``views``

    def current_view_identity(self, name: TableName) -> str | None:
        return self.view_identity(name)  # nothing is kept between reads

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None:
        self.state.check("create_view", name)
        check_view(name, definition)
        if name in self.state.tables:
            raise ObjectExistsError.table_not_view(f"{name} is a table, not a view", name)
        if name in self.state.views and not replace:
            raise ObjectExistsError.relation(f"{name} already exists", str(name))
        self.state.require_database(name.db)
        self.state.view_ids[name] = next_view_id()  # a replace is a new view, as in Spark's metastore
        self.state.views[name] = definition

    def rename_view(self, old: TableName, new: TableName) -> None:
        self.state.check("rename_view", old)
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: views cannot move between databases", str(new))
        if old not in self.state.views:
            raise self._missing_view(old)
        check_name(new, "view")
        if new in self.state.views or new in self.state.tables:
            raise ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
        self.state.views[new] = self.state.views.pop(old)
        self.state.view_ids[new] = self.state.view_ids.pop(old, "") or next_view_id()

    def drop_view(self, name: TableName) -> None:
        self.state.check("drop_view", name)
        if name not in self.state.views:
            raise self._missing_view(name)
        del self.state.views[name]
        self.state.view_ids.pop(name, None)


class MemoryFunctions(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Functions` port."""

    def function_definition(self, name: TableName) -> FunctionDefinition | None:
        return self.state.functions.get(name)

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None:
        self.state.check("create_function", name)
        check_function(name, definition)
        if name in self.state.functions and not replace:
            raise ObjectExistsError.function(f"function {name} already exists", str(name))
        self.state.require_database(name.db)
        self.state.functions[name] = definition

    def drop_function(self, name: TableName) -> None:
        self.state.check("drop_function", name)
        if name not in self.state.functions:
            raise NoSuchObjectError.function(f"function {name} does not exist", str(name))
        del self.state.functions[name]

    def no_such_function(self, name: TableName) -> NoSuchObjectError:
        return NoSuchObjectError.function(f"function {name} does not exist", str(name))


class MemoryDatabases(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Databases` port."""

    def database_exists(self, db: str) -> bool:
        return db in self.state.databases

    def database_identity(self, db: str) -> str | None:
        return self.state.database_tags.get(db) if db in self.state.databases else None

    def tag_database(self, db: str) -> str:
        self.state.check("tag_database", TableName(db, "*"))
        if db not in self.state.databases:
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        return self.state.database_tags.setdefault(db, new_database_tag())

    def list_objects(self, db: str) -> DatabaseObjects:
        self.state.require_database(db)
        return DatabaseObjects(
            tables=tuple(sorted(n for n in self.state.tables if n.db == db)),
            views=tuple(sorted(n for n in self.state.views if n.db == db)),
            functions=tuple(sorted(n for n in self.state.functions if n.db == db)),
        )

    def create_database(self, db: str, *, comment: str | None = None,
                        properties: tuple[tuple[str, str], ...] = ()) -> None:
        self.state.check("create_database", TableName(db, "*"))
        check_database_name(db)
        if db in self.state.databases:
            raise ObjectExistsError.database(f"database {db} already exists", db)
        self.state.databases.add(db)
        self.state.database_dirs.add(db)
        tag = dict(properties).get(TAG_PROPERTY)
        if tag is not None and DATABASE_TAG.fullmatch(tag):  # Spark's catalog reads back only a tag's shape
            self.state.database_tags[db] = tag

    def drop_database(self, db: str, *, keep_files: bool = False) -> None:
        self.state.check("drop_database", TableName(db, "*"))
        self.state.require_database(db)
        if db == DEFAULT_DATABASE:
            raise CatalogError(f"the database {db} cannot be dropped", db)
        if not self.list_objects(db).empty:
            raise CatalogError(f"database {db} is not empty", db)
        self.state.databases.discard(db)
        if keep_files:
            self.state.swap.orphans.add(database_location(db))
        else:
            self.state.database_dirs.discard(db)
        self.state.database_tags.pop(db, None)

    def database_leftovers_exist(self, db: str) -> bool:
        return db not in self.state.databases and db in self.state.database_dirs

    def clean_database_leftovers(self, db: str) -> bool:
        if not self.database_leftovers_exist(db):
            return False
        self.state.database_dirs.discard(db)
        return True

    def database_location(self, db: str) -> str | None:
        return database_location(db) if db in self.state.databases else None


class MemoryCopies(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Copies` port."""

    def list_databases(self) -> list[str]:
        return sorted(self.state.databases)

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        return DatabaseDefinition() if db in self.state.databases else None

    def relocated_version(self, definition: str, location: str) -> str:
        record = json.loads(definition)
        record["location"] = location
        record["properties"] = {k: v for k, v in record["properties"].items()
                                if not k.startswith(INTERNAL_PROPERTY_PREFIXES)}
        return json.dumps(record, sort_keys=True)

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        self.state.check("copy_version_into", name)
        origin = self.state if source is None else source.backend if isinstance(source, Catalog) else source
        if not isinstance(origin, MemoryState):
            raise InvalidDefinitionError(f"the in-memory catalog cannot read the files at {location}", str(name))
        rows = origin.rows_at(location)
        self.state.table(name).rows = rows
        return len(rows)

    def definition_digest(self, name: TableName) -> str | None:
        table = self.state.tables.get(name)
        if table is None:
            return None
        properties = {k: v for k, v in table.properties.items() if not k.startswith(INTERNAL_PROPERTY_PREFIXES)}
        return json.dumps({"columns": table.columns, "types": table.types, "comments": table.comments,
                           "properties": properties, "partitioned_by": table.partitioned_by,
                           "partitions": sorted(sorted(p.items()) for p in table.partitions),
                           "external": table.external}, sort_keys=True)

    def row_checksum(self, name: TableName) -> str:
        rows = sorted(repr(row) for row in self.state.table(name).rows)
        return f"{len(rows)}:{hashlib.sha256(chr(10).join(rows).encode()).hexdigest()[:16]}"
