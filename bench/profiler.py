"""Where the time of an atomic statement goes: a benchmark-side profiler (nothing in the product changes).

While installed on an :class:`~ddl_log.AtomicDDL` it

* wraps every public method of the parts behind ``ddl.catalog``'s ports (a Spark ``Catalog``) with a timing proxy,
  set on each part so that a part's own ``self.method(...)`` calls go through it too; time is charged to the
  outermost catalog call only, nested calls are counted (``drop -> clean_leftovers``);
* puts a proxy in front of the catalog's Spark session that times each engine call (``spark.sql`` by statement
  kind, ``spark.catalog.tableExists``, ``spark.conf.get``), rows fetched included; a job group set per round
  counts the statement's Spark jobs;
* patches :meth:`storage.records.files.RecordFile.append_encoded` (class-wide, restored on uninstall) to time every
  durable append (one write + one fsync) of the DDL log and of the binlog.

Figures are collected per timed round (:meth:`StatementProfiler.round`) and reported as means per statement, so the
parts add up to the mean wall time of a round.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import attrs

from chains.binlog import BINLOG_MAGIC
from chains.log import LOG_MAGIC
from storage.catalogs.ports import Catalog
from storage.records.files import RecordFile

LOG = "log writes"
JOBS = "Spark jobs"
METASTORE = "metastore calls"
CATALOG_PY = "catalog, Python side"
OTHER = "statement driver"
CATEGORIES = (LOG, JOBS, METASTORE, CATALOG_PY, OTHER)
"""Top-level categories; their times add up to the wall time of the statement."""

_STATEMENT_KINDS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"CREATE TABLE .* AS SELECT", re.S), JOBS, "CREATE TABLE AS SELECT (job + metastore create)"),
    (re.compile(r"INSERT ", re.S), JOBS, "INSERT (job)"),
    (re.compile(r"CREATE TABLE .* LIKE ", re.S), METASTORE, "CREATE TABLE LIKE"),
    (re.compile(r"CREATE TABLE ", re.S), METASTORE, "CREATE TABLE (columns)"),
    (re.compile(r"DESCRIBE TABLE ", re.S), METASTORE, "DESCRIBE TABLE EXTENDED AS JSON"),
    (re.compile(r"DESCRIBE DATABASE ", re.S), METASTORE, "DESCRIBE DATABASE EXTENDED"),
    (re.compile(r"ALTER TABLE .* RENAME TO ", re.S), METASTORE, "ALTER TABLE RENAME (moves the directory)"),
    (re.compile(r"DROP TABLE ", re.S), METASTORE, "DROP TABLE (deletes the files)"),
    (re.compile(r"SHOW ", re.S), METASTORE, "SHOW TABLES/VIEWS"),
    (re.compile(r"\s*SELECT ", re.S), METASTORE, "analyse the SELECT (check_create)"),
]


def classify(statement: str) -> tuple[str, str]:
    for pattern, category, label in _STATEMENT_KINDS:
        if pattern.match(statement.lstrip()):
            return category, label
    return METASTORE, "other spark.sql: " + statement.split(None, 2)[0].upper()


class _Figures:
    """Calls and seconds per (category, item), for one round."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)

    def add(self, key: tuple[str, str], seconds: float, calls: int = 1) -> None:
        self.calls[key] += calls
        self.seconds[key] += seconds


class _SessionProxy:
    """Stands in for the catalog's SparkSession: times engine calls, passes everything else through."""

    def __init__(self, spark: Any, profiler: StatementProfiler) -> None:
        self._spark = spark
        self._profiler = profiler
        self.catalog = _CatalogApiProxy(spark.catalog, profiler)
        self.conf = _ConfProxy(spark.conf, profiler)

    def sql(self, statement: str, *args: Any, **kwargs: Any) -> Any:
        category, label = classify(statement)
        result = self._profiler.engine_call(category, label, lambda: self._spark.sql(statement, *args, **kwargs))
        return _ResultProxy(result, self._profiler, category, label)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._spark, name)


class _ResultProxy:
    """The DataFrame of a ``spark.sql`` call: fetching its rows (or schema) is charged to the same statement."""

    def __init__(self, frame: Any, profiler: StatementProfiler, category: str, label: str) -> None:
        self._frame = frame
        self._profiler = profiler
        self._key = (category, label)

    def collect(self) -> Any:
        return self._profiler.engine_call(*self._key, self._frame.collect, calls=0)

    def first(self) -> Any:
        return self._profiler.engine_call(*self._key, self._frame.first, calls=0)

    @property
    def schema(self) -> Any:
        return self._profiler.engine_call(*self._key, lambda: self._frame.schema, calls=0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._frame, name)


class _CatalogApiProxy:
    def __init__(self, api: Any, profiler: StatementProfiler) -> None:
        self._api = api
        self._profiler = profiler

    def tableExists(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 - Spark's name
        return self._profiler.engine_call(METASTORE, "spark.catalog.tableExists",
                                          lambda: self._api.tableExists(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)


class _ConfProxy:
    def __init__(self, conf: Any, profiler: StatementProfiler) -> None:
        self._conf = conf
        self._profiler = profiler

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._profiler.engine_call(CATALOG_PY, "spark.conf.get (Py4J round trip)",
                                          lambda: self._conf.get(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conf, name)


class StatementProfiler:
    """Install with :meth:`installed`; time each statement inside :meth:`round`; read :meth:`breakdown`."""

    def __init__(self, ddl: Any) -> None:
        self.ddl = ddl
        self.rounds: list[tuple[float, _Figures]] = []
        self._current: _Figures | None = None
        self._catalog_depth = 0
        self._engine_depth = 0
        self._catalog_engine_seconds = 0.0

    # ------------------------------------------------------------------ install

    @contextmanager
    def installed(self) -> Iterator[StatementProfiler]:
        catalog = self.ddl.catalog
        parts = list({id(part): part for part in (getattr(catalog, field.name) for field in attrs.fields(Catalog)
                                                  if field.name != "backend")}.values())  # ports may share a part
        wrapped = {id(part): sorted({name for name in dir(type(part))
                                     if not name.startswith("_") and callable(getattr(type(part), name, None))}
                                    | {name for name, value in vars(part).items()
                                       if not name.startswith("_") and callable(value)})
                   for part in parts}
        own = {id(part): {name: vars(part)[name] for name in wrapped[id(part)] if name in vars(part)}
               for part in parts}
        engine = catalog.backend.engine
        real_spark = engine.spark
        original_append = RecordFile.append_encoded
        profiler = self

        def timed_append(file: RecordFile, encoded: Any) -> list[int]:
            start = time.perf_counter()
            try:
                return original_append(file, encoded)
            finally:
                profiler.log_write(file, time.perf_counter() - start)

        for part in parts:
            for name in wrapped[id(part)]:
                setattr(part, name, self._wrap_catalog_method(name, getattr(part, name)))
        engine.spark = _SessionProxy(real_spark, self)
        RecordFile.append_encoded = timed_append  # type: ignore[method-assign]
        try:
            yield self
        finally:
            RecordFile.append_encoded = original_append  # type: ignore[method-assign]
            engine.spark = real_spark
            for part in parts:
                for name in wrapped[id(part)]:
                    delattr(part, name)
                for name, value in own[id(part)].items():  # what the part had itself (a collaborator it was given)
                    setattr(part, name, value)

    def _wrap_catalog_method(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        profiler = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            figures = profiler._current
            if figures is None:
                return method(*args, **kwargs)
            outer = profiler._catalog_depth == 0
            if outer:
                profiler._catalog_engine_seconds = 0.0
            profiler._catalog_depth += 1
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                profiler._catalog_depth -= 1
                if outer:
                    figures.add(("catalog method", name), elapsed)
                    # what the method spent outside engine calls: Python work (directory clean-up, JSON, ...)
                    figures.add((CATALOG_PY, f"Python work in {name} (outside engine calls)"),
                                elapsed - profiler._catalog_engine_seconds, calls=0)
                else:
                    figures.add(("catalog method", f"  (nested) {name}"), 0.0)

        return timed

    def session(self, spark: Any) -> Any:
        """``spark`` behind the timing proxy: for the plain statements profiled beside the atomic one."""
        return _SessionProxy(spark, self)

    # ------------------------------------------------------------------ recording

    def engine_call(self, category: str, label: str, call: Callable[[], Any], *, calls: int = 1) -> Any:
        figures = self._current
        if figures is None or self._engine_depth:
            return call()
        self._engine_depth += 1
        start = time.perf_counter()
        try:
            return call()
        finally:
            elapsed = time.perf_counter() - start
            self._engine_depth -= 1
            self._catalog_engine_seconds += elapsed
            figures.add((category, label), elapsed, calls=calls)

    def log_write(self, file: RecordFile, seconds: float) -> None:
        figures = self._current
        if figures is None:
            return
        if file.magic == LOG_MAGIC:
            figures.add((LOG, "DDL log append (write + fsync)"), seconds)
        elif file.magic == BINLOG_MAGIC:
            figures.add((LOG, "binlog append (write + fsync)"), seconds)
        else:
            figures.add((LOG, f"{file.magic!r} append"), seconds)

    @contextmanager
    def round(self) -> Iterator[None]:
        """Time one statement. Its Spark jobs are counted through a job group set for the round (outside the
        timed part: listing every job of the session per engine call would cost a Py4J round trip per job)."""
        figures = _Figures()
        group = f"ddl-bench-round-{len(self.rounds)}-{id(self)}"
        context = self._spark_context()
        previous = None
        if context is not None:
            previous = context.getLocalProperty("spark.jobGroup.id")
            context.setJobGroup(group, "bench.profiler round")
        log_syncs, binlog_syncs = self.ddl.log.syncs, self.ddl.binlog_file.syncs
        self._current = figures
        start = time.perf_counter()
        try:
            yield
        finally:
            wall = time.perf_counter() - start
            self._current = None
            figures.calls[("counter", "ddl.log.syncs")] = self.ddl.log.syncs - log_syncs
            figures.calls[("counter", "ddl.binlog_file.syncs")] = self.ddl.binlog_file.syncs - binlog_syncs
            if context is not None:
                figures.calls[("counter", "Spark jobs started")] = len(list(context.statusTracker()
                                                                            .getJobIdsForGroup(group)))
                if previous is None:
                    context.setLocalProperty("spark.jobGroup.id", None)
                    context.setLocalProperty("spark.job.description", None)
                    context.setLocalProperty("spark.job.interruptOnCancel", None)
                else:
                    context.setJobGroup(previous, "")
            self.rounds.append((wall, figures))

    def _spark_context(self) -> Any:
        try:
            return self.ddl.catalog.backend.spark.sparkContext
        except Exception:  # noqa: BLE001 - a Spark Connect session has no SparkContext: jobs are not counted
            return None

    # ------------------------------------------------------------------ report

    def breakdown(self) -> dict[str, Any]:
        """Means per statement over the rounds: JSON-ready, for ``benchmark.extra_info``."""
        count = len(self.rounds)
        if not count:
            return {}
        wall = sum(w for w, _ in self.rounds) / count
        keys = sorted({key for _, f in self.rounds for key in [*f.calls, *f.seconds]})

        def mean_calls(key: tuple[str, str]) -> float:
            return sum(f.calls.get(key, 0) for _, f in self.rounds) / count

        def mean_ms(key: tuple[str, str]) -> float:
            return sum(f.seconds.get(key, 0.0) for _, f in self.rounds) / count * 1e3

        totals = {category: 0.0 for category in CATEGORIES}
        items: list[dict[str, Any]] = []
        for key in keys:
            category, item = key
            row = {"category": category, "item": item, "calls": round(mean_calls(key), 2),
                   "ms": round(mean_ms(key), 2)}
            items.append(row)
            if category in totals:
                totals[category] += mean_ms(key)
        catalog_ms = sum(mean_ms(key) for key in keys if key[0] == "catalog method")
        engine_ms = sum(mean_ms(key) for key in keys if key[0] in (JOBS, METASTORE))
        # every engine call is in JOBS / METASTORE (conf.get in CATALOG_PY), the catalog's own Python work in
        # CATALOG_PY: what is left of the wall time is the statement driver (state machine, locks, log state)
        totals[OTHER] = wall * 1e3 - sum(totals[c] for c in CATEGORIES if c != OTHER)
        return {
            "rounds": count,
            "wall_ms": round(wall * 1e3, 2),
            "categories": [{"category": c, "ms": round(totals[c], 2), "share": round(totals[c] / (wall * 1e3), 4)}
                           for c in CATEGORIES],
            "catalog_ms": round(catalog_ms, 2),
            "engine_ms": round(engine_ms, 2),
            "items": items,
        }
