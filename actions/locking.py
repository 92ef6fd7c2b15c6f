"""What recovery locks before it replays a chain: the keys a statement with those actions held (each action type's
lock scope is part of its kind, :mod:`actions.kinds`; the keys of objects are :mod:`chains.lock_keys`)."""

from __future__ import annotations

from collections.abc import Iterable

from actions.kinds import kind_of
from chains.entries import ActionEntry
from chains.lock_keys import LockKeys, database_key, function_key, object_key


def chain_keys(actions: Iterable[ActionEntry]) -> LockKeys:
    """The keys a statement with these actions held: what recovery takes before it replays the chain, so that it
    never runs beside a statement on the same objects."""
    exclusive: list[str] = []
    shared: list[str] = []
    for action in actions:
        scope = kind_of(action.type).locks
        for name in (action.name, action.from_name):
            if name is None or scope == "none":
                continue
            if scope == "database":
                exclusive.append(database_key(name.db))
                continue
            exclusive.append(function_key(name) if scope == "function" else object_key(name))
            shared.append(database_key(name.db))
    return LockKeys(tuple(exclusive), tuple(shared))
