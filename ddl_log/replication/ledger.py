"""Who each replicated table and view is on the replica, as the replica's own statements left it: so that a table
dropped or replaced there by hand (plain Spark, another tool) stops the applier before a source event touches it,
instead of the event applying to an object that is not the replica's (an ALTER, RENAME or TRUNCATE would succeed on
a table someone made by hand, and the catalogs would drift apart silently).

The ledger (``replication/identities.json``) is written after each statement the replica runs for its source (an
applied event, a bootstrap's or a resync's copy), with the identity of every table or view that statement names
(None: absent). A crash between a statement's commit and the ledger's write leaves the entries of that statement's
objects stale, and only those: :meth:`Ledger.settle` takes the catalog's word for the objects of the event at the
replica's position when the applier starts. A crash inside an apply is undone by recovery, which puts each object
back as it was: a table with its own tag, a view with its definition (a view's identity in the catalog is renewed when
it is created again, so the ledger keeps a view's definition instead). An object the ledger has no entry for is not
checked (the engine's own errors still stop the applier).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable

import attrs

from storage.catalogs.interface import TAG_PROPERTY
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog

LEDGER_FILE = "identities.json"


def names_of(objects: Iterable[str]) -> list[TableName]:
    """The tables and views among a statement's objects (``db.name``; a database's name alone is left out)."""
    return [TableName.of(item, allow_reserved=True) for item in objects if "." in item]


class Ledger:
    def __init__(self, directory: str) -> None:
        self.path = os.path.join(directory, LEDGER_FILE)
        try:
            with open(self.path, encoding="utf-8") as handle:
                self.entries: dict[str, str | None] = json.load(handle)
        except FileNotFoundError:
            self.entries = {}

    @staticmethod
    def identity(catalog: Catalog, name: TableName) -> str | None:
        found = catalog.names.identity(name)
        if found is not None:
            return found
        view = catalog.views.view_definition(name)
        if view is None:
            return None
        kept = tuple((k, v) for k, v in view.properties if k != TAG_PROPERTY)
        return "view:" + hashlib.sha256(repr(attrs.evolve(view, properties=kept)).encode()).hexdigest()[:20]

    def changed_by_hand(self, catalog: Catalog, names: Iterable[TableName]) -> tuple[TableName, str] | None:
        """The first of ``names`` that is not what the replica left (and how), or None."""
        for name in names:
            if str(name) not in self.entries:
                continue
            expected, present = self.entries[str(name)], self.identity(catalog, name)
            if expected != present:
                how = "dropped" if present is None else ("created" if expected is None else "replaced")
                return name, how
        return None

    def note(self, catalog: Catalog, names: Iterable[TableName]) -> None:
        """Record what ``names`` are now (after a statement of the replica committed)."""
        changed = False
        for name in names:
            identity = self.identity(catalog, name)
            if self.entries.get(str(name), "") != identity:
                self.entries[str(name)] = identity
                changed = True
        if changed:
            self.write()

    def forget_database(self, db: str) -> None:
        """A whole database was dropped or made: its objects' entries no longer say anything."""
        self.entries = {name: identity for name, identity in self.entries.items() if name.partition(".")[0] != db}
        self.write()

    def write(self) -> None:
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        temporary = f"{self.path}.tmp.{os.getpid()}"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(self.entries, handle, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)

    def settle(self, catalog: Catalog, names: Iterable[TableName]) -> None:
        """Take the catalog's word for ``names`` (the objects of the last applied event, whose entries a crash may
        have left stale)."""
        self.note(catalog, names)
