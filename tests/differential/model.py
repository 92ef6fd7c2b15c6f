"""The generator's guess of what exists while it writes a script, so that most statements name objects that exist
(a random script of statements on missing objects would only test error paths).

The guess is never checked against Spark: a statement the generator expects to succeed may fail (that is fine,
both sides are compared anyway); the model only steers the choice of names, columns and partition values. It is
updated as the generator writes, so a seed always gives the same script, whatever the product does.
"""

from __future__ import annotations

import random

import attrs

from tests.differential.script import MAIN, Name
from tests.differential.vocabulary import BAD_TABLES, DATABASES, FUNCTIONS, TABLES, VIEWS, quote


@attrs.define
class Column:
    ident: str
    type: str

    @property
    def sql(self) -> str:
        return quote(self.ident)


@attrs.define
class Table:
    columns: list[Column]
    """Data columns, then partition columns (Spark's order)."""
    partitioned: list[str] = attrs.Factory(list)
    bucketed: bool = False

    def data_columns(self) -> list[Column]:
        return [column for column in self.columns if column.ident not in self.partitioned]

    def partition_columns(self) -> list[Column]:
        return [column for column in self.columns if column.ident in self.partitioned]


@attrs.define
class Database:
    tables: dict[str, tuple[str, Table]] = attrs.Factory(dict)
    """lower-case name -> (the name as first written, the table)."""
    views: dict[str, tuple[str, list[str]]] = attrs.Factory(dict)
    functions: set[str] = attrs.Factory(set)

    def used(self, ident: str) -> bool:
        return ident.lower() in self.tables or ident.lower() in self.views


@attrs.define
class Model:
    rng: random.Random
    databases: dict[str, Database] = attrs.Factory(lambda: {MAIN: Database()})
    current: str = MAIN
    temp_views: set[str] = attrs.Factory(set)

    def db(self, key: str | None = None) -> Database:
        """The database ``key`` (None: the current one); an empty stand-in when it does not exist."""
        return self.databases.get(self.current if key is None else key) or Database()

    def exists(self, key: str | None) -> bool:
        return (self.current if key is None else key) in self.databases

    def name(self, ident: str, db: str) -> Name:
        """How the script writes ``ident`` of database ``db``: qualified when it is not the current database
        (and now and then anyway), backquoted when it must be (and now and then anyway)."""
        qualified = db != self.current or self.rng.random() < 0.12
        quoted = quote(ident) != ident or self.rng.random() < 0.08
        return Name(ident, db if qualified else None, quoted)

    def lookup(self, name: Name) -> Table | None:
        key = self.current if name.db is None else name.db
        if key not in self.databases:
            return None
        found = self.databases[key].tables.get(name.ident.lower())
        return None if found is None else found[1]

    def existing_tables(self) -> list[tuple[str, str]]:
        """(database key, name) of every table the model knows, the current database's first."""
        every = [(key, written) for key, database in self.databases.items()
                 for written, _ in database.tables.values()]
        return sorted(every, key=lambda item: item[0] != self.current)

    def pick_table(self, *, existing: float = 0.88) -> Name:
        """A table name: with probability ``existing`` one that exists (a view's name or a missing one otherwise,
        as a user's mistake)."""
        tables = self.existing_tables()
        if tables and self.rng.random() < existing:
            key, written = self.rng.choice(tables[:4] if self.rng.random() < 0.7 else tables)
            return self.name(written, key)
        views = [written for written, _ in self.db().views.values()]
        if views and self.rng.random() < 0.5:
            return self.name(self.rng.choice(views), self.current)
        return self.name(self.rng.choice(TABLES), self.current)

    def pick_new(self, pool: tuple[str, ...], *, clash: float = 0.12) -> Name:
        """A name for a new object: a free one, or with probability ``clash`` one in use (by a table or a view), or
        for a table now and then one Spark refuses."""
        database = self.db()
        if pool == TABLES and self.rng.random() < 0.03:
            return self.name(self.rng.choice(BAD_TABLES), self.current)
        free = [ident for ident in pool if not database.used(ident)]
        if free and self.rng.random() >= clash:
            return self.name(self.rng.choice(free), self.current)
        used = [written for written, _ in [*database.tables.values(), *database.views.values()]]
        return self.name(self.rng.choice(used or list(pool)), self.current)

    def pick_view(self, *, existing: float = 0.85) -> Name:
        views = [written for written, _ in self.db().views.values()]
        if views and self.rng.random() < existing:
            return self.name(self.rng.choice(views), self.current)
        tables = [written for written, _ in self.db().tables.values()]
        if tables and self.rng.random() < 0.5:
            return self.name(self.rng.choice(tables), self.current)
        return self.name(self.rng.choice(VIEWS), self.current)

    def pick_function(self, *, existing: float = 0.8) -> Name:
        functions = sorted(self.db().functions)
        if functions and self.rng.random() < existing:
            return self.name(self.rng.choice(functions), self.current)
        return self.name(self.rng.choice(FUNCTIONS), self.current)

    def pick_database(self, *, existing: float = 0.7) -> str:
        others = [key for key in self.databases if key != MAIN]
        if others and self.rng.random() < existing:
            return self.rng.choice(others)
        return self.rng.choice(DATABASES)

    # -- what a statement is expected to do (only when it is expected to succeed)

    def add_table(self, name: Name, table: Table) -> None:
        if self.exists(name.db) and not self.db(name.db).used(name.ident):
            self.db(name.db).tables[name.ident.lower()] = (name.ident, table)

    def replace_table(self, name: Name, table: Table) -> None:
        if self.exists(name.db) and name.ident.lower() not in self.db(name.db).views:
            self.db(name.db).tables[name.ident.lower()] = (name.ident, table)

    def drop_table(self, name: Name) -> None:
        if self.exists(name.db):
            self.db(name.db).tables.pop(name.ident.lower(), None)

    def rename_table(self, old: Name, new: Name) -> None:
        if not self.exists(old.db):
            return
        database = self.db(old.db)
        found = database.tables.get(old.ident.lower())
        if found is not None and not database.used(new.ident):
            del database.tables[old.ident.lower()]
            database.tables[new.ident.lower()] = (new.ident, found[1])

    def add_view(self, name: Name, columns: list[str]) -> None:
        if self.exists(name.db) and name.ident.lower() not in self.db(name.db).tables:
            self.db(name.db).views[name.ident.lower()] = (name.ident, columns)

    def drop_view(self, name: Name) -> None:
        if self.exists(name.db):
            self.db(name.db).views.pop(name.ident.lower(), None)

    def rename_view(self, old: Name, new: Name) -> None:
        if not self.exists(old.db):
            return
        database = self.db(old.db)
        found = database.views.pop(old.ident.lower(), None)
        if found is not None:
            database.views[new.ident.lower()] = (new.ident, found[1])

    def columns_of(self, name: Name) -> list[str]:
        """The column names a SELECT * of ``name`` yields, as far as the model knows."""
        table = self.lookup(name)
        if table is not None:
            return [column.ident for column in table.columns]
        found = self.db(name.db).views.get(name.ident.lower()) if self.exists(name.db) else None
        return list(found[1]) if found else []
