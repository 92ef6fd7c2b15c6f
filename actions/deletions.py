"""Scheduled deletions: the DELETE_DATA chains a swap (see :mod:`replace_table.machine`) and a drop leave behind.
Such a chain is active from the statement until its due time and then runs like any roll-forward chain; until then
it is *waiting*: recovery leaves it alone, and the statements' "active chains" do not count it."""

from __future__ import annotations

import attrs

from actions.kinds.delete_data import DeleteDataPayload
from actions.kinds.kind import payload_of
from chains.entries import ActionEntry, ActionType, ExecuteEntry
from chains.log import DDLLog
from storage.catalogs.names import TableName


@attrs.frozen
class PendingDeletion:
    chain: int
    table: TableName | None
    location: str
    due: float
    """Seconds since the epoch."""
    statement: str


def pending_deletions(log: DDLLog) -> list[PendingDeletion]:
    """Every old table directory still to delete, soonest first."""
    found = []
    for chain in log.active_chains():
        deletion = deletion_of(log.actions_of(chain.position))
        if deletion is not None:
            table, payload = deletion
            found.append(PendingDeletion(chain.position, table, payload.location, payload.due, chain.statement))
    return sorted(found, key=lambda pending: pending.due)


def is_waiting(log: DDLLog, chain: ExecuteEntry, now: float) -> bool:
    """Whether ``chain`` is a scheduled deletion whose time has not come."""
    return waits(log.actions_of(chain.position), now)


def waits(actions: list[ActionEntry], now: float) -> bool:
    """Whether a chain of ``actions`` is a scheduled deletion whose time has not come."""
    pending = [action for action in actions if not action.done]
    return bool(pending) and all(
        action.type is ActionType.DELETE_DATA and payload_of(action, DeleteDataPayload).due > now
        for action in pending)


def deletion_of(actions: list[ActionEntry]) -> tuple[TableName | None, DeleteDataPayload] | None:
    """The table and the directory of a scheduled deletion's actions (None for any other chain)."""
    for action in actions:
        if action.type is ActionType.DELETE_DATA and not action.done:
            return action.name, payload_of(action, DeleteDataPayload)
    return None


def _blocks_name(table: TableName | None, payload: DeleteDataPayload) -> bool:
    """Whether the deletion's directory may be the name's default one (``<database>/<name>``), which a new table
    of the name needs: a version elsewhere stays restorable (UNDROP is then refused while the name is taken)."""
    if payload.version is None or table is None:
        return True
    return payload.location.rstrip("/").rpartition("/")[2].lower() == table.name.lower()


def due_deletions(log: DDLLog, now: float, dropped: frozenset[TableName] = frozenset()) -> list[ExecuteEntry]:
    """Scheduled deletion chains whose time has come, or whose table is in ``dropped`` (a dropped table's old
    files at the name's directory go with it, so that a new table can have it); only of committed statements (the
    master chain is closed)."""
    due = []
    for chain in log.active_chains():
        actions = log.actions_of(chain.position)
        deletion = deletion_of(actions)
        if deletion is None or any(action.type is not ActionType.DELETE_DATA for action in actions):
            continue
        if is_waiting(log, chain, now) and not (deletion[0] in dropped and _blocks_name(*deletion)):
            continue
        if chain.master is not None and log.chain(chain.master).active:
            continue
        due.append(chain)
    return due
