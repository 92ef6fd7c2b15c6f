"""Where Spark 4 looks up a name written in a statement, so that the SQL front end acts on exactly the object plain
Spark would act on, or leaves the statement to Spark.

Spark's rules, as checked against Spark 4.0 (tests/spark/test_frontend_name_resolution.py runs each statement on
plain Spark and through the front end and compares):

* A one-part name is looked up in the current catalog and namespace; a longer name whose first part is a registered
  catalog (``spark_catalog``, any case, or one with a ``spark.sql.catalog.<name>`` setting, exact case) is
  catalog-qualified, any other is namespace-qualified in the current catalog. ``global_temp.x`` names a global
  temporary view. The session catalog takes exactly one namespace part (anything else is a Spark error).
* Statements on an existing relation (DROP TABLE/VIEW, ALTER TABLE/VIEW, TRUNCATE, INSERT OVERWRITE) look a one-part
  name up among the temporary views first; CREATE targets never are temporary views.
* ``CREATE TABLE t LIKE s`` is a Spark v1 command: at most two parts, a one-part name in the session catalog's current
  database (whatever the current catalog), the source a temporary view first.
* ``ALTER TABLE|VIEW a RENAME TO b``: an unqualified ``b`` stays in ``a``'s database; another database, or a
  catalog-qualified ``b``, is a Spark error.
* ``DROP FUNCTION f`` with a built-in or temporary function ``f`` is a Spark error (it asks for a qualified name).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal, Protocol

import attrs

from storage.catalogs.names import DEFAULT_DATABASE, SESSION_CATALOG, TableName, quote_ident

GLOBAL_TEMP_DATABASE = "global_temp"

NameKind = Literal["object", "relation", "v1", "v1_relation", "function", "database", "new_name"]
"""How Spark looks a name up: ``object`` a CREATE target; ``relation`` an existing table or view (temporary views
first); ``v1`` / ``v1_relation`` the target / source of CREATE TABLE LIKE; ``function`` the function of DROP
FUNCTION; ``database`` a namespace; ``new_name`` the new name of ALTER TABLE|VIEW ... RENAME TO."""

Where = Literal["session", "outside", "spark_error", "unknown"]
"""``session``: an object of the session catalog, which the DDL log manages; ``outside``: another catalog, or a
temporary view (Spark's own business); ``spark_error``: Spark refuses the statement for this name; ``unknown``: the
front end cannot tell where Spark would put it."""


@attrs.frozen
class Target:
    """Where one name of a statement lies. ``text``: for ``session`` the backquoted ```db`.`name` `` (the database
    alone for a namespace); otherwise what it is, for messages."""

    where: Where
    text: str
    db: str = ""
    name: str = ""
    """For a session-catalog object, its name in ``db`` (empty for a database)."""

    @property
    def in_session(self) -> bool:
        return self.where == "session"

    @property
    def value(self) -> TableName | str:
        """What a statement takes for this name: the object's parsed name, or a database's name."""
        return TableName(self.db, self.name) if self.name else self.db


class SessionFacts(Protocol):
    """What name resolution needs to know about the session (asked lazily, at most once per statement run)."""

    def current_catalog(self) -> str: ...

    def current_database(self) -> str: ...

    def is_catalog(self, part: str) -> bool: ...

    def global_temp_database(self) -> str: ...

    def is_temp_view(self, name: str) -> bool: ...

    def is_builtin_or_temp_function(self, name: str) -> bool: ...

    def relation_exists(self, name: str) -> bool:
        """Whether the one-part ``name`` resolves to a table or view (temporary views first, then the current
        database), as Spark resolves a relation."""


class NoSparkFacts:
    """A DDL log on a custom catalog and no Spark session: the session catalog, the default database, nothing
    temporary (starting Spark just to ask would defeat the custom catalog)."""

    def current_catalog(self) -> str:
        return SESSION_CATALOG

    def current_database(self) -> str:
        return DEFAULT_DATABASE

    def is_catalog(self, part: str) -> bool:
        return part.lower() == SESSION_CATALOG

    def global_temp_database(self) -> str:
        return GLOBAL_TEMP_DATABASE

    def is_temp_view(self, name: str) -> bool:
        return False

    def is_builtin_or_temp_function(self, name: str) -> bool:
        return False

    def relation_exists(self, name: str) -> bool:
        return False  # the custom catalog's: no relation resolves as Spark's would


def _quoted_if_needed(part: str) -> str:
    """A namespace part as ``current_database()`` shows it (Spark's ``quoteIfNeeded``)."""
    if re.fullmatch(r"[a-zA-Z0-9_]+", part) and not part.isdigit():
        return part
    return "`" + part.replace("`", "``") + "`"


class SparkFacts:
    """Facts read from a SparkSession (classic or Connect) through its public API (a classic session's temporary
    views from its session catalog, where SHOW VIEWS cost a query), each at most once: the
    session does not change under a DDL-log statement, and the front end makes a new one after every statement it
    hands to Spark (``USE``, ``SET CATALOG``, ``CREATE TEMPORARY VIEW`` ... may have moved it)."""

    def __init__(self, spark: Callable[[], Any]) -> None:
        self._spark = spark
        self._cache: dict[tuple[str, str], Any] = {}

    def _once(self, key: tuple[str, str], compute: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def _conf(self, key: str) -> str | None:
        value = self._once(("conf", key), lambda: self._spark().conf.get(key, None))
        return None if value is None else str(value)

    def _where(self) -> tuple[str, str]:
        # The session's catalog manager reads spark.sql.defaultCatalog from the thread's active session, which need
        # not be this one (spark.catalog.currentCatalog() is wrong so): a classic session is made the JVM thread's
        # active one for the few Py4J calls that ask it, as a query runs with its session active; Spark Connect is
        # asked in SQL.
        def ask() -> tuple[str, str]:
            spark = self._spark()
            from storage.catalogs.spark.engine import session_position  # Spark's modules only where Spark runs

            classic = session_position(spark)
            if classic is not None:
                catalog, namespace = classic
                return catalog, ".".join(_quoted_if_needed(part) for part in namespace)
            row = spark.sql("SELECT current_catalog(), current_database()").collect()[0]
            return str(row[0]), str(row[1])

        where: tuple[str, str] = self._once(("where", ""), ask)
        return where

    def current_catalog(self) -> str:
        return self._where()[0]

    def current_database(self) -> str:
        return self._where()[1]

    def is_catalog(self, part: str) -> bool:
        return part.lower() == SESSION_CATALOG or self._conf(f"spark.sql.catalog.{part}") is not None

    def global_temp_database(self) -> str:
        return (self._conf("spark.sql.globalTempDatabase") or GLOBAL_TEMP_DATABASE).lower()

    def _same(self, a: str, b: str) -> bool:
        if a == b:
            return True
        return a.lower() == b.lower() and (self._conf("spark.sql.caseSensitive") or "false").lower() != "true"

    def is_temp_view(self, name: str) -> bool:
        from storage.catalogs.spark.engine import local_temp_view_exists  # Spark's modules only where Spark runs

        classic: bool | None = self._once(("view", name), lambda: local_temp_view_exists(self._spark(), name))
        if classic is not None:
            return classic

        def local_views() -> list[str]:
            # SHOW VIEWS in the global temporary database lists every temporary view and reads no metastore.
            where = f"{quote_ident(SESSION_CATALOG)}.{quote_ident(self.global_temp_database())}"
            rows = self._spark().sql(f"SHOW VIEWS IN {where}").collect()
            return [str(row["viewName"]) for row in rows if not row["namespace"]]

        views: list[str] = self._once(("views", ""), local_views)
        return any(self._same(view, name) for view in views)

    def is_builtin_or_temp_function(self, name: str) -> bool:
        def lookup() -> bool:
            pattern = re.sub(r"[^A-Za-z0-9_]", "*", name)  # Spark's pattern is a regex: a superset, then exact
            functions = self._spark().catalog.listFunctions(self.current_database(), pattern)
            return any(f.isTemporary and f.name.lower() == name.lower() for f in functions)

        return bool(self._once(("function", name), lookup))

    def relation_exists(self, name: str) -> bool:
        return bool(self._once(("relation", name), lambda: self._spark().catalog.tableExists(quote_ident(name))))


# ---------------------------------------------------------------------------------------------------- resolving


def resolve(parts: tuple[str, ...], kind: NameKind, facts: SessionFacts, *, renamed: Target | None = None) -> Target:
    """Where Spark would look ``parts`` up for a name of this ``kind``. ``renamed``: for ``new_name``, where the
    object being renamed lies."""
    shown = ".".join(quote_ident(part) for part in parts)
    if kind == "new_name":
        assert renamed is not None
        return _new_name(parts, shown, renamed)
    if kind == "database":
        return _namespace(parts, shown, facts)
    if kind in ("relation", "v1_relation") and _is_temp_view(parts, facts):
        return Target("outside", f"the temporary view {shown}")
    if kind in ("v1", "v1_relation"):
        return _v1(parts, shown, facts)
    if kind == "function" and len(parts) == 1 and facts.is_builtin_or_temp_function(parts[0]):
        return Target("spark_error", f"the built-in or temporary function {shown}")
    return _identifier(parts, shown, facts)


def _is_temp_view(parts: tuple[str, ...], facts: SessionFacts) -> bool:
    if len(parts) == 2 and parts[0].lower() == facts.global_temp_database():
        return True
    return len(parts) == 1 and facts.is_temp_view(parts[0])


def _identifier(parts: tuple[str, ...], shown: str, facts: SessionFacts) -> Target:
    if len(parts) > 1 and parts[0].lower() == facts.global_temp_database():
        return Target("outside", f"the global temporary view {shown}")
    if len(parts) == 1:
        catalog, namespace = facts.current_catalog(), [facts.current_database()]
    elif facts.is_catalog(parts[0]):
        catalog, namespace = parts[0], list(parts[1:-1])
    else:
        catalog, namespace = facts.current_catalog(), list(parts[:-1])
    return _in_catalog(catalog, namespace, parts[-1], shown, facts)


def _in_catalog(catalog: str, namespace: list[str], name: str, shown: str, facts: SessionFacts) -> Target:
    if catalog.lower() != SESSION_CATALOG:
        return Target("outside", f"{shown} in the catalog {quote_ident(catalog)}")
    if len(namespace) != 1:
        return Target("spark_error", f"{shown} (the session catalog takes a one-part namespace)")
    if namespace[0].lower() == facts.global_temp_database():
        return Target("outside", f"the global temporary view {shown}")
    return _session(namespace[0], name)


def _session(db: str, name: str) -> Target:
    return Target("session", f"{quote_ident(db)}.{quote_ident(name)}", db, name)


def _namespace(parts: tuple[str, ...], shown: str, facts: SessionFacts) -> Target:
    if facts.is_catalog(parts[0]):
        catalog, namespace = parts[0], list(parts[1:])
    else:
        catalog, namespace = facts.current_catalog(), list(parts)
    if catalog.lower() != SESSION_CATALOG:
        return Target("outside", f"the namespace {shown} in the catalog {quote_ident(catalog)}")
    if len(namespace) != 1 or namespace[0].lower() == facts.global_temp_database():
        return Target("spark_error", f"the database {shown}")
    return Target("session", namespace[0], namespace[0])


def _v1(parts: tuple[str, ...], shown: str, facts: SessionFacts) -> Target:
    if len(parts) > 2:
        return Target("spark_error", f"{shown} (CREATE TABLE ... LIKE takes at most db.name)")
    if len(parts) == 2:
        if parts[0].lower() == facts.global_temp_database():
            return Target("outside", f"the global temporary view {shown}")
        return _session(parts[0], parts[1])
    if facts.current_catalog().lower() != SESSION_CATALOG:
        return Target("unknown", f"{shown} (Spark puts it in the session catalog's current database, and the current "
                                 f"catalog is {quote_ident(facts.current_catalog())})")
    return _session(facts.current_database(), parts[0])


def _new_name(parts: tuple[str, ...], shown: str, renamed: Target) -> Target:
    if not renamed.in_session:
        return renamed
    if len(parts) == 1:
        return _session(renamed.db, parts[0])
    if len(parts) == 2 and parts[0].lower() == renamed.db.lower():
        return _session(parts[0], parts[1])
    return Target("spark_error", f"{shown} (Spark renames only within the database of {renamed.text})")
