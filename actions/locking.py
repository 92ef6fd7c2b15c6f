"""The metadata-lock keys of objects and of logged actions: what a statement locks, and what recovery locks before it
replays a chain (each action type's lock scope is part of its kind, :mod:`actions.kinds`)."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from actions.kinds import kind_of
from chains.entries import ActionEntry
from storage.catalogs.names import TableName


def object_key(name: TableName) -> str:
    """A table or view (one namespace in Spark's catalog)."""
    return f"{name.db}\x00{name.name}"


def database_key(db: str) -> str:
    return f"{db}"


def function_key(name: TableName) -> str:
    return "function:" + object_key(name)


@attrs.frozen
class LockKeys:
    """What a statement locks: ``exclusive`` keys (its objects) and ``shared`` ones (their databases)."""

    exclusive: tuple[str, ...] = ()
    shared: tuple[str, ...] = ()

    @classmethod
    def objects(cls, *names: TableName) -> LockKeys:
        return cls(tuple(object_key(n) for n in names), tuple(database_key(n.db) for n in names))

    @classmethod
    def functions(cls, *names: TableName) -> LockKeys:
        return cls(tuple(function_key(n) for n in names), tuple(database_key(n.db) for n in names))

    @classmethod
    def database(cls, db: str) -> LockKeys:
        return cls((database_key(db),))


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
