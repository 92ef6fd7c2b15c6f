"""Support for crash sweeps on real Spark: what a table looks like (schema + rows), what the warehouse holds, and
which crash points of a trace are worth a Spark run (the record.* points inside each log write are swept
exhaustively on the in-memory catalog; between a step's ``after`` and the next step's ``before`` nothing happens)."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ddl_log import AtomicDDL
from tests import crashkit

ENGINE_INDEPENDENT = ("record.",)


def spark_worthy(points: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Every point of the trace except the record-level ones and an ``.after`` immediately followed by a ``.before``
    (the same instant as far as the catalog is concerned)."""
    kept: list[tuple[str, int]] = []
    filtered = [p for p in points if not p[0].startswith(ENGINE_INDEPENDENT)]
    for index, (name, nth) in enumerate(filtered):
        following = filtered[index + 1][0] if index + 1 < len(filtered) else ""
        if name.endswith(".after") and following.endswith(".before"):
            continue
        kept.append((name, nth))
    return kept


def table_state(spark: Any, name: str) -> tuple[str, int, Any] | None:
    """Schema, row count and a checksum of the rows; None when no such table."""
    return frame_state(spark.table(name)) if spark.catalog.tableExists(name) else None


def frame_state(frame: Any) -> tuple[str, int, Any]:
    rows = sorted(tuple(str(v) for v in row) for row in frame.collect())
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]  # stable across processes, unlike hash()
    return frame.schema.simpleString(), len(rows), digest


def user_tables(spark: Any, db: str = "default") -> set[str]:
    return {row["tableName"] for row in spark.sql(f"SHOW TABLES IN `{db}`").collect() if not row["isTemporary"]}


def warehouse_dirs(warehouse: Path) -> set[str]:
    return {entry.name for entry in warehouse.iterdir() if entry.is_dir()} if warehouse.is_dir() else set()


def table_dirs(spark: Any, names: set[str], db: str = "default") -> set[str]:
    """The directory names the tables ``names`` live in (after a swap, a table's directory is not its name)."""
    dirs = set()
    for name in names:
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED `{db}`.`{name}`").collect()
        location = next(row["data_type"] for row in rows if row["col_name"] == "Location")
        dirs.add(location.rstrip("/").rpartition("/")[2])
    return dirs


def assert_clean_log(ddl: AtomicDDL) -> None:
    assert ddl.active_chains() == [], "recovery left an active chain"
    assert ddl.abandoned_chains() == [], "recovery abandoned a chain"


def crash_then_recover(opener: Callable[[], AtomicDDL], statement: Callable[[AtomicDDL], Any], point: str,
                       nth: int) -> list[Any]:
    """Crash ``statement`` at the ``nth`` hit of ``point``, reopen the home (recovery), require a clean log;
    the binlog's events after recovery."""
    assert crashkit.crash_at(opener, statement, point, nth), (point, nth)
    ddl = opener()
    try:
        assert_clean_log(ddl)
        return list(ddl.binlog_events())
    finally:
        ddl.close()


def sweep_statement(spark: Any, warehouse: Path, setup: list[str], world: Callable[[str], Callable[[], AtomicDDL]],
                    statement: Callable[[AtomicDDL], Any],
                    choose: Callable[[list[tuple[str, int]]], list[tuple[str, int]]], *,
                    committed_events: int = 1) -> list[tuple[list[Any], str]]:
    """Crash ``statement`` at each point ``choose`` picks of its trace (``world(label)`` opens a home), recover,
    and require the state before (nothing binlogged) or after (binlogged once: ``committed_events`` events, a
    transaction's group), a second recovery with nothing to do, and the outcomes in order; each point starts from
    exactly the state ``setup`` made. Every point's binlog events and outcome ("before" / "after")."""
    for sql in setup:
        spark.sql(sql)
    before = snapshot(spark, warehouse)
    points = crashkit.trace(world("trace"), statement)
    after = snapshot(spark, warehouse)
    assert before != after
    restore(spark, warehouse, setup, before, after)
    chosen = choose(points)
    assert chosen, points
    found = []
    for index, (point, nth) in enumerate(chosen):
        opener = world(f"case{index}")
        events = crash_then_recover(opener, statement, point, nth)
        state = snapshot(spark, warehouse)
        assert state in (before, after), (point, nth, state)
        outcome = "after" if state == after else "before"
        assert len(events) == (committed_events if outcome == "after" else 0), (point, nth, events)
        second = opener()
        assert second.last_recovery.nothing_to_do
        second.close()
        found.append((events, outcome))
        restore(spark, warehouse, setup, before, state)  # the next point starts from exactly the prepared state
    outcomes = [outcome for _, outcome in found]
    assert outcomes == sorted(outcomes, key=lambda o: o == "after"), outcomes
    return found


CATALOG_STEPS = ("create_tmp", "fill_tmp", "exchange", "retire", "move_orig", "install", "drop_backup")


def catalog_points(points: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The instants around each catalog operation and the commit point: where Spark states differ. (Every point,
    record-level ones included, is swept on the in-memory catalog in tests/unit/test_statement_sweeps.py.)"""
    kept = []
    for name, nth in spark_worthy(points):
        parts = name.split(".")
        if (".do." in name or name.startswith(("forward.", "undo.", "fill.")) or name == "commit.after_binlog"
                or (parts[0] == "replace" and parts[1] in CATALOG_STEPS)
                or (name.endswith(".log.after") and parts[0].startswith(("drop_", "alter_table_forward")))):
            kept.append((name, nth))
    return kept


Key = tuple[str, str, str]
"""An object of the catalog: ("table" | "view" | "function", database, name), ("database", name, ""), or one of the
two singletons :data:`TEMPORARY_FUNCTIONS` and :data:`WAREHOUSE`."""
TEMPORARY_FUNCTIONS: Key = ("temporary functions", "", "")
WAREHOUSE: Key = ("warehouse directories", "", "")
SWAPPED_DIR = re.compile(r"^ddllog_\d+_[0-9a-f]{6}_tmp$")
SEPARATOR = "\x00"
HIDDEN_PROPERTIES = ("transient_", "spark_ddl_log", "spark.sql.")
DROP_ORDER = ("function", "view", "table", "database")


@attrs.frozen
class Snapshot:
    """What the catalog and the warehouse hold. Two snapshots are equal when ``objects`` are: every database; every
    table's kind, provider, comment, properties (but the metastore's and the DDL log's own), partitions, schema and
    rows; every view's text; every function's class; the temporary functions; the warehouse's directory names (a
    swapped table lives in its former work directory, named after the statement's XID and a random token: those names
    are compared without XID and token). ``dirs`` and ``locations`` are the raw names, ``tree`` every directory in the
    warehouse (a stray one inside a table's or a database's directory included)."""

    objects: dict[Key, Any]
    dirs: frozenset[str] = attrs.field(eq=False)
    locations: dict[Key, str] = attrs.field(eq=False)
    tree: frozenset[str] = attrs.field(eq=False)

    def rows(self, name: str, db: str = "default") -> Any:
        """Schema, row count and checksum of a table's rows (as :func:`table_state` says them); None if no table."""
        table = self.objects.get(("table", db, name))
        return None if table is None else table[-1]

    def names(self, db: str = "default") -> set[str]:
        """The tables and views of ``db`` (as :func:`user_tables` says them)."""
        return {key[2] for key in self.objects if key[0] in ("table", "view") and key[1] == db}

    def table_dirs(self, names: set[str], db: str = "default") -> set[str]:
        return {self.locations[("table", db, name)] for name in names}

    def kind(self, name: str, db: str = "default") -> str:
        return str(self.objects[("table", db, name)][0])


def scala_strings(scala: Any) -> list[str]:
    """A Scala collection of strings (through py4j) as a list, in one call (iterating one costs a call per item);
    the separator is NUL, which no catalog name holds."""
    text = str(scala.mkString(SEPARATOR))
    return text.split(SEPARATOR) if text else []


def snapshot(spark: Any, warehouse: Path) -> Snapshot:
    """The metadata from the external catalog (a few metastore calls through py4j, no SQL statement), the rows as
    :func:`table_state` reads them (one job per table: cheaper than one job over their union). The session's cached
    relations are dropped first: another session (an attached one) may have changed a table since it read it."""
    spark._jsparkSession.sessionState().catalog().invalidateAllCachedTables()
    external = spark._jsparkSession.sharedState().externalCatalog()

    def option(scala: Any) -> Any:
        return scala.get() if scala.isDefined() else None

    objects: dict[Key, Any] = {}
    locations: dict[Key, str] = {}
    for db in scala_strings(external.listDatabases()):
        objects[("database", db, "")] = "database"
        for name in scala_strings(external.listTables(db)):
            table = external.getTable(db, name)
            kind = str(table.tableType().name())
            properties = sorted((k, v) for k, v in zip(scala_strings(table.properties().keys()),
                                                       scala_strings(table.properties().values()), strict=True)
                                if not k.startswith(HIDDEN_PROPERTIES))
            if kind == "VIEW":
                user = tuple((k, v) for k, v in properties if not k.startswith("view."))
                mode = dict(properties).get("view.schemaMode")
                columns = str(table.schema().json())
                objects[("view", db, name)] = (option(table.viewText()), user, mode, columns)
                continue
            partitions = None
            if table.partitionColumnNames().nonEmpty():
                every = spark._jvm.scala.Option.empty()
                partitions = sorted(scala_strings(external.listPartitionNames(db, name, every)))
            key: Key = ("table", db, name)
            objects[key] = (kind, option(table.provider()), option(table.comment()), properties, partitions,
                            frame_state(spark.table(f"`{db}`.`{name}`")))
            locations[key] = str(option(table.storage().locationUri()).toString()).rstrip("/").rpartition("/")[2]
        for function in scala_strings(external.listFunctions(db, "*")):
            objects[("function", db, function)] = external.getFunction(db, function).className()
    temporary = spark._jsparkSession.sessionState().catalog().listTemporaryFunctions()
    objects[TEMPORARY_FUNCTIONS] = sorted(scala_strings(temporary))
    dirs = frozenset(warehouse_dirs(warehouse))
    objects[WAREHOUSE] = sorted(SWAPPED_DIR.sub("ddllog_<xid>_tmp", d) for d in dirs)
    tree = frozenset(str(path.relative_to(warehouse)) for path in warehouse.rglob("*") if path.is_dir())
    return Snapshot(objects, dirs, locations, tree)


def setup_key(statement: str) -> Key:
    """The object a SETUP statement (``CREATE TABLE|VIEW|FUNCTION [db.]name ...`` or ``CREATE DATABASE name``)
    makes."""
    match = re.match(r"CREATE (TABLE|VIEW|FUNCTION|DATABASE) (?:(\w+)\.)?(\w+)", statement)
    assert match, statement
    kind, db, name = match.group(1).lower(), match.group(2) or "default", match.group(3)
    return (kind, name, "") if kind == "database" else (kind, db, name)


def setup_keys(setup: list[str]) -> list[Key]:
    """The object each SETUP statement makes (:func:`setup_key`); a statement that is no CREATE (an INSERT, a SET
    around it) belongs to the object of the CREATE before it, and runs again with it."""
    keys: list[Key] = []
    for statement in setup:
        keys.append(setup_key(statement) if statement.lstrip().upper().startswith("CREATE ") or not keys
                    else keys[-1])
    return keys


def restore(spark: Any, warehouse: Path, setup: list[str], before: Snapshot, state: Snapshot) -> None:
    """Bring the catalog from ``state`` back to ``before`` (what ``setup`` made on an empty catalog): drop each
    object that differs, run again only the setup statements that made those, remove the directories ``before`` has
    not; then the whole snapshot and every directory must be as in ``before``, else everything is dropped and
    ``setup`` runs from scratch. (Much cheaper than from scratch: a crash sweep's statement changes one or two
    objects.)"""
    from tests.conftest import reset_spark

    if state == before:
        return
    differing = {key for key in before.objects.keys() | state.objects.keys()
                 if before.objects.get(key) != state.objects.get(key)} - {WAREHOUSE}
    remade = [statement for statement, key in zip(setup, setup_keys(setup), strict=True) if key in differing]
    try:
        for function in set(state.objects[TEMPORARY_FUNCTIONS]) - set(before.objects[TEMPORARY_FUNCTIONS]):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS `{function}`")
        for kind, db, name in sorted(differing & state.objects.keys() - {TEMPORARY_FUNCTIONS},
                                     key=lambda key: DROP_ORDER.index(key[0])):
            quoted = f"`{db}`.`{name}`"
            spark.sql({"function": f"DROP FUNCTION IF EXISTS {quoted}", "view": f"DROP VIEW IF EXISTS {quoted}",
                       "table": f"DROP TABLE IF EXISTS {quoted} PURGE",
                       "database": f"DROP DATABASE IF EXISTS `{db}` CASCADE"}[kind])
        for statement in remade:
            spark.sql(statement)
        for stray in warehouse_dirs(warehouse) - before.dirs:
            shutil.rmtree(warehouse / stray)
        restored = snapshot(spark, warehouse)
        if restored == before and restored.tree == before.tree:
            return
    except Exception:  # noqa: BLE001 - from scratch below
        pass
    reset_spark(spark, warehouse)
    for statement in setup:
        spark.sql(statement)
    assert snapshot(spark, warehouse) == before, "setup on an empty catalog made another state"
