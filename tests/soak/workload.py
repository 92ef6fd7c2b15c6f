"""The soak worker: ``python -m tests.soak.workload --dir DIR --iteration N --seed S``.

One process per iteration, one Spark start:

1. open ``AtomicDDL(home=DIR/home<gen>)`` (which recovers what the previous worker's kill interrupted), check the
   home against the model (:func:`tests.soak.checker.check`), close and re-open it (a second recovery must have
   nothing to do) and print the check as ``SOAK {"type": "check", ...}``;
2. save the checked model in ``DIR/state.json`` (atomically) with the name of this iteration's journal;
3. print ``SOAK {"type": "ready"}`` and run a random workload of atomic statements (seeded) until the parent kills
   the process group, or ``--statements`` ran (``SOAK {"type": "done"}``). Before each statement the journal gets
   what is about to run (its text carries the marker ``/* soak:<sid> */``, its args, the ``before`` and ``after``
   state of every object it touches, the expected outcome), after it how it ended; each record is fsynced.

``--check-only`` stops after step 1 (the parent's last run, to check the last kill). After a violation that leaves
the model unreliable the worker starts a new generation (a fresh home; the old one is kept for inspection) and
prints ``SOAK {"type": "reset"}`` instead of running a workload.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.soak.checker import (
    SCHEMA,
    WIDE_SCHEMA,
    aggregates,
    apply_statement,
    check,
    empty_model,
    marker,
    row_count,
    sid_of,
)

TABLE_POOL = tuple(f"t{i}" for i in range(6))
INITIAL_TABLES = ("t0", "t1", "t2", "t3")
VIEW_POOL = ("v0", "v1", "v2")
FUNCTION_POOL = ("f0", "f1")
DATABASE_POOL = ("soakdb0", "soakdb1")
DATABASE_TABLE_POOL = ("u0", "u1")
PROPERTY = "soak.p"
SIZES = (1, 10, 1_000, 20_000, 100_000)
MAX_ROWS = 300_000
MAX_SEGMENTS = 40
STATE_FILE = "state.json"

WEIGHTS: dict[str, int] = {
    "cor_select": 12,
    "cor_like": 4,
    "cor_schema": 3,
    "create_select": 8,
    "create_exists_fail": 1,
    "cor_select_fail": 2,
    "rename_move": 5,
    "rename_swap": 5,
    "rename_rotate": 3,
    "drop": 5,
    "truncate": 5,
    "insert_overwrite": 10,
    "insert_overwrite_fail": 2,
    "create_view": 5,
    "drop_views": 3,
    "alter_props": 5,
    "create_schema": 3,
    "create_like": 2,
    "cor_df": 4,
    "alter_view": 2,
    "rename_view": 2,
    "create_function": 3,
    "drop_function": 2,
    "create_database": 2,
    "database_table": 3,
    "drop_database": 2,
    "add_columns": 2,
    "drop_columns": 2,
    "unset_props": 2,
    "create_partitioned": 3,
    "add_partition": 2,
    "drop_partition": 2,
    "overwrite_dynamic": 3,
    "overwrite_partition": 3,
    "restore": int(os.environ.get("SOAK_RESTORE_WEIGHT", "3")),
    "undrop": int(os.environ.get("SOAK_UNDROP_WEIGHT", "2")),
}
NEEDS: dict[str, str] = {
    "rename_move": "rename",
    "rename_swap": "rename",
    "rename_rotate": "rename",
    "create_view": "views",
    "drop_views": "views",
    "alter_view": "views",
    "rename_view": "views",
    "alter_props": "alter",
    "unset_props": "alter",
    "add_columns": "alter",
    "drop_columns": "alter",
    "add_partition": "alter",
    "drop_partition": "alter",
    "overwrite_dynamic": "alter",
    "overwrite_partition": "alter",
    "create_function": "functions",
    "drop_function": "functions",
    "create_database": "databases",
    "database_table": "databases",
    "drop_database": "databases",
    "restore": "versions",
    "undrop": "versions",
}
"""Statement kinds that need a capability the catalog engine may not have yet."""
CAPABILITIES: dict[str, tuple[str, ...]] = {
    "rename": ("view_definition",),  # plan_renames asks whether the target is a view
    "views": ("view_definition", "create_view", "drop_view"),
    "alter": ("table_metadata", "set_properties", "unset_properties", "add_columns", "add_partition",
              "drop_partition"),
    "functions": ("function_definition", "create_function", "drop_function"),
    "databases": ("database_exists", "create_database", "drop_database", "list_objects"),
    "versions": ("version_of", "install_version"),
}
RESTORABLE_FOR = 600.0
"""RESTORE and UNDROP pick only versions restorable for this many seconds more (never one about to expire)."""


def capabilities(catalog: Any) -> dict[str, bool]:
    return {cap: all(callable(getattr(catalog, method, None)) for method in methods)
            for cap, methods in CAPABILITIES.items()}


# ---------------------------------------------------------------------------------------------------- state


def durable_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_state(workdir: Path) -> dict[str, Any]:
    path = workdir / STATE_FILE
    if path.exists():
        return dict(json.loads(path.read_text(encoding="utf-8")))
    return new_generation(0, 0)


def new_generation(gen: int, iteration: int) -> dict[str, Any]:
    return {"gen": gen, "iteration": iteration, "journal": None, "model": empty_model(), "committed": [],
            "uncommitted": [], "setup": True}


class Journal:
    """Append-only JSON lines, each flushed and fsynced before the call returns."""

    def __init__(self, path: Path) -> None:
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the worker

    def write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, sort_keys=True) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())


def emit(message_type: str, /, **payload: Any) -> None:
    print("SOAK " + json.dumps({"type": message_type, **payload}, default=str), flush=True)


# ---------------------------------------------------------------------------------------------------- planning


class Planner:
    """Draws statements valid for the model's current state, with their expected ``after`` state."""

    def __init__(self, rng: random.Random, model: dict[str, Any], caps: dict[str, bool]) -> None:
        self.rng = rng
        self.model = model
        self.caps = caps
        self.held: set[str] = set()
        """Names whose default directory holds a kept version waiting for its grace period: a replace that changes
        the partition columns of a table of that name takes the rename path, which needs that directory, and is
        refused (``NameHeldByVersionError``, a documented difference), changing nothing."""
        self.restorable: dict[str, list[int]] = {}
        """Table name -> kept versions of that name (DESCRIBE HISTORY's numbers) whose state the model knows: the
        state the table had when a committed statement of this soak retired it (see :func:`live_versions`)."""
        self.undroppable: dict[str, int] = {}
        """Table name -> the dropped version UNDROP brings back (the newest of the name), when the model knows it."""

    # -- helpers

    @property
    def tables(self) -> list[str]:
        return sorted(self.model["tables"])

    @property
    def free(self) -> list[str]:
        return [name for name in TABLE_POOL if name not in self.model["tables"]]

    def with_property(self) -> list[str]:
        """The tables whose model holds the soak's property."""
        return [t for t in self.tables if PROPERTY in ((self.state(t) or {}).get("props") or {})]

    def state(self, name: str) -> dict[str, Any] | None:
        value = self.model["tables"].get(name)
        return copy.deepcopy(value)

    def tables_of_schema(self, schema: str) -> list[str]:
        """Unpartitioned tables of ``schema`` (ADD COLUMNS would put ``x`` before a partition column)."""
        return [name for name in self.tables if self.model["tables"][name].get("schema", SCHEMA) == schema
                and not self.model["tables"][name].get("part")]

    @property
    def partitioned(self) -> list[str]:
        return [name for name in self.tables if self.model["tables"][name].get("part")]

    @property
    def free_views(self) -> list[str]:
        return [name for name in VIEW_POOL if name not in self.model["views"]]

    @property
    def databases_with_room(self) -> list[str]:
        return [db for db, value in sorted(self.model["databases"].items())
                if any(name not in value["tables"] for name in DATABASE_TABLE_POOL)]

    def like(self, source: str) -> dict[str, Any]:
        """An empty copy of ``source``: its schema, no rows, no properties (LIKE copies none, as documented)."""
        schema = self.model["tables"][source].get("schema", SCHEMA)
        part = self.model["tables"][source].get("part")
        return {"seg": [], "props": {}, **({"schema": schema} if schema != SCHEMA else {}),
                **({"part": part} if part else {})}

    @staticmethod
    def fitted(query: str, state: dict[str, Any] | None) -> str:
        """``query`` (columns k, w) shaped for a table of ``state``'s schema: the added column is NULL."""
        if state is not None and state.get("schema", SCHEMA) == WIDE_SCHEMA:
            return f"SELECT k, w, CAST(NULL AS INT) AS x FROM ({query}) AS q"
        return query

    def props(self, tag: str) -> dict[str, str]:
        return {PROPERTY: tag} if self.rng.random() < 0.3 else {}

    def fresh(self, tag: str) -> tuple[str, list[list[Any]]]:
        size = self.rng.choice(SIZES)
        lo = self.rng.randrange(0, 1_000_000)
        return (f"SELECT CAST(id AS BIGINT) AS k, '{tag}' AS w FROM range({lo}, {lo + size})",
                [[lo, lo + size, tag]])

    def from_table(self, source: str, tag: str) -> tuple[str, list[list[Any]]]:
        segments = self.model["tables"][source]["seg"]
        if self.rng.random() < 0.5:
            shift = self.rng.randrange(1, 1000)
            return f"SELECT k + {shift} AS k, w FROM {source}", [[lo + shift, hi + shift, w] for lo, hi, w in segments]
        return f"SELECT k, '{tag}' AS w FROM {source}", [[lo, hi, tag] for lo, hi, _ in segments]

    def select(self, tag: str) -> tuple[str, list[list[Any]]]:
        """A query of known result: fresh rows, a table's rows shifted or relabelled, or a UNION ALL of two."""
        sources = [t for t in self.tables if row_count(self.model["tables"][t]["seg"]) <= MAX_ROWS // 2
                   and len(self.model["tables"][t]["seg"]) <= MAX_SEGMENTS // 2]
        roll = self.rng.random()
        if not sources or roll < 0.35:
            return self.fresh(tag)
        first = self.from_table(self.rng.choice(sources), tag)
        if roll < 0.7:
            return first
        second = self.fresh(tag) if self.rng.random() < 0.5 else self.from_table(self.rng.choice(sources), tag)
        return f"{first[0]} UNION ALL {second[0]}", first[1] + second[1]

    @staticmethod
    def failing_select(tag: str) -> str:
        """Analyses fine, fails while the job runs (after some rows are written)."""
        return (f"SELECT CAST(id AS BIGINT) AS k, CASE WHEN id < 1500 THEN '{tag}' "
                f"ELSE CAST(raise_error('soak {tag} fails on purpose') AS STRING) END AS w FROM range(2000)")

    # -- statements

    def plan(self, sid: str, *, create: str | None = None) -> dict[str, Any]:
        """The next statement; ``create``: a CREATE TABLE AS SELECT of fresh rows under that name (set-up)."""
        kind = "create_select" if create is not None else self.pick()
        touched_tables: dict[str, Any] = {}
        touched_views: dict[str, Any] = {}
        touched_functions: dict[str, Any] = {}
        touched_databases: dict[str, Any] = {}
        expect = "ok"
        tag = sid
        call: dict[str, Any]
        rng = self.rng
        if kind in ("cor_select", "cor_like", "cor_schema", "cor_select_fail"):
            target = rng.choice(self.tables) if kind == "cor_select_fail" else rng.choice(TABLE_POOL)
            if kind == "cor_select":
                query, segments = self.select(tag)
                props = self.props(tag)
                call = {"op": "create_or_replace_table", "args": [target],
                        "kw": {"as_select": query, "properties": props or None}}
                text = f"CREATE OR REPLACE TABLE {target} AS {query}"
                touched_tables[target] = {"seg": segments, "props": props}
            elif kind == "cor_like":
                source = rng.choice(self.tables)
                call = {"op": "create_or_replace_table", "args": [target], "kw": {"like": source}}
                text = f"CREATE OR REPLACE TABLE {target} LIKE {source}"
                touched_tables[target] = self.like(source)
            elif kind == "cor_schema":
                props = self.props(tag)
                call = {"op": "create_or_replace_table", "args": [target],
                        "kw": {"schema": "k BIGINT, w STRING", "properties": props or None}}
                text = f"CREATE OR REPLACE TABLE {target} (k BIGINT, w STRING)"
                touched_tables[target] = {"seg": [], "props": props}
            else:
                query = self.failing_select(tag)
                call = {"op": "create_or_replace_table", "args": [target], "kw": {"as_select": query}}
                text = f"CREATE OR REPLACE TABLE {target} AS {query}"
                touched_tables[target] = self.state(target)
                expect = "failed"
            before = self.model["tables"].get(target)
            if (kind != "cor_select_fail" and before is not None and target.lower() in self.held
                    and bool(before.get("part")) != bool(touched_tables[target].get("part"))):
                touched_tables[target] = self.state(target)  # refused, naming the kept version in the way
                expect = "failed"
        elif kind == "create_select":
            target = create if create is not None else rng.choice(self.free)
            query, segments = self.fresh(tag) if create is not None else self.select(tag)
            props = {} if create is not None else self.props(tag)
            call = {"op": "create_table", "args": [target], "kw": {"as_select": query, "properties": props or None}}
            text = f"CREATE TABLE {target} AS {query}"
            touched_tables[target] = {"seg": segments, "props": props}
        elif kind == "create_exists_fail":
            target = rng.choice(self.tables)
            query, _ = self.fresh(tag)
            call = {"op": "create_table", "args": [target], "kw": {"as_select": query}}
            text = f"CREATE TABLE {target} AS {query}"
            touched_tables[target] = self.state(target)
            expect = "failed"
        elif kind in ("rename_move", "rename_swap", "rename_rotate"):
            free = rng.choice(self.free)
            count = {"rename_move": 1, "rename_swap": 2, "rename_rotate": 3}[kind]
            names = rng.sample(self.tables, count)
            if count == 1:
                pairs = [[names[0], free]]
            else:  # a -> x, b -> a, c -> b, x -> c: every table moves one place along the cycle
                pairs = [[names[0], free]] + [[names[i + 1], names[i]] for i in range(count - 1)] + [[free, names[-1]]]
            moved: dict[str, Any] = {name: self.state(name) for name in [*names, free]}
            result = dict(moved)
            for old, new in pairs:
                result[new], result[old] = result[old], None
            call = {"op": "rename_tables", "args": [pairs], "kw": {}}
            text = "RENAME TABLE " + ", ".join(f"{old} TO {new}" for old, new in pairs)
            touched_tables.update(result)
        elif kind == "drop":
            names = rng.sample(self.tables, rng.choice([1, 1, 2]) if len(self.tables) > 3 else 1)
            call = {"op": "drop_tables", "args": [names], "kw": {}}
            text = "DROP TABLE " + ", ".join(names)
            touched_tables.update({name: None for name in names})
        elif kind == "truncate":
            target = rng.choice(self.tables)
            before = self.state(target)
            assert before is not None
            call = {"op": "truncate_table", "args": [target], "kw": {}}
            text = f"TRUNCATE TABLE {target}"
            touched_tables[target] = {**before, "seg": []}  # as Spark: the table's properties and schema stay
        elif kind in ("insert_overwrite", "insert_overwrite_fail"):
            target = rng.choice(self.tables)
            before = self.state(target)
            assert before is not None
            if kind == "insert_overwrite":
                query, segments = self.select(tag)
                touched_tables[target] = {**before, "seg": segments}
            else:
                query = self.failing_select(tag)
                touched_tables[target] = before
                expect = "failed"
            query = self.fitted(query, before)
            call = {"op": "insert_overwrite", "args": [target], "kw": {"as_select": query}}
            text = f"INSERT OVERWRITE TABLE {target} {query}"
        elif kind == "restore":
            target = rng.choice(sorted(set(self.restorable) & set(self.tables)))
            number = rng.choice(self.restorable[target])
            call = {"op": "restore_table", "args": [target], "kw": {"version": number}}
            text = f"RESTORE TABLE {target} TO VERSION AS OF {number}"
            touched_tables[target] = copy.deepcopy(self.model["kept"][str(number)]["state"])
        elif kind == "undrop":
            target = rng.choice(sorted(set(self.undroppable) & set(self.free)))
            call = {"op": "undrop_table", "args": [target], "kw": {}}
            text = f"UNDROP TABLE {target}"
            touched_tables[target] = copy.deepcopy(self.model["kept"][str(self.undroppable[target])]["state"])
        elif kind == "create_view":
            target = rng.choice(VIEW_POOL)
            exists = target in self.model["views"]
            or_replace = exists or rng.random() < 0.5
            query = f"SELECT CAST({rng.randrange(10**6)} AS BIGINT) AS k, '{tag}' AS w"
            call = {"op": "create_view", "args": [target], "kw": {"as_select": query, "or_replace": or_replace}}
            text = f"CREATE {'OR REPLACE ' if or_replace else ''}VIEW {target} AS {query}"
            touched_views[target] = query
        elif kind == "drop_views":
            views = sorted(self.model["views"])
            names = rng.sample(views, min(len(views), rng.choice([1, 2])))
            call = {"op": "drop_views", "args": [names], "kw": {}}
            text = "DROP VIEW " + ", ".join(names)
            touched_views.update({name: None for name in names})
        elif kind == "alter_props":
            target = rng.choice(self.tables)
            before = self.state(target)
            assert before is not None
            call = {"op": "alter_table", "args": [target], "kw": {"alter": ["set", {PROPERTY: tag}]}}
            text = f"ALTER TABLE {target} SET TBLPROPERTIES ('{PROPERTY}' = '{tag}')"
            touched_tables[target] = {**before, "props": {**before["props"], PROPERTY: tag}}
        elif kind == "unset_props":
            target = rng.choice(self.with_property())
            before = self.state(target)
            assert before is not None
            call = {"op": "alter_table", "args": [target], "kw": {"alter": ["unset", [PROPERTY]]}}
            text = f"ALTER TABLE {target} UNSET TBLPROPERTIES IF EXISTS ('{PROPERTY}')"
            touched_tables[target] = {**before, "props": {k: v for k, v in before["props"].items() if k != PROPERTY}}
        elif kind in ("add_columns", "drop_columns"):
            adding = kind == "add_columns"
            target = rng.choice(self.tables_of_schema(SCHEMA if adding else WIDE_SCHEMA))
            before = self.state(target)
            assert before is not None
            call = {"op": "alter_table", "args": [target], "kw": {"alter": ["add_x" if adding else "drop_x", None]}}
            text = f"ALTER TABLE {target} " + ("ADD COLUMNS (x INT)" if adding else "DROP COLUMNS (x)")
            after = {k: v for k, v in before.items() if k != "schema"}
            touched_tables[target] = {**after, "schema": WIDE_SCHEMA} if adding else after
        elif kind == "create_partitioned":
            target = rng.choice(self.free)
            query, segments = self.select(tag)
            call = {"op": "create_table", "args": [target], "kw": {"as_select": query, "partitioned_by": ["w"]}}
            text = f"CREATE TABLE {target} PARTITIONED BY (w) AS {query}"
            touched_tables[target] = {"seg": segments, "props": {}, "part": ["w"]}
        elif kind in ("add_partition", "drop_partition"):
            target = rng.choice(self.partitioned)
            before = self.state(target)
            assert before is not None
            labels = sorted({label for _, _, label in before["seg"]})
            if kind == "add_partition" or not labels:
                label, verb, keep = tag, "add_partition", before["seg"]
            else:
                label, verb = rng.choice(labels), "drop_partition"
                keep = [segment for segment in before["seg"] if segment[2] != label]
            call = {"op": "alter_table", "args": [target], "kw": {"alter": [verb, {"w": label}]}}
            text = f"ALTER TABLE {target} {'ADD' if verb == 'add_partition' else 'DROP'} PARTITION (w = '{label}')"
            touched_tables[target] = {**before, "seg": keep}
        elif kind == "overwrite_dynamic":
            # Dynamic partition overwrite: only the labels (partitions of w) the query writes rows to are replaced.
            target = rng.choice(self.partitioned)
            before = self.state(target)
            assert before is not None
            query, segments = self.select(tag)
            if rng.random() < 0.5 and before["seg"]:  # rewrite one existing label, the others stay
                label = rng.choice(sorted({w for _, _, w in before["seg"]}))
                query, segments = f"SELECT k, '{label}' AS w FROM ({query}) AS q", [
                    [lo, hi, label] for lo, hi, _ in segments]
            written = {w for lo, hi, w in segments if hi > lo}
            kept = [segment for segment in before["seg"] if segment[2] not in written]
            call = {"op": "insert_overwrite", "args": [target], "kw": {"as_select": query,
                                                                       "overwrite_mode": "dynamic"}}
            text = f"INSERT OVERWRITE TABLE {target} {query}"
            touched_tables[target] = {**before, "seg": kept + segments}
        elif kind == "overwrite_partition":
            # PARTITION (w='label'): that partition replaced (rows or not), the others stay, in either mode.
            target = rng.choice(self.partitioned)
            before = self.state(target)
            assert before is not None
            labels = sorted({w for _, _, w in before["seg"]})
            label = rng.choice(labels) if labels and rng.random() < 0.7 else tag
            query, segments = self.select(tag)
            kept = [segment for segment in before["seg"] if segment[2] != label]
            call = {"op": "insert_overwrite", "args": [target],
                    "kw": {"as_select": f"SELECT k FROM ({query}) AS q", "partition": {"w": label},
                           "overwrite_mode": rng.choice(["static", "dynamic"])}}
            text = f"INSERT OVERWRITE TABLE {target} PARTITION (w = '{label}') SELECT k FROM ({query}) AS q"
            touched_tables[target] = {**before, "seg": kept + [[lo, hi, label] for lo, hi, _ in segments]}
        elif kind == "create_schema":
            target = rng.choice(self.free)
            props = self.props(tag)
            call = {"op": "create_table", "args": [target],
                    "kw": {"schema": "k BIGINT, w STRING", "properties": props or None}}
            text = f"CREATE TABLE {target} (k BIGINT, w STRING)"
            touched_tables[target] = {"seg": [], "props": props}
        elif kind == "create_like":
            target, source = rng.choice(self.free), rng.choice(self.tables)
            call = {"op": "create_table", "args": [target], "kw": {"like": source}}
            text = f"CREATE TABLE {target} LIKE {source}"
            touched_tables[target] = self.like(source)
        elif kind == "cor_df":
            target = rng.choice(TABLE_POOL)
            query, segments = self.select(tag)
            call = {"op": "create_or_replace_table", "args": [target], "kw": {"df_sql": query}}
            text = f"CREATE OR REPLACE TABLE {target} AS /* DataFrame */ {query}"
            touched_tables[target] = {"seg": segments, "props": {}}
            before = self.model["tables"].get(target)
            if before is not None and before.get("part") and target.lower() in self.held:
                touched_tables[target] = self.state(target)  # refused: see ``held``
                expect = "failed"
        elif kind == "alter_view":
            target = rng.choice(sorted(self.model["views"]))
            query = f"SELECT CAST({rng.randrange(10**6)} AS BIGINT) AS k, '{tag}' AS w"
            call = {"op": "alter_view", "args": [target], "kw": {"as_select": query}}
            text = f"ALTER VIEW {target} AS {query}"
            touched_views[target] = query
        elif kind == "rename_view":
            old, new = rng.choice(sorted(self.model["views"])), rng.choice(self.free_views)
            call = {"op": "rename_view", "args": [old, new], "kw": {}}
            text = f"ALTER VIEW {old} RENAME TO {new}"
            touched_views.update({old: None, new: self.model["views"][old]})
        elif kind == "create_function":
            target = rng.choice(FUNCTION_POOL)
            n = rng.randrange(1, 10**6)
            or_replace = target in self.model["functions"] or rng.random() < 0.5
            call = {"op": "create_sql_function", "args": [target],
                    "kw": {"params": "x BIGINT", "returns": "BIGINT", "body": f"x + {n}", "or_replace": or_replace}}
            head = "CREATE OR REPLACE FUNCTION" if or_replace else "CREATE FUNCTION"
            text = f"{head} {target}(x BIGINT) RETURNS BIGINT RETURN x + {n}"
            touched_functions[target] = n
        elif kind == "drop_function":
            target = rng.choice(sorted(self.model["functions"]))
            call = {"op": "drop_function", "args": [target], "kw": {}}
            text = f"DROP FUNCTION {target}"
            touched_functions[target] = None
        elif kind == "create_database":
            target = rng.choice([db for db in DATABASE_POOL if db not in self.model["databases"]])
            call = {"op": "create_database", "args": [target], "kw": {}}
            text = f"CREATE DATABASE {target}"
            touched_databases[target] = {"tables": {}}
        elif kind == "database_table":
            db = rng.choice(self.databases_with_room)
            content = copy.deepcopy(self.model["databases"][db])
            table = rng.choice([name for name in DATABASE_TABLE_POOL if name not in content["tables"]])
            query, segments = self.fresh(tag)
            call = {"op": "create_table", "args": [f"{db}.{table}"], "kw": {"as_select": query}}
            text = f"CREATE TABLE {db}.{table} AS {query}"
            content["tables"][table] = {"seg": segments, "props": {}}
            touched_databases[db] = content
        elif kind == "drop_database":
            target = rng.choice(sorted(self.model["databases"]))
            call = {"op": "drop_database", "args": [target], "kw": {"cascade": True}}
            text = f"DROP DATABASE {target} CASCADE"
            touched_databases[target] = None
        else:
            raise ValueError(f"unknown statement kind {kind!r}")
        before_state = {
            "tables": {name: self.state(name) for name in touched_tables},
            "views": {name: self.model["views"].get(name) for name in touched_views},
            "functions": {name: self.model["functions"].get(name) for name in touched_functions},
            "databases": {name: copy.deepcopy(self.model["databases"].get(name)) for name in touched_databases},
        }
        after_state = {"tables": touched_tables, "views": touched_views, "functions": touched_functions,
                       "databases": touched_databases}
        if expect != "ok":
            after_state = copy.deepcopy(before_state)
        return {"op": "begin", "sid": sid, "kind": kind, "call": call, "text": f"{text} {marker(sid)}",
                "expect": expect, "before": before_state, "after": after_state}

    def applicable(self, kind: str) -> bool:
        need = NEEDS.get(kind)
        if need is not None and not self.caps.get(need, False):
            return False
        tables, free = len(self.tables), len(self.free)
        if kind in ("cor_like", "cor_select_fail", "create_exists_fail", "truncate", "insert_overwrite",
                    "insert_overwrite_fail", "alter_props"):
            return tables >= 1
        if kind == "create_select":
            return free >= 1
        if kind in ("rename_move", "rename_swap", "rename_rotate"):
            count = {"rename_move": 1, "rename_swap": 2, "rename_rotate": 3}[kind]
            return tables >= count and len(self.free) >= 1
        if kind == "drop":
            return tables >= 3
        if kind == "drop_views" or kind == "alter_view":
            return bool(self.model["views"])
        if kind == "rename_view":
            return bool(self.model["views"]) and bool(self.free_views)
        if kind in ("create_schema", "create_like"):
            return free >= 1 and (kind == "create_schema" or tables >= 1)
        if kind == "unset_props":  # of a set property: Spark 4's UNSET of an unset key does nothing, binlogs nothing
            return bool(self.with_property())
        if kind == "create_partitioned":
            return free >= 1
        if kind in ("add_partition", "drop_partition", "overwrite_dynamic", "overwrite_partition"):
            return bool(self.partitioned)
        if kind == "add_columns":
            return bool(self.tables_of_schema(SCHEMA))
        if kind == "drop_columns":
            return bool(self.tables_of_schema(WIDE_SCHEMA))
        if kind == "drop_function":
            return bool(self.model["functions"])
        if kind == "restore":
            return bool(set(self.restorable) & set(self.tables))
        if kind == "undrop":
            return bool(set(self.undroppable) & set(self.free))
        if kind == "create_database":
            return len(self.model["databases"]) < len(DATABASE_POOL)
        if kind == "database_table":
            return bool(self.databases_with_room)
        if kind == "drop_database":
            return bool(self.model["databases"])
        return True

    def pick(self) -> str:
        kinds = [kind for kind in WEIGHTS if self.applicable(kind)]
        weights = [WEIGHTS[kind] * (4 if kind == "create_select" and len(self.tables) < 3 else 1) for kind in kinds]
        return self.rng.choices(kinds, weights)[0]


# ---------------------------------------------------------------------------------------------------- running


def execute(ddl: Any, statement: dict[str, Any]) -> Any:
    call = statement["call"]
    op, args, kw = call["op"], list(call["args"]), dict(call["kw"])
    kw["statement"] = statement["text"]
    if op == "alter_table":
        from ddl_log.engine.alter_ops import (
            AddColumns,
            AddPartition,
            DropColumns,
            DropPartition,
            SetProperties,
            UnsetProperties,
        )

        verb, value = kw.pop("alter")
        alter = {"set": lambda: SetProperties(value), "unset": lambda: UnsetProperties(value, if_exists=True),
                 "add_x": lambda: AddColumns("x INT"), "drop_x": lambda: DropColumns(("x",)),
                 "add_partition": lambda: AddPartition(value), "drop_partition": lambda: DropPartition(value),
                 }[verb]()
        return ddl.alter_table(args[0], alter, statement=kw["statement"])
    if "df_sql" in kw:
        kw["df"] = ddl.spark.sql(kw.pop("df_sql"))
    if op == "rename_tables":
        args = [[(old, new) for old, new in args[0]]]
    method: Callable[..., Any] = getattr(ddl, op)
    return method(*args, **kw)


def live_versions(ddl: Any) -> dict[int, Any]:
    """The kept versions of ``default`` tables restorable for :data:`RESTORABLE_FOR` seconds more, by number."""
    from actions.kept_versions import kept_versions

    soon = time.time() + RESTORABLE_FOR
    return {version.number: version for version in kept_versions(ddl.log)
            if version.table.db == "default" and version.due > soon}


def newly_kept(statement: dict[str, Any], before: dict[int, Any], after: dict[int, Any]) -> dict[str, Any]:
    """The versions a committed statement kept (in ``after``, not in ``before``), each with the state its table had
    before the statement: the model's ``kept`` entries RESTORE and UNDROP are planned from."""
    kept: dict[str, Any] = {}
    for number in sorted(set(after) - set(before)):
        name = after[number].table.name
        state = statement["before"]["tables"].get(name)
        if state is not None:
            kept[str(number)] = {"table": name, "state": state}
    return kept


def restorable(ddl: Any, live: dict[int, Any], known: dict[str, Any]) -> tuple[dict[str, list[int]], dict[str, int]]:
    """What RESTORE (kept versions of a name, replaced or dropped) and UNDROP (the newest dropped version of a name:
    the one it brings back) can be planned from: live versions whose state the model knows."""
    from actions.kept_versions import dropped_tables

    versions: dict[str, list[int]] = {}
    for number, version in sorted(live.items()):
        if str(number) in known and known[str(number)]["table"] == version.table.name:
            versions.setdefault(version.table.name, []).append(number)
    newest_dropped = {version.table.name: version.number for version in dropped_tables(ddl.log, "default")}
    undrop = {name: number for name, number in newest_dropped.items() if number in live and str(number) in known}
    return versions, undrop


def returned_event(result: Any) -> Any:
    from chains.binlog import BinlogEvent

    if isinstance(result, BinlogEvent):
        return result
    event = getattr(result, "event", None)
    return event if isinstance(event, BinlogEvent) else None


def run_workload(ddl: Any, state: dict[str, Any], journal: Journal, rng: random.Random, statements: int,
                 caps: dict[str, bool], *, setup: bool, readers: Any = None) -> None:
    from ddl_log import DDLLogError

    model = state["model"]
    planner = Planner(rng, model, caps)
    pending = [name for name in INITIAL_TABLES if name not in model["tables"]] if setup else []
    for number in range(statements):
        sid = f"g{state['gen']}i{state['iteration']}s{number}"
        planner.held = {deletion.location.rstrip("/").rpartition("/")[2].lower()
                        for deletion in ddl.pending_deletions()}
        live = live_versions(ddl)
        known = model.setdefault("kept", {})
        for number in [number for number in known if int(number) not in live]:
            del known[number]  # expired, claimed by a RESTORE / UNDROP, or deleted with its name's directory
        planner.restorable, planner.undroppable = restorable(ddl, live, known)
        statement = planner.plan(sid, create=pending.pop(0)) if pending else planner.plan(sid)
        journal.write(statement)
        emit("begin", n=number, sid=sid, kind=statement["kind"])
        last_seq = ddl.binlog_file.last_seq
        started = time.monotonic()
        wall_start = time.time()
        outcome, error, result = "ok", None, None
        try:
            result = execute(ddl, statement)
        except DDLLogError as exc:
            outcome, error = "failed", f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - recorded; the checker reports it
            outcome, error = "error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        secs = round(time.monotonic() - started, 3)
        found = [event for event in ddl.binlog_file.events(last_seq) if sid_of(event.statement) == sid]
        event = returned_event(result)
        kept = newly_kept(statement, live, live_versions(ddl)) if found else {}
        journal.write({"op": "end", "sid": sid, "outcome": outcome, "error": error, "secs": secs,
                       "event_seq": event.seq if event is not None else None,
                       "binlogged": [e.seq for e in found], "kept": kept})
        known.update(kept)
        emit("end", n=number, sid=sid, kind=statement["kind"], secs=secs, outcome=outcome)
        if readers is not None:
            readers.statement(statement, wall_start, time.time(), bool(found))
            emit("readers", **readers.settle(time.time()))
        apply_statement(model, statement, bool(found))
        if outcome != statement["expect"] or (error and "rollback incomplete" in error):
            return  # something unplanned: let the next worker recover and check rather than pile up more


# ---------------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak.workload")
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--iteration", required=True, type=int)
    parser.add_argument("--seed", required=True, type=int)
    parser.add_argument("--statements", type=int, default=40)
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--readers", type=int, default=0, help="reader threads in the session (issue 14)")
    args = parser.parse_args(argv)

    from ddl_log import AtomicDDL

    workdir: Path = args.dir.resolve()
    state = load_state(workdir)
    home = workdir / f"home{state['gen']}"
    journal = workdir / state["journal"] if state["journal"] else None
    started = time.monotonic()
    ddl = AtomicDDL(home=home)
    opened = time.monotonic()
    result = check(ddl, home, state, journal)
    checked = time.monotonic()
    ddl.close()
    ddl = AtomicDDL(home=home)
    second = ddl.last_recovery
    if not second.nothing_to_do:
        result["violations"].append({
            "kind": "recovery", "what": "a second recovery still had something to do", "object": None,
            "detail": {"outcomes": [o.as_dict() for o in second.outcomes],
                       "abandoned": [repr(c) for c in second.abandoned]}})
        result["reset"] = True
    model = result.pop("model")
    emit("check", gen=state["gen"], iteration=args.iteration, journal=state["journal"], home=str(home),
         secs={"open": round(opened - started, 2), "check": round(checked - opened, 2)}, **result)
    if args.check_only:
        ddl.close()
        return 0
    if result["reset"]:
        durable_write(workdir / STATE_FILE, json.dumps(new_generation(state["gen"] + 1, args.iteration)))
        emit("reset", gen=state["gen"] + 1)
        ddl.close()
        return 0
    journal_name = f"journal-g{state['gen']}-i{args.iteration:04d}.jsonl"
    setup = bool(state.get("setup")) and any(name not in model["tables"] for name in INITIAL_TABLES)
    state.update({"iteration": args.iteration, "journal": journal_name, "model": model,
                  "committed": result["committed"], "uncommitted": result["uncommitted"], "setup": setup})
    durable_write(workdir / STATE_FILE, json.dumps(state))
    caps = capabilities(ddl.catalog)
    rng = random.Random(f"{args.seed}:{state['gen']}:{args.iteration}")
    emit("ready", caps=caps, tables=sorted(model["tables"]), schema=SCHEMA,
         rows={name: row_count(value["seg"]) for name, value in model["tables"].items()},
         labels={name: len(aggregates(value["seg"])) for name, value in model["tables"].items()})
    readers = None
    if args.readers > 0:
        from tests.soak.readers import SoakReaders

        readers = SoakReaders(ddl.spark, model, TABLE_POOL, threads=args.readers, seed=f"{args.seed}:{args.iteration}")
        readers.start()
    run_workload(ddl, state, Journal(workdir / journal_name), rng, args.statements, caps, setup=setup,
                 readers=readers)
    if readers is not None:
        readers.close()
    emit("done")
    ddl.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
