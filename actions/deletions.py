"""Scheduled work: the DELETE_DATA chains a swap (see :mod:`replace_table.machine`) and a drop leave behind, and the
SWEEP_TABLE chains an undo leaves on a cluster (:mod:`actions.kinds.sweep_table`). Such a chain is active from the
statement until its due time and then runs like any roll-forward chain; until then it is *waiting*: recovery leaves
it alone, and the statements' "active chains" do not count it."""

from __future__ import annotations

import attrs

from actions.kinds.delete_data import DeleteDataPayload
from actions.kinds.kind import payload_of
from actions.kinds.sweep_table import SweepTablePayload
from chains.entries import ActionEntry, ActionType, ExecuteEntry
from chains.log import DDLLog
from storage.catalogs.names import TableName

SCHEDULED: dict[ActionType, type[DeleteDataPayload] | type[SweepTablePayload]] = {
    ActionType.DELETE_DATA: DeleteDataPayload,
    ActionType.SWEEP_TABLE: SweepTablePayload,
}
"""The action types that wait for a due time, with their payloads (each has ``location`` and ``due``)."""


@attrs.frozen
class PendingDeletion:
    chain: int
    table: TableName | None
    location: str
    due: float
    """Seconds since the epoch."""
    statement: str
    sweep: bool = False
    """True: the sweep of an undone statement's work table (late writes), not a table version's old files."""


def pending_deletions(log: DDLLog) -> list[PendingDeletion]:
    """Every old table directory still to delete, and every sweep still to run, soonest first."""
    found = []
    for chain in log.active_chains():
        actions = log.actions_of(chain.position)
        deletion = deletion_of(actions)
        if deletion is not None:
            table, payload = deletion
            sweep = any(action.type is ActionType.SWEEP_TABLE for action in actions)
            found.append(PendingDeletion(chain.position, table, payload.location, payload.due, chain.statement, sweep))
    return sorted(found, key=lambda pending: pending.due)


def is_waiting(log: DDLLog, chain: ExecuteEntry, now: float) -> bool:
    """Whether ``chain`` is a scheduled deletion or sweep whose time has not come."""
    return waits(log.actions_of(chain.position), now)


def waits(actions: list[ActionEntry], now: float) -> bool:
    """Whether a chain of ``actions`` is a scheduled deletion or sweep whose time has not come."""
    pending = [action for action in actions if not action.done]
    return bool(pending) and all(
        action.type in SCHEDULED and payload_of(action, SCHEDULED[action.type]).due > now for action in pending)


def deletion_of(actions: list[ActionEntry]) -> tuple[TableName | None, DeleteDataPayload | SweepTablePayload] | None:
    """The table and the directory (with its due time) of a scheduled chain's actions (None for any other chain)."""
    for action in actions:
        if action.type in SCHEDULED and not action.done:
            return action.name, payload_of(action, SCHEDULED[action.type])
    return None


def _blocks_name(table: TableName | None, payload: DeleteDataPayload | SweepTablePayload) -> bool:
    """Whether the deletion's directory may be the name's default one (``<database>/<name>``), which a new table
    of the name needs: a version elsewhere stays restorable (UNDROP is then refused while the name is taken)."""
    if not isinstance(payload, DeleteDataPayload) or payload.version is None or table is None:
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
        if deletion is None or any(action.type not in SCHEDULED for action in actions):
            continue
        if is_waiting(log, chain, now) and not (deletion[0] in dropped and _blocks_name(*deletion)):
            continue
        if chain.master is not None and log.chain(chain.master).active:
            continue
        due.append(chain)
    return due
