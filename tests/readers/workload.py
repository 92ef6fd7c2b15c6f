"""The writer's side: statements of each kind that make every table version recognisable, run through
:class:`ddl_log.AtomicDDL` (``atomic``) or as Spark's own statements (``plain``), each recorded as a model event.

Version ``i`` of a table holds ``SELECT id AS a, CAST(i AS INT) AS v FROM range(rows + i)``: its count, ``v`` and
``sum(a)`` say which version a read saw. Kinds (the statements issue 14 makes reader-atomic):

* ``cor_select``: CREATE OR REPLACE TABLE t AS SELECT (plain: DROP TABLE + CREATE TABLE AS SELECT);
* ``cor_columns``: CREATE OR REPLACE TABLE t (a BIGINT, v INT): a legitimately EMPTY new version;
* ``cor_like``: CREATE OR REPLACE TABLE t LIKE src: EMPTY too;
* ``truncate``: TRUNCATE TABLE t: EMPTY;
* ``insert_overwrite``: INSERT OVERWRITE TABLE t SELECT ... (the whole table);
* ``insert_overwrite_partition``: INSERT OVERWRITE TABLE t PARTITION (p = k) SELECT ... on a table partitioned by
  ``p`` (3 partitions): only partition k changes, the model's content is per partition;
* ``insert_overwrite_dynamic``: the same change as an INSERT OVERWRITE TABLE t SELECT ..., k AS p in dynamic
  partition overwrite mode (a dbt incremental model's statement): its new partition's record is made from the
  directory Spark wrote, the others kept;
* ``truncate_partition``: TRUNCATE TABLE t PARTITION (p = k) on the partitioned table, after an INSERT OVERWRITE of
  that partition (``insert_overwrite_partition`` events) filled it: partition k empty, the other two whole;
* ``alter_rebuild``: ALTER TABLE t ALTER COLUMN v TYPE BIGINT / INT (alternately), which rebuilds the table
  (:func:`ddl_log.engine.alter._rebuild`): the rows stay, so only a failed or partial read shows. Spark cannot
  do it for parquet tables: no plain form;
* ``drop_undrop``: DROP TABLE t, then UNDROP TABLE t, on a table partitioned by ``p`` (issue 36): the table whole
  or not there (:data:`~tests.readers.model.ABSENT`), never empty (plain: DROP, then CREATE TABLE AS SELECT of the
  same rows);
* ``drop_undrop_outside``: the same on a table with one more partition that plain Spark put outside the table's
  directory (``ADD PARTITION ... LOCATION``), which UNDROP makes under a holder name (atomic only: plain Spark
  cannot make such a table again in one statement).

The kinds whose new version is empty alternate with a whole-table INSERT OVERWRITE that fills the table again
(``insert_overwrite`` events), so that an empty read while the full version was live is caught.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from tests.readers.loop import Target, read_query
from tests.readers.model import ABSENT, Content, Event, partitioned, unpartitioned

DB = "rdb"
KINDS = ("cor_select", "cor_columns", "cor_like", "truncate", "insert_overwrite", "insert_overwrite_partition",
         "insert_overwrite_dynamic", "truncate_partition", "alter_rebuild")
DROP_KINDS = ("drop_undrop", "drop_undrop_outside")
"""Kinds whose table is at times not there (run by their own test: a DROP is over in a few metastore calls, so it
needs more statements than the others for readers to meet it)."""
EMPTYING = frozenset({"cor_columns", "cor_like", "truncate"})
PLAIN_KINDS = tuple(kind for kind in KINDS if kind != "alter_rebuild")
PARTITIONS = 3
OUTSIDE_ROWS = 10
"""Rows of the partition outside the table's directory (``p = PARTITIONS``)."""
OUTSIDE_ROOT = Path(tempfile.gettempdir()) / f"ddl-log-readers-outside-{os.getpid()}"
"""Where that partition lives: outside every warehouse, one directory per process."""
COLUMNS = "a BIGINT, v INT"
OVERWRITE_MODE = "spark.sql.sources.partitionOverwriteMode"


def rows_query(rows: int, v: int) -> str:
    return f"SELECT id AS a, CAST({v} AS INT) AS v FROM range({rows})"


@attrs.frozen
class Step:
    """One statement: its kind, its version index, the content after it, and how to run it each way."""

    kind: str
    table: str
    index: int
    content: Content
    atomic: tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...]]
    """(AtomicDDL method, positional args, keyword args)."""
    plain: tuple[str, ...]
    """Spark SQL statements, run one after the other."""


@attrs.frozen
class Plan:
    kind: str
    table: str
    partitioned: bool
    setup: tuple[str, ...]
    initial: Content
    steps: tuple[Step, ...]

    @property
    def target(self) -> Target:
        return Target(self.table, read_query(self.table, partitioned=self.partitioned))


def table_name(kind: str, prefix: str = "") -> str:
    return f"{DB}.{prefix}t_{kind}"


def parts_of(content: Content) -> dict[int, tuple[int, int, int]]:
    return {int(p): (n, v, total) for p, n, v, _, total in content if p is not None}


def plan(kind: str, statements: int, rows: int, *, prefix: str = "", first_index: int = 1,
         initial: Content | None = None) -> Plan:
    """``statements`` statements of ``kind`` (plus the fills between emptying ones) on ``rdb.<prefix>t_<kind>``.
    ``initial``: the table already holds this (no set-up; e.g. after a recovery)."""
    if kind not in KINDS + DROP_KINDS:
        raise ValueError(f"unknown statement kind {kind!r}")
    table = table_name(kind, prefix)
    is_partitioned = kind in ("insert_overwrite_partition", "insert_overwrite_dynamic", "truncate_partition",
                              *DROP_KINDS)
    setup: tuple[str, ...] = ()
    if initial is None:
        setup = (f"CREATE DATABASE IF NOT EXISTS {DB}", f"DROP TABLE IF EXISTS {table}")
        if is_partitioned:
            setup += (partitioned_create(table, rows),)
            filled = {k: (len(range(k, rows, PARTITIONS)), 0, sum(range(k, rows, PARTITIONS)))
                      for k in range(PARTITIONS)}
            if kind == "drop_undrop_outside":
                setup += outside_partition(table)
                filled[PARTITIONS] = (OUTSIDE_ROWS, 0, sum(range(OUTSIDE_ROWS)))
            initial = partitioned(filled)
        else:
            setup += (f"CREATE TABLE {table} USING parquet AS {rows_query(rows, 0)}",)
            initial = unpartitioned(rows, 0)
        if kind == "cor_like":
            setup += (f"CREATE TABLE IF NOT EXISTS {DB}.like_src ({COLUMNS}) USING parquet",)
    steps: list[Step] = []
    content = initial
    parts = parts_of(initial)
    for index in range(first_index, first_index + statements):
        size = rows + index
        query = rows_query(size, index)
        if kind in EMPTYING:
            content = unpartitioned(size, index)
            steps.append(Step("insert_overwrite", table, index, content,
                              ("insert_overwrite", (table,), (("as_select", query),)),
                              (f"INSERT OVERWRITE TABLE {table} {query}",)))
            content = unpartitioned(0, 0)
            if kind == "cor_columns":
                steps.append(Step(kind, table, index, content,
                                  ("create_or_replace_table", (table,), (("schema", COLUMNS),)),
                                  (f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({COLUMNS}) USING parquet")))
            elif kind == "cor_like":
                steps.append(Step(kind, table, index, content,
                                  ("create_or_replace_table", (table,), (("like", f"{DB}.like_src"),)),
                                  (f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} LIKE {DB}.like_src")))
            else:
                steps.append(Step(kind, table, index, content, ("truncate_table", (table,), ()),
                                  (f"TRUNCATE TABLE {table}",)))
        elif kind == "cor_select":
            content = unpartitioned(size, index)
            steps.append(Step(kind, table, index, content,
                              ("create_or_replace_table", (table,), (("as_select", query),)),
                              (f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} USING parquet AS {query}")))
        elif kind == "insert_overwrite":
            content = unpartitioned(size, index)
            steps.append(Step(kind, table, index, content, ("insert_overwrite", (table,), (("as_select", query),)),
                              (f"INSERT OVERWRITE TABLE {table} {query}",)))
        elif kind == "insert_overwrite_partition":
            k = index % PARTITIONS
            parts[k] = (size, index, size * (size - 1) // 2)
            content = partitioned(parts)
            steps.append(Step(kind, table, index, content,
                              ("insert_overwrite", (table,), (("as_select", query), ("partition", {"p": str(k)}))),
                              (f"INSERT OVERWRITE TABLE {table} PARTITION (p = {k}) {query}",)))
        elif kind == "insert_overwrite_dynamic":
            k = index % PARTITIONS
            parts[k] = (size, index, size * (size - 1) // 2)
            content = partitioned(parts)
            select = f"SELECT a, v, CAST({k} AS INT) AS p FROM ({query})"
            steps.append(Step(kind, table, index, content,
                              ("insert_overwrite", (table,), (("as_select", select), ("overwrite_mode", "dynamic"))),
                              (f"SET {OVERWRITE_MODE}=dynamic", f"INSERT OVERWRITE TABLE {table} {select}",
                               f"SET {OVERWRITE_MODE}=static")))
        elif kind == "truncate_partition":
            k = index % PARTITIONS
            parts[k] = (size, index, size * (size - 1) // 2)
            steps.append(Step("insert_overwrite_partition", table, index, partitioned(parts),
                              ("insert_overwrite", (table,), (("as_select", query), ("partition", {"p": str(k)}))),
                              (f"INSERT OVERWRITE TABLE {table} PARTITION (p = {k}) {query}",)))
            parts[k] = (0, 0, 0)
            content = partitioned(parts)
            steps.append(Step(kind, table, index, content,
                              ("truncate_table", (table,), (("partition", {"p": str(k)}),)),
                              (f"TRUNCATE TABLE {table} PARTITION (p = {k})",)))
        elif kind in DROP_KINDS:
            steps.append(Step(kind, table, index, ABSENT, ("drop_tables", ([table],), ()), (f"DROP TABLE {table}",)))
            steps.append(Step(kind, table, index, content, ("undrop_table", (table,), ()),
                              (partitioned_create(table, rows),)))  # plain Spark has no UNDROP: the same rows again
        else:
            new_type = "BIGINT" if index % 2 else "INT"
            steps.append(Step(kind, table, index, content, ("alter_column_type", (table, "v", new_type), ()), ()))
    return Plan(kind, table, is_partitioned, setup, initial, tuple(steps))


def outside_partition(table: str) -> tuple[str, ...]:
    """Plain Spark's statements that give ``table`` a partition ``p = PARTITIONS`` outside its directory."""
    where = OUTSIDE_ROOT / f"{table}-p{PARTITIONS}"
    return (f"ALTER TABLE {table} ADD PARTITION (p = {PARTITIONS}) LOCATION '{where}'",
            f"INSERT INTO {table} PARTITION (p = {PARTITIONS}) SELECT id AS a, CAST(0 AS INT) AS v "
            f"FROM range({OUTSIDE_ROWS})")


def partitioned_create(table: str, rows: int) -> str:
    return (f"CREATE TABLE {table} USING parquet PARTITIONED BY (p) AS SELECT id AS a, CAST(0 AS INT) AS v, "
            f"CAST(id % {PARTITIONS} AS INT) AS p FROM range({rows})")


def set_up(spark: Any, plan: Plan) -> Event:
    start = time.time()
    for statement in plan.setup:
        spark.sql(statement)
    return Event(plan.table, "setup", start, time.time(), plan.initial)


def run_atomic(ddl: Any, step: Step) -> object:
    method, args, kwargs = step.atomic
    if method == "alter_column_type":
        from ddl_log.engine.alter_ops import ChangeColumnType

        table, column, new_type = args
        return ddl.alter_table(table, ChangeColumnType(column, new_type))
    return getattr(ddl, method)(*args, **dict(kwargs))


def run_plain(spark: Any, step: Step) -> object:
    if not step.plain:
        raise ValueError(f"{step.kind} has no plain Spark form")
    for statement in step.plain:
        spark.sql(statement)
    return None


def run_step(step: Step, runner: Callable[[Step], object], previous: Content) -> Event:
    """Run one statement; a statement that raised leaves (by the model) the content it found."""
    start = time.time()
    try:
        runner(step)
    except Exception as error:  # noqa: BLE001 - recorded; the harness reports it
        from tests.readers.loop import error_text

        return Event(step.table, step.kind, start, time.time(), previous, error_text(error))
    return Event(step.table, step.kind, start, time.time(), step.content)


def runner_for(mode: str, *, ddl: Any = None, spark: Any = None) -> Callable[[Step], object]:
    if mode == "atomic":
        return lambda step: run_atomic(ddl, step)
    if mode == "plain":
        return lambda step: run_plain(spark, step)
    raise ValueError(f"unknown mode {mode!r}")


def run_plan(spark: Any, plan: Plan, runner: Callable[[Step], object], *,
             on_target: Callable[[Target | None], None] = lambda target: None,
             on_begin: Callable[[Step, float], None] = lambda step, at: None,
             on_event: Callable[[Event], None] = lambda event: None) -> list[Event]:
    """Set the table up (readers pointed elsewhere meanwhile), point the readers at it, run every step."""
    events: list[Event] = []
    if plan.setup:
        on_target(None)
        events.append(set_up(spark, plan))
        on_event(events[-1])
    on_target(plan.target)
    content = plan.initial
    for step in plan.steps:
        on_begin(step, time.time())
        event = run_step(step, runner, content)
        content = event.content
        events.append(event)
        on_event(event)
    return events
