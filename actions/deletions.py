"""Scheduled work: the DELETE_DATA chains a swap (:mod:`replace_table.plans.swap_path`) and a drop leave behind, the
SWEEP_TABLE chains an undo leaves on a cluster (:mod:`actions.kinds.sweep_table`). Such a chain is active from the
statement until its due time and then runs like any roll-forward chain; until then it is *waiting*: recovery leaves
it alone, and the statements' "active chains" do not count it."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import attrs

from actions.kinds.delete_data import DeleteDataPayload, log_delete_data
from actions.kinds.kind import payload_of
from actions.kinds.sweep_table import SweepTablePayload
from chains.entries import ActionEntry, ActionType, ChainKind, ChainState, ExecuteEntry
from chains.log import DDLLog
from storage.catalogs.kept_directories import normalized_location
from storage.catalogs.names import TableName, check_identifier
from storage.errors import InvalidNameError

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


@attrs.frozen
class NameHold:
    """A scheduled deletion whose directory is the default one of the table name ``name`` (``<database>/<name>``,
    where plain Spark puts a managed table): until it runs, plain Spark cannot make a managed table of that name
    (``LOCATION_ALREADY_EXISTS``). ``owner``: the table whose files they were; ``chain``: the deletion chain (the
    version number when ``version``)."""

    name: TableName
    location: str
    due: float
    chain: int
    owner: TableName
    version: bool


def held_name(owner: TableName | None, location: str) -> TableName | None:
    """The table name whose default directory ``location`` would be (its last part, in ``owner``'s database); None
    for a work table's directory (``ddllog_...``), a database's, or a part that is no table name. By name only:
    whether the database's directory is its parent is the catalog's to confirm."""
    if owner is None or owner.name == "*":
        return None
    try:
        return TableName(owner.db, check_identifier(normalized_location(location).rpartition("/")[2]))
    except InvalidNameError:
        return None


def name_holds(log: DDLLog, positions: Iterable[int] | None = None) -> list[NameHold]:
    """The committed scheduled deletions (of the chains at ``positions``, else of every chain) whose directory is
    named like a table, soonest first."""
    chains = log.active_chains() if positions is None else [
        log.chain(p) for p in positions if log.is_written(p) and log.chain(p).active]
    found = []
    for chain in chains:
        if chain.master is not None and log.chain(chain.master).active:
            continue  # its statement has not committed (or is being undone)
        for action in log.actions_of(chain.position):
            if action.type is not ActionType.DELETE_DATA or action.done or action.name is None:
                continue
            payload = payload_of(action, DeleteDataPayload)
            name = held_name(action.name, payload.location)
            if name is not None:
                found.append(NameHold(name, payload.location, payload.due, chain.position, action.name,
                                      payload.version is not None))
    return sorted(found, key=lambda hold: hold.due)


def release_now(log: DDLLog, holds: Sequence[NameHold], statement: str) -> int:
    """Make the holds' directories due now, durably, in one write: a roll-forward chain deleting each of them, due
    at once (recovery finishes it if the process dies before it ran), and the holds' own deletion chains
    cancelled (their versions leave the history at that instant, never half deleted). The new chain's position."""
    position = log.new_chain(ChainKind.FORWARD, statement)
    now = time.time()
    with log.batch():
        for location, owner in dict.fromkeys((hold.location, hold.owner) for hold in holds):
            log_delete_data(log, position, owner, location, now)
        for hold in holds:
            log.set_state(hold.chain, ChainState.CANCELLED)
    return position
