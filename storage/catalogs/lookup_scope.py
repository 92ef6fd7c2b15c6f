"""A statement's scope for reusing metastore lookups: inside :func:`reuse_lookups`, a catalog may answer a second
lookup of a name from the first one instead of asking the metastore again.

Why: a DROP TABLE looks its tables up under the statement's metadata locks (to log their identities), then drops
them by identity, which looks them up again; a RENAME looks up the target name once to see that no table and once
that no view holds it. Inside one statement those answers cannot have changed through this driver (it holds the
locks, and the catalog forgets a name as soon as it renames or drops it); another driver could change them, but no
more than between a lookup and the statement that follows it. The scope never outlives the statement: across
statements another driver may have changed anything.

Catalogs that keep no such cache ignore the scope. Scopes are per thread (and per asyncio task): a context variable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

_SCOPE: ContextVar[dict[tuple[int, Any], Any] | None] = ContextVar("spark_ddl_log_lookup_scope", default=None)

MISSING_ENTRY = object()
"""What :func:`cached` returns for a name not looked up in this scope (None is a valid answer: nothing there)."""


@contextlib.contextmanager
def reuse_lookups() -> Iterator[None]:
    """Let lookups made until the block ends be reused (a nested block shares the outer block's cache)."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def cached(owner: object, key: Any) -> Any:
    """The answer ``owner`` stored for ``key`` in the current scope; :data:`MISSING_ENTRY` if none (or no scope)."""
    scope = _SCOPE.get()
    if scope is None:
        return MISSING_ENTRY
    return scope.get((id(owner), key), MISSING_ENTRY)


def held(owner: object, key: Any) -> bool:
    """Whether ``owner`` found something under ``key`` in the current scope (so its database exists, say)."""
    known = cached(owner, key)
    return known is not MISSING_ENTRY and known is not None


def remember(owner: object, key: Any, value: Any) -> None:
    """Store ``value`` as ``owner``'s answer for ``key`` until the scope ends (a no-op outside a scope)."""
    scope = _SCOPE.get()
    if scope is not None:
        scope[(id(owner), key)] = value


def forget(owner: object, *keys: Any) -> None:
    """Drop ``owner``'s answers for ``keys``: call it before changing what they describe."""
    scope = _SCOPE.get()
    if scope is not None:
        for key in keys:
            scope.pop((id(owner), key), None)
