"""Replication soak on the in-memory catalog: ``python -m tests.replication.soak --seconds N [--seed S]``.

Each round: a source runs a random script (every statement kind the text replay covers; statements that fail for
bad input, statements crashed before their commit point and rolled back, DROPs crashed after it and finished by
recovery); a replica applies it while being crashed at random instants (a random crash point, a random hit); after
each crash the replica's catalog must be exactly the catalog after its position's events, and at the end it must
equal the source's, every source event applied exactly once. Prints one JSON line; exit 1 on any violation.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.engine.alter_ops import AddColumns, SetProperties
from storage import crashpoints
from storage.crashpoints import SimulatedCrash
from storage.errors import DDLLogError
from tests.replication.test_apply_exactly_once import Replica, applied_seqs
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog

NAMES = ["a", "b", "c", "d", "e"]


def random_statement(rng: random.Random) -> Callable[[AtomicDDL], Any]:
    x, y = rng.choice(NAMES), rng.choice(NAMES)
    return rng.choice([
        lambda d: d.create_table(x, like=y),
        lambda d: d.rename_tables([(x, y)]),
        lambda d: d.drop_tables([x]),
        lambda d: d.truncate_table(x),
        lambda d: d.alter_table(x, SetProperties({"k": str(rng.randint(0, 9))})),
        lambda d: d.alter_table(x, AddColumns(f"c{rng.randint(0, 99)} INT")),
        lambda d: d.create_view(f"v{x}", as_select=f"SELECT {rng.randint(0, 9)}", or_replace=True),
        lambda d: d.drop_views([f"v{x}"]),
        lambda d: d.create_database("d3"),
        lambda d: d.drop_database("d3", cascade=True),
        lambda d: d.create_function(f"f{x}", class_name="com.example.F", or_replace=True),
    ])


def build_source(home: str, rng: random.Random, statements: int) -> tuple[Any, int]:
    catalog = populated_catalog()
    points = ["commit.before_binlog", "forward.drop_table.after_drop", "replace.fill_tmp.after", "commit.after_binlog"]

    def open_source() -> AtomicDDL:
        return AtomicDDL(home=home, catalog=catalog, compact_bytes=0)

    ddl = open_source()
    for _ in range(statements):
        statement = random_statement(rng)
        if rng.random() < 0.1:  # crash the source inside the statement; recovery decides on the next open
            crashpoints.arm(rng.choice(points), 1)
        try:
            statement(ddl)
        except SimulatedCrash:
            ddl.abandon()
            ddl = open_source()
        except DDLLogError:
            pass  # refused for bad input: nothing binlogged
        finally:
            crashpoints.disarm_all()
    events = len(ddl.binlog_events())
    ddl.close()
    return catalog, events


def one_round(root: Path, rng: random.Random, statements: int) -> dict[str, Any]:
    source = str(root / "source")
    source_catalog, events = build_source(source, rng, statements)
    expected = Replica(str(root / "expected"), source)
    ddl = expected.open()
    applier = ddl.replica_of(source)
    states = [catalog_state(expected.catalog)]
    with crashpoints.recording() as passed:  # the points an apply passes: the ones worth crashing at
        for event in list(applier.source.events_after(0)):
            applier.apply(event)
            states.append(catalog_state(expected.catalog))
    ddl.close()
    replica = Replica(str(root / "replica"), source)
    names = sorted(set(passed)) or ["replica.apply.before"]
    crashes = violations = 0
    problems: list[str] = []
    for _ in range(200):
        ddl = replica.open()
        position = ddl.replica_of(source).position
        if catalog_state(replica.catalog) != states[position]:
            violations += 1
            problems.append(f"catalog disagrees with position {position}")
        if position == events:
            ddl.close()
            break
        crashpoints.arm(rng.choice(names), rng.randint(1, 3))
        try:
            ddl.replica_of(source).apply_available()
        except SimulatedCrash:
            crashes += 1
        finally:
            crashpoints.disarm_all()
            ddl.abandon()
    ddl = replica.open()
    seqs = applied_seqs(ddl)
    ddl.close()
    if seqs != list(range(1, events + 1)):
        violations += 1
        problems.append(f"applied {seqs}, expected 1..{events}")
    if catalog_state(replica.catalog) != catalog_state(source_catalog):
        violations += 1
        problems.append("the replica's final catalog differs from the source's")
    return {"events": events, "crashes": crashes, "violations": violations, "problems": problems}


def soak(seconds: float, seed: int, statements: int = 25) -> dict[str, Any]:
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    totals = {"rounds": 0, "events": 0, "crashes": 0, "violations": 0, "problems": []}
    with tempfile.TemporaryDirectory(prefix="replica-soak-") as scratch:
        while time.monotonic() < deadline:
            result = one_round(Path(scratch) / f"round{totals['rounds']}", rng, statements)
            totals["rounds"] += 1
            for key in ("events", "crashes", "violations"):
                totals[key] += result[key]
            totals["problems"] += result["problems"]
    return {"seed": seed, **totals}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    report = soak(args.seconds, seed)
    print(json.dumps(report))
    return 1 if report["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
