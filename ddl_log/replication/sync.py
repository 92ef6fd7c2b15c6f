"""A copy of source objects at one known source position, on a live source: what bootstrap and ``resync`` share.

A round reads the source's binlog head ``H1``, then the definitions of every object in scope (tables with where their
files are), copies onto the replica what differs from what it holds, reads the definitions again, then the head
``H2``. The copy is the source's state at ``H1`` when nothing in scope changed in between: the two reads agree, no
source event in ``(H1, H2]`` names an object of the scope (a create, drop or rename of another name in the
databases counts: the object lists would differ at ``H1``), and the source's DDL log has no statement in flight or
interrupted on them (its catalog change may precede its commit, or be undone). Otherwise another round copies again
what changed (only that: a copy made in an earlier round stands while no event touched its object since), up to a
bounded number of rounds (:class:`SnapshotNotConsistentError`). The files copied are those of the definition read:
a replaced or dropped version's files stay for the source's grace period, so they do not go away under the copy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import attrs

from chains.binlog import BinlogEvent
from chains.log import LOG_FILE, LOG_MAGIC
from chains.log_state import replay_records
from ddl_log.replication.errors import SnapshotNotConsistentError
from ddl_log.replication.follow import Filters, event_tables
from ddl_log.replication.source import Source
from storage.catalogs.names import TableName
from storage.records.home import home_stores

Key = tuple[str, TableName | str]
"""An object of a scope: (``database``, name) or (``table`` | ``view`` | ``function``, TableName)."""


@attrs.frozen
class Copied:
    """What the replica holds of one source object: the fingerprint of the definition it copied, and the source
    position of the round that copied it (events after it that touch the object make it stale)."""

    fingerprint: str
    at: int


def keys_of(names: Iterable[TableName]) -> set[Key]:
    return {(kind, name) for name in names for kind in ("table", "view", "function")}


def touched(events: Iterable[BinlogEvent], in_scope: Callable[[TableName | str], bool]) -> set[Key]:
    """The scope's objects the events name (an event on a whole database names each of its objects)."""
    found: set[Key] = set()
    for event in events:
        names, databases = event_tables(event)
        found |= keys_of(name for name in names if in_scope(name))
        found |= {("database", db) for db in databases if in_scope(db) and not any(n.db == db for n in names)}
    return found


def interrupted(source: Source) -> set[TableName | str]:
    """The objects of statements in flight or interrupted in the source's DDL log (read without its lock; a database
    home: the driver the URL names). Scheduled deletions of old files do not count: they change no definition."""
    from actions.deletions import deletion_of
    from actions.kinds import kind_of

    location = getattr(source, "location", source.path)
    try:
        store = home_stores(location)[0]
        if not store.exists(LOG_FILE):
            return set()
        records, _, _ = store.read(LOG_FILE, LOG_MAGIC)
    except Exception:  # noqa: BLE001 - a log being compacted or rewritten: read again next round
        return {"*"}
    state, _ = replay_records(records, lambda offset, error: None)
    found: set[TableName | str] = set()
    for chain in state.chains.values():
        if chain.state.name != "ACTIVE":
            continue
        actions = [state.actions[a] for a in chain.actions if a in state.actions]
        if deletion_of(actions) is not None:
            continue
        for action in actions:
            whole_database = kind_of(action.type).locks == "database"
            for name in (action.name, action.from_name):
                if name is not None:
                    found.add(name.db if whole_database else name)
    return found


def changed_between(first: dict[Key, str], second: dict[Key, str]) -> set[Key]:
    return {key for key in first.keys() | second.keys() if first.get(key) != second.get(key)}


def stale(copied: dict[Key, Copied], events: list[BinlogEvent], target: Callable[[Key], Key]) -> set[Key]:
    """Copies made before a source event that touched their object."""
    found: set[Key] = set()
    for event in events:
        for key in touched([event], lambda name: True):
            mapped = target(key)
            entry = copied.get(mapped)
            if entry is not None and entry.at < event.seq:
                found.add(mapped)
            if key[0] == "database":
                found |= {k for k, entry in copied.items() if _db_of(k) == mapped[1] and entry.at < event.seq}
    return found


def _db_of(key: Key) -> str:
    return key[1] if isinstance(key[1], str) else key[1].db


def target_key(filters: Filters) -> Callable[[Key], Key]:
    def target(key: Key) -> Key:
        kind, name = key
        return (kind, filters.target(name) if isinstance(name, TableName) else filters.target_db(name))
    return target


def rounds(source: Source, read: Callable[[], dict[Key, str]], copy: Callable[[int], None],
           in_scope: Callable[[TableName | str], bool], *, what: str, attempts: int,
           forget: Callable[[set[Key]], None]) -> int:
    """Run rounds until one shows a copy consistent with one source position; that position. ``read``: the
    fingerprints of the scope's objects; ``copy(at)``: copy what differs; ``forget``: these keys (source names)
    changed, copy them again."""
    changed: set[Key] = set()
    for attempt in range(1, attempts + 1):
        before = source.head().seq
        busy = {item for item in interrupted(source) if item == "*" or in_scope(item)}
        first = read()
        copy(before)
        second = read()
        busy |= {item for item in interrupted(source) if item == "*" or in_scope(item)}
        after = source.head().seq
        window = [event for event in source.events_after(before) if event.seq <= after]
        changed = changed_between(first, second) | touched(window, in_scope)
        changed |= {key for item in busy for key in (keys_of([item]) if isinstance(item, TableName)
                                                    else {("database", item)})}
        if not changed:
            return before
        forget(changed)
        time.sleep(min(2.0, 0.1 * 2 ** attempt))
    names = sorted({str(name) for _, name in changed})
    raise SnapshotNotConsistentError(what, attempts, names)
