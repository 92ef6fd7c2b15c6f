"""ALTER_TABLE: in-place metadata changes. Those with an inverse (properties, a column comment) keep the old value
in the log and undo restores it; those Spark cannot invert in place (ADD COLUMNS, ADD/DROP PARTITION) roll forward
once logged, replay making sure the change is applied, so it is idempotent too. Only the table the statement
altered (its identity) is ever touched."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.errors import PayloadError
from chains.log import DDLLog
from storage.catalogs.interface import Column
from storage.catalogs.names import TableName


@attrs.frozen
class RestoreProperties:
    """Undo: the old value of every key the statement set or unset (None: the key was not there). ``view``: the
    object is a view (``ALTER VIEW ... SET/UNSET TBLPROPERTIES``; the tag is then its view identity)."""

    old: tuple[tuple[str, str | None], ...]
    view: bool = False


@attrs.frozen
class RestoreColumnComment:
    column: str
    old: str | None


@attrs.frozen
class AddColumnsChange:
    columns: tuple[Column, ...]
    text: str | None = None
    """The column list as the statement wrote it (what Spark runs; ``columns`` names what it adds); None: only the
    parsed columns (then rendered from ``columns``)."""


Spec = tuple[tuple[str, str], ...]
"""A partition spec: (column, value) pairs, some or all of the partition columns."""


@attrs.frozen
class PartitionChange:
    """ADD PARTITION of full ``specs`` (one call, existing ones left alone), or DROP PARTITION of every partition
    each of ``specs`` matches (a partial spec matches several, as Spark's; missing ones ignored)."""

    add: bool
    specs: tuple[Spec, ...]


AlterChange = RestoreProperties | RestoreColumnComment | AddColumnsChange | PartitionChange


@attrs.frozen
class AlterTablePayload:
    """One change per action; undo kinds restore, forward kinds apply."""

    change: AlterChange

    @property
    def kind(self) -> str:
        change = self.change
        if isinstance(change, RestoreProperties):
            return "properties"
        if isinstance(change, RestoreColumnComment):
            return "column_comment"
        if isinstance(change, AddColumnsChange):
            return "add_columns"
        return "add_partition" if change.add else "drop_partition"

    def to_wire(self) -> dict[str, Any]:
        change = self.change
        data: dict[str, Any] = {"kind": self.kind}
        if isinstance(change, RestoreProperties):
            data["old"] = [list(pair) for pair in change.old]
            if change.view:
                data["view"] = True
        elif isinstance(change, RestoreColumnComment):
            data.update(column=change.column, old=change.old)
        elif isinstance(change, AddColumnsChange):
            data["columns"] = [[c.name, c.type, c.comment] for c in change.columns]
            data["text"] = change.text
        else:
            data["specs"] = [[list(pair) for pair in spec] for spec in change.specs]
        return data

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> AlterTablePayload:
        what = "ALTER_TABLE"
        kind = require(data, "kind", what)
        change: AlterChange
        if kind == "properties":
            change = RestoreProperties(tuple((str(k), v) for k, v in require(data, "old", what)),
                                       bool(data.get("view", False)))
        elif kind == "column_comment":
            change = RestoreColumnComment(str(require(data, "column", what)), require(data, "old", what))
        elif kind == "add_columns":
            columns = tuple(Column(str(n), str(t), c) for n, t, c in require(data, "columns", what))
            change = AddColumnsChange(columns, require(data, "text", what))
        elif kind in ("add_partition", "drop_partition"):
            # "spec": one partition, as logs written before several partitions per statement have it
            specs = data["specs"] if "specs" in data else [require(data, "spec", what)]
            change = PartitionChange(kind == "add_partition",
                                     tuple(tuple((str(k), str(v)) for k, v in spec) for spec in specs))
        else:
            raise PayloadError(f"unknown ALTER_TABLE change kind {kind!r}")
        return cls(change)


def log_alter_table(log: DDLLog, chain: int, name: TableName, tag: str | None, change: AlterChange) -> ActionEntry:
    return log.add_action(chain, ActionType.ALTER_TABLE, name=name, tag=tag, payload=AlterTablePayload(change))


def replay_alter_table(action: ActionEntry, ctx: ActionContext) -> None:
    name = name_of(action)
    catalog = ctx.catalog
    change = payload_of(action, AlterTablePayload).change
    if isinstance(change, RestoreProperties) and change.view:
        if catalog.views.view_identity(name) != action.tag:
            return  # not the view this statement altered
        restore = {key: value for key, value in change.old if value is not None}
        if restore:
            catalog.views.set_view_properties(name, restore)
        missing = tuple(key for key, value in change.old if value is None)
        if missing:
            catalog.views.unset_view_properties(name, missing)
        return
    if catalog.names.identity(name) != action.tag:
        return  # not the table this statement altered (dropped or replaced since): never touch it
    if isinstance(change, RestoreProperties):
        restore = {key: value for key, value in change.old if value is not None}
        if restore:
            catalog.definitions.set_properties(name, restore)
        missing = tuple(key for key, value in change.old if value is None)
        if missing:
            catalog.definitions.unset_properties(name, missing)
    elif isinstance(change, RestoreColumnComment):
        catalog.definitions.set_column_comment(name, change.column, change.old or "")
    elif isinstance(change, AddColumnsChange):
        metadata = catalog.definitions.table_metadata(name)
        present = {c.name.lower() for c in metadata.columns} if metadata else set()
        wanted = tuple(c for c in change.columns if c.name.lower() not in present)
        if wanted:  # all of them (one ALTER adds all or none): the statement's own text when it was kept
            catalog.definitions.add_columns(name, wanted,
                                            text=change.text if len(wanted) == len(change.columns) else None)
    elif change.add:
        catalog.definitions.add_partitions(name, [dict(spec) for spec in change.specs])
    else:
        catalog.definitions.drop_partitions(name, [dict(spec) for spec in change.specs])


def describe(action: ActionEntry) -> str:
    change = payload_of(action, AlterTablePayload).change
    if isinstance(change, RestoreProperties):
        what = f"restore properties {', '.join(key for key, _ in change.old)}"
        if change.view:
            return f"{what} on view {action.name} if it still has identity {action.tag}"
    elif isinstance(change, RestoreColumnComment):
        what = f"restore the comment of column {change.column}"
    elif isinstance(change, AddColumnsChange):
        what = f"add columns {', '.join(c.name for c in change.columns)}"
    else:
        specs = ", ".join(str(dict(spec)) for spec in change.specs)
        what = f"{'add' if change.add else 'drop'} partition{'s' if len(change.specs) > 1 else ''} {specs}"
    return f"{what} on table {action.name} if it still has identity {action.tag}"


KIND = ActionKind(ActionType.ALTER_TABLE, ("METADATA",), AlterTablePayload, replay_alter_table, describe, "object",
                  log_alter_table)
