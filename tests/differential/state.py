"""The whole state one side's statements can leave behind, read after every statement and compared across sides.

Per database of the side (its main one and every ``<main>_<key>`` one): the database's comment and properties; every
table's definition, partitions and rows (:mod:`tests.definitions`, which normalises away what no statement must
keep); every view's text, columns, comment, properties and rows; every function's definition. Per session: the
current database and the temporary views with their rows. Side names are put back to placeholders
(:func:`~tests.differential.script.normalise`), so equal states compare equal.

Reading rows costs a Spark job per table: a table's rows are read again only when its definition, partitions or
files changed (:class:`RowCache`), since rows are a function of those.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import attrs

from storage.catalogs.spark.profile import local_path
from tests.definitions import partitions, rows, table_definition
from tests.differential.outcomes import classify
from tests.differential.script import normalise
from tests.spark.sweep_support import scala_strings

HIDDEN_PROPERTIES = ("transient_", "spark_ddl_log.")


def clean(value: Any) -> Any:
    """``value`` with every string normalised (side databases as placeholders), attrs records as dicts."""
    if attrs.has(type(value)):
        return clean(attrs.asdict(value, recurse=False))
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, dict):
        return {clean(key): clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(clean(item) for item in value)
    return value


def files_of(location: str) -> tuple[tuple[str, int, int], ...]:
    """(relative path, size, modification time) of every file under a local table directory."""
    path = local_path(location)
    if path is None or not path.is_dir():
        return ()
    found = []
    for root, _, names in os.walk(path):
        for name in names:
            full = Path(root) / name
            stat = full.stat()
            found.append((str(full.relative_to(path)), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(found))


class RowCache:
    """Rows per (table, definition, partitions, files): read again only when one of those changed."""

    def __init__(self) -> None:
        self.known: dict[Any, Any] = {}

    def rows(self, session: Any, db: str, name: str, signature: Any) -> Any:
        key = (db, name, signature)
        if key not in self.known:
            self.known = {k: v for k, v in self.known.items() if k[:2] != (db, name)}
            self.known[key] = read_rows(session, db, name)
        return self.known[key]


def read_rows(session: Any, db: str, name: str) -> Any:
    try:
        return tuple(rows(session, db, name))
    except Exception as error:  # noqa: BLE001 - a table or view that cannot be read is part of the state
        return ("unreadable", classify(error).label)


def filtered(properties: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in sorted(properties.items()) if not key.startswith(HIDDEN_PROPERTIES)}


def scala_map(scala: Any) -> dict[str, str]:
    keys = scala_strings(scala.keys())
    return {key: str(scala.apply(key)) for key in keys}


def snapshot(session: Any, prefix: str, cache: RowCache) -> dict[str, Any]:
    """Everything the side with main database ``prefix`` holds, normalised."""
    external = session._jsparkSession.sharedState().externalCatalog()
    state: dict[str, Any] = {"current database": normalise(str(session.catalog.currentDatabase()))}
    for db in scala_strings(external.listDatabases()):
        if db == prefix or db.startswith(prefix + "_"):
            state[f"database {normalise(db)}"] = database_state(session, external, db, cache)
    state.update(temporary_views(session))
    return state


CREATE_TIME = re.compile(r'("sqlFunction\.createTime":")\d+(")')
"""A SQL function's creation time in the properties Spark 4.3 keeps among its resources: when, not what."""


def temporary_views(session: Any) -> dict[str, Any]:
    """The session's temporary views with their rows."""
    catalog = session._jsparkSession.sessionState().catalog()
    temporary = catalog.listLocalTempViews("*")
    names = [str(temporary.apply(index).table()) for index in range(temporary.size())]
    return {f"temporary view {name}": temp_rows(session, name) for name in names}


def temp_rows(session: Any, name: str) -> Any:
    try:
        return tuple(sorted(tuple(str(v) for v in row) for row in session.table(f"`{name}`").collect()))
    except Exception as error:  # noqa: BLE001 - part of the state
        return ("unreadable", classify(error).label)


def database_state(session: Any, external: Any, db: str, cache: RowCache) -> dict[str, Any]:
    found = external.getDatabase(db)
    state: dict[str, Any] = {
        "comment": normalise(str(found.description())),
        "properties": clean(filtered(scala_map(found.properties()))),
    }
    views = set(scala_strings(external.listViews(db, "*")))
    for name in scala_strings(external.listTables(db)):
        if name in views:
            state[f"view {name}"] = view_state(session, external, db, name)
        else:
            state[f"table {name}"] = table_state(session, external, db, name, cache)
    for name in scala_strings(external.listFunctions(db, "*")):
        function = external.getFunction(db, name)
        resources = [function.resources().apply(i) for i in range(function.resources().size())]
        state[f"function {name}"] = {
            "class": str(function.className()),
            "resources": tuple(normalise(CREATE_TIME.sub(r"\1<time>\2", f"{item.resourceType().resourceType()} "
                                                                         f"{item.uri()}")) for item in resources),
        }
    return state


def table_state(session: Any, external: Any, db: str, name: str, cache: RowCache) -> dict[str, Any]:
    definition = table_definition(session, db, name)
    parts = partitions(session, db, name)
    location = str(external.getTable(db, name).storage().locationUri().get().toString())
    return {
        "definition": clean(definition),
        "partitions": clean(parts),
        "rows": cache.rows(session, db, name, (definition, parts, files_of(location))),
    }


def view_state(session: Any, external: Any, db: str, name: str) -> dict[str, Any]:
    view = external.getTable(db, name)
    text = view.viewText()
    comment = view.comment()
    return {
        "text": normalise(str(text.get())) if text.isDefined() else None,
        "schema": normalise(str(view.schema().json())),
        "comment": str(comment.get()) if comment.isDefined() else None,
        "properties": clean(filtered(scala_map(view.properties()))),
        "rows": read_rows(session, db, name),
    }


def differences(plain: Any, atomic: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, plain value, atomic value) of every leaf where the two states differ."""
    if isinstance(plain, dict) and isinstance(atomic, dict):
        found = []
        for key in sorted(set(plain) | set(atomic), key=str):
            where = f"{path}/{key}" if path else str(key)
            if key not in plain or key not in atomic:
                found.append((where, plain.get(key, "<absent>"), atomic.get(key, "<absent>")))
            else:
                found.extend(differences(plain[key], atomic[key], where))
        return found
    return [] if plain == atomic else [(path, plain, atomic)]
