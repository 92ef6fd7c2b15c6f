"""Running a golden file on one side: plain ``spark.sql``, or the project's ``AtomicDDL.sql`` on a fresh DDL log home.

The two sides share one Spark (one JVM, one metastore, one warehouse) and take turns: the plain side runs the whole
file, then everything it made is removed (:func:`clear`: databases, objects of ``default``, global temporary views,
cached tables, warehouse directories; what was there before the file, :class:`Baseline`, stays), then the project's
side runs the same file in a new session on a new DDL log home, and is removed the same way. Separated in time rather
than by renamed databases, both sides run the very text Spark's suite runs (``default``, ``global_temp``,
``IDENTIFIER('id' || 'ent')``: no name to rewrite) and their answers and errors compare as they are, names included.

After every statement the side's state is read (:func:`side_state`, built on :mod:`tests.differential.state`):
every database with its tables (definition, partitions, rows), views, functions; the session's current database,
temporary views and global temporary views.
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ddl_log import AtomicDDL, CommittedWithPendingWorkWarning
from tests.differential.golden_compare import Result, failed, succeeded
from tests.differential.golden_files import GoldenFile
from tests.differential.refusal_table import refused_form
from tests.differential.state import RowCache, database_state, temp_rows, temporary_views
from tests.spark.sweep_support import scala_strings


def side_state(session: Any, cache: RowCache) -> dict[str, Any]:
    """Everything a side's statements can leave behind, read through ``session``."""
    external = session._jsparkSession.sharedState().externalCatalog()
    state: dict[str, Any] = {"current database": str(session.catalog.currentDatabase())}
    for db in scala_strings(external.listDatabases()):
        state[f"database {db}"] = database_state(session, external, db, cache)
    state.update(temporary_views(session))
    catalog = session._jsparkSession.sessionState().catalog()
    global_db = str(session.conf.get("spark.sql.globalTempDatabase", "global_temp"))
    for name in scala_strings(catalog.globalTempViewManager().listViewNames("*")):
        state[f"global temporary view {name}"] = temp_rows(session, f"{global_db}`.`{name}")
    return state


def collect(frame: Any) -> list[Any]:
    return list(frame.collect()) if frame is not None else []


class Side:
    """One side's run of one file: ``run(statement)`` gives its :class:`Result`, ``state()`` what it holds now."""

    def __init__(self, spark: Any, golden: GoldenFile, home: Path | None) -> None:
        self.session = spark.newSession()
        for key, value in golden.settings:
            self.session.conf.set(key, value)
        self.cache = RowCache()
        self.ddl = AtomicDDL(spark=self.session, home=home) if home is not None else None
        self.warnings: list[str] = []

    def run(self, statement: str) -> Result:
        if self.ddl is None:
            return self.attempt(statement, lambda: collect(self.session.sql(statement)))
        refused = self.attempt(statement, lambda: self.atomic(statement, allow_non_atomic=False))
        refusal = refused_form(statement)
        if not refused.ok and refusal and refused.detail.startswith("UnsupportedStatementError"):
            return self.attempt(statement, lambda: self.atomic(statement, allow_non_atomic=True),
                                note=f"documented refusal ({refusal}): run with allow_non_atomic")
        return refused

    def atomic(self, statement: str, *, allow_non_atomic: bool) -> list[Any]:
        assert self.ddl is not None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CommittedWithPendingWorkWarning)
            results = self.ddl.sql(statement, allow_non_atomic=allow_non_atomic)
        self.warnings.extend(str(w.message) for w in caught if issubclass(w.category, CommittedWithPendingWorkWarning))
        rows: list[Any] = []
        for result in results:
            rows = collect(result.result) if result.kind == "query" else []
        return rows

    def attempt(self, statement: str, action: Callable[[], list[Any]], note: str = "") -> Result:
        try:
            return succeeded(statement, action(), note)
        except Exception as error:  # noqa: BLE001 - every failure is an outcome to compare
            from ddl_log.frontends.extension import statement_error

            return failed(statement_error(error) or error, note)

    def state(self) -> dict[str, Any]:
        return side_state(self.session, self.cache)

    def close(self) -> None:
        if self.ddl is not None:
            self.ddl.close()
            self.ddl = None


@attrs.frozen
class Baseline:
    """What was there before the run (kept by :func:`clear`): databases, objects of ``default``, warehouse entries."""

    databases: frozenset[str]
    default_objects: frozenset[str]
    default_functions: frozenset[str]
    warehouse_entries: frozenset[str]


def warehouse_of(spark: Any) -> Path:
    return Path(str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:"))


def baseline(spark: Any) -> Baseline:
    external = spark._jsparkSession.sharedState().externalCatalog()
    warehouse = warehouse_of(spark)
    return Baseline(frozenset(scala_strings(external.listDatabases())),
                    frozenset(scala_strings(external.listTables("default"))),
                    frozenset(scala_strings(external.listFunctions("default", "*"))),
                    frozenset(entry.name for entry in warehouse.iterdir()) if warehouse.is_dir() else frozenset())


def clear(spark: Any, kept: Baseline) -> None:
    """Remove everything a side left and ``kept`` does not hold: databases, objects of ``default``, global
    temporary views, cached data, warehouse entries."""
    external = spark._jsparkSession.sharedState().externalCatalog()
    spark.catalog.clearCache()
    catalog = spark._jsparkSession.sessionState().catalog()
    for name in scala_strings(catalog.globalTempViewManager().listViewNames("*")):
        catalog.globalTempViewManager().remove(name)
    for db in scala_strings(external.listDatabases()):
        if db not in kept.databases:
            external.dropDatabase(db, True, True)
    for name in scala_strings(external.listTables("default")):
        if name not in kept.default_objects:
            external.dropTable("default", name, True, True)
    for name in scala_strings(external.listFunctions("default", "*")):
        if name not in kept.default_functions:
            external.dropFunction("default", name)
    warehouse = warehouse_of(spark)
    for entry in warehouse.iterdir() if warehouse.is_dir() else ():
        if entry.name in kept.warehouse_entries:
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
