"""ALTER TABLE actions. In-place metadata changes with an inverse (properties, column comments) are undone by
restoring the old metadata kept in the log; the ones Spark cannot invert in place (ADD COLUMNS, ADD/DROP
PARTITION) roll forward once logged: replay makes sure the change is applied, so it is idempotent too."""

from __future__ import annotations

from actions.context import ActionContext
from actions.registry import executor
from chains.entries import ActionEntry, ActionType
from storage.catalog import Column
from storage.errors import CatalogError

UNDO_KINDS = ("properties", "column_comment")
FORWARD_KINDS = ("add_columns", "add_partition", "drop_partition")


@executor(ActionType.ALTER_TABLE)
def replay_alter_table(action: ActionEntry, ctx: ActionContext) -> None:
    name = action.name
    if name is None:
        raise CatalogError(f"alter action {action.id} has no table name")
    catalog = ctx.catalog
    if catalog.identity(name) != action.tag:
        return  # not the table this statement altered (dropped or replaced since): never touch it
    kind = action.extra["kind"]
    if kind == "properties":
        old: dict[str, str | None] = action.extra["old"]
        restore = {key: value for key, value in old.items() if value is not None}
        if restore:
            catalog.set_properties(name, restore)
        missing = tuple(key for key, value in old.items() if value is None)
        if missing:
            catalog.unset_properties(name, missing)
    elif kind == "column_comment":
        catalog.set_column_comment(name, action.extra["column"], action.extra["old"] or "")
    elif kind == "add_columns":
        metadata = catalog.table_metadata(name)
        present = {c.name.lower() for c in metadata.columns} if metadata else set()
        wanted = tuple(Column(c[0], c[1], c[2]) for c in action.extra["columns"] if c[0].lower() not in present)
        if wanted:
            catalog.add_columns(name, wanted)
    elif kind == "add_partition":
        catalog.add_partition(name, dict(action.extra["spec"]))
    elif kind == "drop_partition":
        catalog.drop_partition(name, dict(action.extra["spec"]))
    else:
        raise CatalogError(f"unknown ALTER TABLE action kind {kind!r}", str(name))
