"""ALTER TABLE actions. In-place metadata changes with an inverse (properties, column comments) are undone by
restoring the old metadata kept in the log; the ones Spark cannot invert in place (ADD COLUMNS, ADD/DROP
PARTITION) roll forward once logged: replay makes sure the change is applied, so it is idempotent too."""

from __future__ import annotations

from actions.context import ActionContext
from chains.entries import ActionEntry
from chains.payloads import (
    AddColumnsChange,
    AlterTablePayload,
    PartitionChange,
    RestoreColumnComment,
    RestoreProperties,
    payload_of,
)
from storage.errors import CatalogError


def replay_alter_table(action: ActionEntry, ctx: ActionContext) -> None:
    name = action.name
    if name is None:
        raise CatalogError(f"alter action {action.id} has no table name")
    catalog = ctx.catalog
    if catalog.identity(name) != action.tag:
        return  # not the table this statement altered (dropped or replaced since): never touch it
    payload = payload_of(action, AlterTablePayload)
    change = payload.change
    if isinstance(change, RestoreProperties):
        restore = {key: value for key, value in change.old if value is not None}
        if restore:
            catalog.set_properties(name, restore)
        missing = tuple(key for key, value in change.old if value is None)
        if missing:
            catalog.unset_properties(name, missing)
    elif isinstance(change, RestoreColumnComment):
        catalog.set_column_comment(name, change.column, change.old or "")
    elif isinstance(change, AddColumnsChange):
        metadata = catalog.table_metadata(name)
        present = {c.name.lower() for c in metadata.columns} if metadata else set()
        wanted = tuple(c for c in change.columns if c.name.lower() not in present)
        if wanted:  # all of them (one ALTER adds all or none): the statement's own text when it was kept
            catalog.add_columns(name, wanted, text=change.text if len(wanted) == len(change.columns) else None)
    elif isinstance(change, PartitionChange):
        if change.add:
            catalog.add_partition(name, dict(change.spec))
        else:
            catalog.drop_partition(name, dict(change.spec))
