"""The cluster soak's statements and what each does to the tables, so that the checker can replay the binlog.

Every statement's result is fixed by its text and the state before it in commit order, never by what a driver
believed the state was: a CREATE OR REPLACE / CREATE / INSERT OVERWRITE writes fresh rows labelled with the
statement's id (``w``), TRUNCATE empties, DROP removes, RENAME moves. Drivers plan from the catalog they see, so
statements race (two drivers create the same table) and some fail on their preconditions; a failure is expected
and must leave nothing behind. A table's state is its list of row segments ``[lo, hi, w]`` (tests.soak.checker's
form), or absent.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from typing import Any

from tests.soak.checker import marker

SIZES = (1, 10, 1_000, 20_000)
WEIGHTS: dict[str, int] = {
    "cor_select": 30,
    "create_select": 10,
    "insert_overwrite": 15,
    "truncate": 8,
    "drop": 6,
    "rename_move": 6,
    "rename_swap": 6,
}
State = dict[str, list[list[Any]]]
"""Table name -> its row segments; an absent table has no key."""


class NotApplicableError(Exception):
    """A committed statement whose precondition does not hold in the replayed state: it ran interleaved with
    another driver's statement on the same table. ``after``: its best-effort effect all the same."""

    def __init__(self, why: str, after: State) -> None:
        super().__init__(why)
        self.why = why
        self.after = after


def fresh(rng: random.Random, tag: str) -> tuple[str, list[list[Any]]]:
    size = rng.choice(SIZES)
    lo = rng.randrange(0, 1_000_000)
    return f"SELECT CAST(id AS BIGINT) AS k, '{tag}' AS w FROM range({lo}, {lo + size})", [[lo, lo + size, tag]]


def applicable(kind: str, present: list[str], absent: list[str]) -> bool:
    if kind == "cor_select":
        return True
    if kind == "create_select":
        return bool(absent)
    if kind in ("insert_overwrite", "truncate", "drop"):
        return bool(present)
    if kind == "rename_move":
        return bool(present) and bool(absent)
    if kind == "rename_swap":
        return len(present) >= 2 and bool(absent)
    raise ValueError(f"unknown statement kind {kind!r}")


def plan(rng: random.Random, sid: str, pool: Iterable[str], seen: Iterable[str]) -> dict[str, Any]:
    """The next statement of a driver that sees the tables ``seen`` among ``pool``: a journal ``begin`` record
    (``call`` for tests.soak.workload.execute, ``effect`` for :func:`apply`)."""
    names = sorted(pool)
    present = sorted(set(names) & set(seen))
    absent = [name for name in names if name not in present]
    kinds = [kind for kind in WEIGHTS if applicable(kind, present, absent)]
    kind = rng.choices(kinds, [WEIGHTS[k] for k in kinds])[0]
    effect: dict[str, Any]
    if kind in ("cor_select", "create_select", "insert_overwrite"):
        target = rng.choice(names if kind == "cor_select" else absent if kind == "create_select" else present)
        query, segments = fresh(rng, sid)
        op, verb = {"cor_select": ("create_or_replace_table", "CREATE OR REPLACE TABLE {} AS"),
                    "create_select": ("create_table", "CREATE TABLE {} AS"),
                    "insert_overwrite": ("insert_overwrite", "INSERT OVERWRITE TABLE {}")}[kind]
        call = {"op": op, "args": [target], "kw": {"as_select": query}}
        text = f"{verb.format(target)} {query}"
        effect = {"op": {"cor_select": "replace", "create_select": "create", "insert_overwrite": "overwrite"}[kind],
                  "table": target, "seg": segments}
    elif kind == "truncate":
        target = rng.choice(present)
        call, text = {"op": "truncate_table", "args": [target], "kw": {}}, f"TRUNCATE TABLE {target}"
        effect = {"op": "truncate", "table": target}
    elif kind == "drop":
        target = rng.choice(present)
        call, text = {"op": "drop_tables", "args": [[target]], "kw": {}}, f"DROP TABLE {target}"
        effect = {"op": "drop", "tables": [target]}
    else:
        free = rng.choice(absent)
        if kind == "rename_move":
            pairs = [[rng.choice(present), free]]
        else:  # a -> x, b -> a, x -> b: the two tables swap names
            a, b = rng.sample(present, 2)
            pairs = [[a, free], [b, a], [free, b]]
        call = {"op": "rename_tables", "args": [pairs], "kw": {}}
        text = "RENAME TABLE " + ", ".join(f"{old} TO {new}" for old, new in pairs)
        effect = {"op": "rename", "pairs": pairs}
    return {"op": "begin", "sid": sid, "kind": kind, "call": call, "text": f"{text} {marker(sid)}", "effect": effect}


def touched(effect: dict[str, Any]) -> list[str]:
    """The tables a statement changes."""
    if effect["op"] == "rename":
        return sorted({name for pair in effect["pairs"] for name in pair})
    if effect["op"] == "drop":
        return list(effect["tables"])
    return [effect["table"]]


def apply(state: State, effect: dict[str, Any]) -> State:
    """The state after a committed statement; :class:`NotApplicableError` (naming why) when its precondition does not
    hold, in which case the result is still the statement's best-effort effect (``state`` is left unchanged)."""
    after = copy.deepcopy(state)
    problems: list[str] = []
    op = effect["op"]
    if op in ("replace", "create", "overwrite"):
        table = effect["table"]
        if op == "create" and table in after:
            problems.append(f"CREATE TABLE {table}: it existed")
        if op == "overwrite" and table not in after:
            problems.append(f"INSERT OVERWRITE {table}: it did not exist")
        after[table] = copy.deepcopy(effect["seg"])
    elif op == "truncate":
        if effect["table"] not in after:
            problems.append(f"TRUNCATE {effect['table']}: it did not exist")
        after[effect["table"]] = []
    elif op == "drop":
        for table in effect["tables"]:
            if after.pop(table, None) is None:
                problems.append(f"DROP TABLE {table}: it did not exist")
    elif op == "rename":
        for old, new in effect["pairs"]:
            if old not in after:
                problems.append(f"RENAME {old} TO {new}: {old} did not exist")
            if new in after:
                problems.append(f"RENAME {old} TO {new}: {new} existed")
            moved = after.pop(old, None)
            if moved is not None:
                after[new] = moved
    else:
        raise ValueError(f"unknown effect {op!r}")
    if problems:
        raise NotApplicableError("; ".join(problems), after)
    return after
