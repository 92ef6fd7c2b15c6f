"""Before a table is created under a name whose default directory holds a kept version of a dropped table of that
name: move the version aside (:mod:`actions.kinds.relocate_version`) instead of deleting it before its time.

Deleting it early (what this project did before) broke three promises at once for a version whose grace period had
not ended: a query still reading it, UNDROP, and a replica that had not yet copied it (found by the Spark replication
soak: source ``CREATE t``, ``DROP t``, ``CREATE t``; the lagging replica stopped, the version's files gone).

One durable write first, then the renames: a roll-forward chain with one RELOCATE_VERSION per version, and for each
version a new waiting deletion chain naming its new directory, due when the old one was, carrying the same kept
definition (moved: its locations are the new directory's) and the same version number; the old deletion chain is
cancelled in the same write. So at every instant the history lists each version once, and recovery finishes a move
a crash cut (:func:`relocate_versions`)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import attrs

from actions.context import ActionContext
from actions.deletions import NameHold
from actions.errors import ActionFailedError
from actions.kinds.delete_data import DeleteDataPayload, log_delete_data
from actions.kinds.kind import payload_of
from actions.kinds.relocate_version import log_relocate_version
from actions.replay import replay_chain
from chains.entries import ActionType, ChainKind, ChainState
from storage import crashpoints
from storage.catalogs.version_moves import kept_location

LOGGED = crashpoints.declare("relocate_version.logged",
                             "the moves of a dropped table's kept versions are logged; none has run")


def relocate_versions(ctx: ActionContext, holds: Sequence[NameHold], statement: str) -> list[NameHold]:
    """Move the kept versions of ``holds`` (versions at their table name's directory) aside, durably logged first;
    returns the holds left to the caller's deletion (all of them when the catalog cannot move directories). The
    proof that nothing in the catalog uses a directory is the move's own (one metastore scan, as a deletion's): one
    in use stays, and its version leaves the history. A move that fails stays logged: recovery retries it, and the
    caller's CREATE then meets the directory as Spark would."""
    mover = ctx.catalog.directories.version_mover()
    if not holds:
        return list(holds)
    log = ctx.log
    position = log.new_chain(ChainKind.FORWARD, statement)
    with log.batch():
        for hold in holds:
            deletion_action = next(action for action in log.actions_of(hold.chain)
                                   if action.type is ActionType.DELETE_DATA and not action.done)
            payload = payload_of(deletion_action, DeleteDataPayload)
            assert payload.version is not None
            deletion = log.new_chain(ChainKind.FORWARD, log.chain(hold.chain).statement)
            to = kept_location(hold.location, deletion, hold.owner.name)
            number = hold.chain if payload.version.number is None else payload.version.number
            kept = attrs.evolve(payload.version, definition=mover.moved_definition(payload.version.definition, to),
                                number=number)
            log_delete_data(log, deletion, hold.owner, to, payload.due, kept)
            log_relocate_version(log, position, hold.owner, hold.location, to, deletion)
            log.set_state(hold.chain, ChainState.CANCELLED)
    LOGGED()
    with contextlib.suppress(ActionFailedError):  # logged: recovery moves it; the CREATE meets the directory as is
        replay_chain(ctx, position)
    return []
