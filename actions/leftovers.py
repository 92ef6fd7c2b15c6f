"""Leftovers: files at a table name's default directory that no table owns, which an undo or a drop removes
(``Directories.clean_leftovers``), unless a log keeps them. A kept version of a replaced or dropped table is exactly
such a directory to the catalog (found by the short soak: the undo of a refused rename-path replace deleted the
table's own kept version at ``<db>/<name>``), so every clean-up asks here first: this home's log (a scheduled
deletion still keeps it) and every home's note in the directory (drivers share one catalog, each with its own log;
found by the Spark replication soak)."""

from __future__ import annotations

from collections.abc import Mapping

from actions.context import ActionContext
from chains.entries import ActionEntry, ActionType
from chains.errors import PayloadError
from chains.log import DDLLog
from storage.catalogs.kept_directories import normalized_location
from storage.catalogs.names import TableName
from storage.catalogs.ports import Directories
from storage.errors import DDLLogError


def clean_leftovers_of(ctx: ActionContext, name: TableName) -> None:
    """``Directories.clean_leftovers`` of ``name``, unless its default directory is one a log keeps or another table
    reads (after ALTER SCHEMA SWAP WITH, ``b.x`` reads the directory ``a.x`` was written in: only its record
    moved)."""
    location = ctx.catalog.names.default_location(name)
    if location is not None and (kept_by_this_log(ctx.log, location) or kept_by_a_home(ctx.catalog.directories,
                                                                                       location)
                                 or used_by_a_table(ctx.catalog.directories, location)):
        return
    ctx.catalog.directories.clean_leftovers(name)


def used_by_a_table(directories: Directories, location: str) -> bool:
    """Whether the catalog says a table, a partition or a database uses ``location`` (or cannot say: nothing is
    deleted on a guess)."""
    try:
        return directories.directory_user(location) is not None
    except DDLLogError:
        return True


def kept_by_this_log(log: DDLLog, location: str) -> bool:
    """Whether a scheduled deletion of ``log`` still keeps ``location`` (a kept version, old files for readers)."""
    target = normalized_location(location)
    return any(action.type is ActionType.DELETE_DATA and not action.done and normalized_location(kept(action)) == target
               for chain in log.active_chains() for action in log.actions_of(chain.position))


def kept(action: ActionEntry) -> str:
    """The directory a DELETE_DATA action keeps until it is due, read as strictly as its kind reads it. Read from the
    payload's map here: the kinds that clean leftovers import this module, so it cannot import the kind's payload
    class (an import circle)."""
    payload = action.payload
    location = payload.get("location") if isinstance(payload, Mapping) else None
    if not isinstance(location, str):
        raise PayloadError(f"the DELETE_DATA payload of action {action.id} has no 'location' field")
    return location


def kept_note(directories: Directories, location: str) -> str | None:
    """The kept-version note inside ``location``, written by whichever home keeps it (None: none, or a catalog
    that cannot write notes); raises the catalog's :class:`DDLLogError` when it cannot be read."""
    return directories.read_kept_note(location)


def kept_by_a_home(directories: Directories, location: str) -> bool:
    """A kept version's note is inside ``location``: a home's log keeps it, maybe another home's. A note that cannot
    be read counts as one: nothing is deleted on a guess."""
    try:
        return kept_note(directories, location) is not None
    except DDLLogError:
        return True
