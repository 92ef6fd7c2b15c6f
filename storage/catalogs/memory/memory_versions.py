"""The in-memory catalog's definition swap, table versions, kind exchange and directories (kept "files", their
notes, their deletion), on :class:`~storage.catalogs.memory.memory_state.MemoryState`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

import attrs

from storage.catalogs.interface import (
    TAG_PROPERTY,
    DataSummary,
    SwapPlan,
    TableVersion,
    ViewDefinition,
)
from storage.catalogs.memory.memory_files import MemoryVersionMover
from storage.catalogs.memory.memory_state import MemoryPort, MemoryState
from storage.catalogs.memory.memory_table import (
    MemoryTable,
    database_location,
    default_location,
    location_of,
)
from storage.catalogs.names import FINGERPRINT_PREFIX, TableName
from storage.errors import (
    CatalogError,
    NoSuchObjectError,
    ObjectExistsError,
)


def tagged(view: ViewDefinition, tag: str | None) -> ViewDefinition:
    """``view`` with its tag property set to ``tag`` (None: removed)."""
    properties = {**view.property_map, TAG_PROPERTY: tag} if tag is not None else {
        k: v for k, v in view.property_map.items() if k != TAG_PROPERTY}
    return attrs.evolve(view, properties=tuple(sorted(properties.items())))


class MemoryVersions(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Versions` port."""

    def version_of(self, name: TableName) -> TableVersion | None:
        table = self.state.tables.get(name)
        if table is None or table.external:
            return None
        location = location_of(name, table)
        record = {"columns": list(table.columns), "types": table.types, "comments": table.comments,
                  "properties": table.properties, "partitioned_by": list(table.partitioned_by),
                  "partitions": table.partitions, "location": location, "identity": table.identity}
        properties = {**table.properties, TAG_PROPERTY: table.identity}  # Spark's table parameters hold the tag
        return TableVersion(json.dumps(record, sort_keys=True), location, tuple(sorted(properties.items())),
                            location == default_location(name))

    def definition_to_create(self, name: TableName) -> str | None:
        version = self.version_of(name)
        return None if version is None else version.definition

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        current = self.state.tables.get(name)
        wanted = tuple(json.loads(definition)["partitioned_by"])
        if current is not None and current.partitioned_by != wanted:
            return f"its partition columns {list(wanted)} differ from the table's {list(current.partitioned_by)}"
        return None

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        self.state.check("install_version", name)
        record = json.loads(definition)
        current = self.state.tables.get(name)
        if create and current is not None:
            raise ObjectExistsError.relation(f"table {name} already exists", str(name))
        if not create and current is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        if current is not None:  # its files stay where they are (the version the install replaces)
            del self.state.tables[name]
            self.state.keep_files_of(name, current)
        location = str(record["location"])
        tables = self.state.tables
        files = self.state.swap.files.pop(location, None) or next(  # a schema swap: another name's table reads them now
            (other for other_name, other in tables.items() if location_of(other_name, other) == location), None)
        self.state.swap.orphans.discard(location)
        properties = dict(record["properties"])
        identity = tag if tag is not None else str(record["identity"])
        self.state.tables[name] = MemoryTable(
            identity, tuple(record["columns"]), list(files.rows) if files is not None else [],
            types=dict(record["types"]), comments=dict(record["comments"]), properties=properties,
            partitioned_by=tuple(record["partitioned_by"]), partitions=[dict(p) for p in record["partitions"]],
            location=None if location == default_location(name) else location)

    def data_summary(self, location: str) -> DataSummary | None:
        """A row is a file here; nothing is written from outside, so nothing is newer than the statements."""
        files = self.state.swap.files.get(location)
        return None if files is None else DataSummary(len(files.rows), sum(len(repr(row)) for row in files.rows), 0.0)


class MemorySwaps(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Swaps` port."""

    def __init__(self, state: MemoryState, versions: MemoryVersions) -> None:
        super().__init__(state)
        self.versions = versions

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        """As the interface says; this catalog keeps no statistics, so ``keep_statistics`` changes nothing."""
        if not self.state.swap.enabled:
            return SwapPlan("this in-memory catalog refuses definition swaps")
        for name in (orig, tmp):
            table = self.state.tables.get(name)
            if table is None:
                return SwapPlan(f"{name} does not exist")
            if table.external:
                return SwapPlan(f"{name} is not a managed table")
        if self.state.tables[orig].partitioned_by != self.state.tables[tmp].partitioned_by:
            return SwapPlan(f"the partition columns of {tmp} change (the metastore cannot change a table's "
                            "partition keys)")
        return SwapPlan(None, self.versions.version_of(orig))

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str, *,
                        emptied: Sequence[Mapping[str, str]] | None = None) -> SwapPlan:
        table = self.state.tables.get(orig)
        if not self.state.swap.enabled or table is None or table.external or table.partitioned_by:
            return SwapPlan("built under TMP")
        self.state.check("plan_empty", orig)
        empty = attrs.evolve(table, identity=tag, rows=[], location=default_location(tmp), held=None)
        return SwapPlan(None, self.versions.version_of(orig), empty)

    def plan_write_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        """A refusal: the in-memory catalog builds an INSERT OVERWRITE's version under TMP (its rows are no files
        a job could write elsewhere)."""
        return SwapPlan("built under TMP")

    def plan_created_swap(self, orig: TableName, tmp: TableName) -> SwapPlan:
        """A refusal: the in-memory catalog builds a CREATE OR REPLACE's version under TMP (its CTAS is not taken
        as a direct create, ``DataJobs.prepare_create``)."""
        return SwapPlan("built under TMP")

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        self.state.check("exchange", orig)
        old = self.state.table_or_missing(orig)
        new = plan.handle if isinstance(plan.handle, MemoryTable) else self.state.table_or_missing(tmp)
        between()
        self.state.check("install", orig)
        self.state.tables[orig] = attrs.evolve(new, location=new.location or location_of(tmp, new))
        self.state.keep_files_of(orig, old)

    def settle_statistics(self, name: TableName, previous: TableName) -> None:
        """As the interface says; this catalog keeps no statistics."""

    def restore_definition(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        self.state.check("restore", orig)
        kept = self.state.table_or_missing(holder)
        if kept.held is None:
            raise CatalogError(f"{holder} holds no table definition", str(holder))
        self.state.tables[orig] = attrs.evolve(kept, identity=kept.held, external=False, held=None)

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        """Remove the holder ``name`` (a table: its files kept; a view holder: a view has no files) while its tag is
        ``expect``."""
        view = self.state.views.get(name)
        if view is not None:
            self.state.check("forget", name)
            if view.property_map.get(TAG_PROPERTY) != expect:
                return False
            del self.state.views[name]
            return True
        self.state.check("forget", name)
        table = self.state.tables.get(name)
        if table is None or table.identity != expect:
            return False
        del self.state.tables[name]
        self.state.keep_files_of(name, table)
        return True


class MemoryKinds(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.KindExchange` port."""

    def relation_tag(self, name: TableName) -> str | None:
        table = self.state.tables.get(name)
        if table is not None:
            return None if table.identity.startswith(FINGERPRINT_PREFIX) else table.identity
        view = self.state.views.get(name)
        return None if view is None else view.property_map.get(TAG_PROPERTY)

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        if not self.state.swap.enabled:
            return "this in-memory catalog refuses definition swaps"
        for name in (orig, tmp):
            table = self.state.tables.get(name)
            if table is not None and (table.external or table.partitioned_by):
                return f"{name} is a partitioned or external table"
        return None

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        self.state.check("exchange_kinds", orig)
        if orig in self.state.views and tmp in self.state.tables:
            old_view, new_table = self.state.views[orig], self.state.tables[tmp]
            del self.state.tables[tmp]
            self.state.views[tmp] = tagged(old_view, holder_tag)
            between()
            self.state.check("install_kind", orig)
            del self.state.views[orig]
            self.state.tables[orig] = attrs.evolve(new_table, location=location_of(tmp, new_table))
            return None
        if orig in self.state.tables and tmp in self.state.views:
            old_table, new_view = self.state.tables[orig], self.state.views[tmp]
            old_location = location_of(orig, old_table)
            del self.state.views[tmp]
            self.state.tables[tmp] = attrs.evolve(old_table, identity=holder_tag, external=True,
                                                  held=old_table.identity, location=old_location)
            between()
            self.state.check("install_kind", orig)
            del self.state.tables[orig]
            self.state.views[orig] = new_view
            return old_location
        raise NoSuchObjectError(f"{orig} and {tmp} are not a view and a table", str(orig))

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        self.state.check("restore_kind", orig)
        kept_table: MemoryTable | None = self.state.tables.get(holder)
        if kept_table is not None and kept_table.held is not None:
            self.state.views.pop(orig, None)
            self.state.tables[orig] = attrs.evolve(kept_table, identity=kept_table.held, external=False, held=None)
            return
        kept_view = self.state.views.get(holder)
        if kept_view is None:
            raise CatalogError(f"{holder} holds no definition", str(holder))
        self.state.tables.pop(orig, None)
        self.state.views[orig] = tagged(kept_view, None)


class MemoryDirectories(MemoryPort):
    """The in-memory :class:`~storage.catalogs.ports.Directories` port."""

    def clean_leftovers(self, name: TableName) -> bool:
        if name in self.state.tables or name in self.state.views or name not in self.state.leftovers:
            return False
        self.state.leftovers.discard(name)
        return True

    def delete_data(self, location: str, owner: TableName) -> str | None:
        """As Spark's: kept while any table's location is at, under or above it, or a database's at or under it."""
        self.state.check("delete_data", owner)
        user = self.directory_user(location)
        if user is not None:
            return user
        swap = self.state.swap
        swap.orphans = {kept for kept in swap.orphans if kept != location and not kept.startswith(location + "/")}
        swap.files = {kept: table for kept, table in swap.files.items() if kept in swap.orphans}
        swap.notes = {kept: note for kept, note in swap.notes.items() if kept in swap.orphans}
        self.state.forget_database_directory(location)
        return None

    def directory_user(self, location: str) -> str | None:
        for name, table in self.state.tables.items():
            where = location_of(name, table)
            if where == location or where.startswith(location + "/") or location.startswith(where + "/"):
                return f"table {name} is located at {where}"
        for db in self.state.live_databases():
            where = database_location(db)
            if where == location or where.startswith(location + "/"):
                return f"database {db} is located at {where}"
        return None

    def write_kept_note(self, location: str, text: str) -> bool:
        """Only into a directory that is there: kept files, or a table's."""
        tables = self.state.tables
        if location not in self.state.swap.orphans and all(location_of(n, t) != location for n, t in tables.items()):
            return False
        self.state.swap.notes[location] = text
        return True

    def remove_kept_note(self, location: str) -> None:
        self.state.swap.notes.pop(location, None)

    def read_kept_note(self, location: str) -> str | None:
        return self.state.swap.notes.get(location)

    def version_mover(self) -> MemoryVersionMover:
        """A kept version's "directory" moved aside
        (:class:`~storage.catalogs.memory.memory_files.MemoryVersionMover`)."""
        return MemoryVersionMover(self.state.swap, self.state.check, self.directory_user)
