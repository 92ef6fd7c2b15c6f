"""The metadata-lock keys of objects: what a statement locks (its objects exclusively, their databases shared),
computed before it logs anything; what recovery locks before it replays a chain is :func:`actions.locking.chain_keys`
(each action type's lock scope is part of its kind)."""

from __future__ import annotations

import attrs

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
