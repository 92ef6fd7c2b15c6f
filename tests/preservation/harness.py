"""The bench the preservation properties run on: one shared Spark session, fresh table names, locations and DDL log
home per example (dropped again after it), and the comparison of what the project leaves with what plain Spark
leaves, as readable differences.

Definitions are read with :mod:`tests.definitions` (the one definition reader of the tests); what this module adds
is the comparison: attribute by attribute, column by column, so that a failure names what changed.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
from hypothesis import event, reject

from ddl_log import AtomicDDL, DDLLogError
from tests.definitions import Definition, PartitionStorage, partition_storage, partitions, rows, table_definition
from tests.preservation.shapes import Shape

DB = "default"
RECORD = os.environ.get("PRESERVATION_RECORD")
"""Discovery runs: a JSON-lines file that collects every difference instead of failing at the first one (so the run
keeps exploring), and strategies that leave nothing out (see :func:`space`)."""
NONSTRICT = {"hive.exec.dynamic.partition.mode": "nonstrict"}
"""Filling a Hive text table by dynamic partitions needs it; statements under test run without it."""
OWN = "<its own location>"
ABSENT = "<no table>"


def space(**known_defects_left_out: Any) -> dict[str, Any]:
    """Strategy restrictions that keep a known defect (tested by its own strict xfail test) out of a property that
    must pass; a discovery run (``PRESERVATION_RECORD``) drops them, so it explores the whole space."""
    return {} if RECORD else known_defects_left_out


@attrs.frozen
class Snapshot:
    """What a table holds: its definition (location normalised, see :func:`normal`), rows, partitions, files."""

    definition: Definition | None
    rows: tuple[tuple[str, ...], ...] = ()
    partitions: tuple[str, ...] = ()
    files: tuple[tuple[str, int], ...] = ()
    partition_storage: tuple[PartitionStorage, ...] = ()


@attrs.frozen
class Outcome:
    """How a statement ended: ``error`` None when it succeeded, else what it raised."""

    error: BaseException | None = None
    result: Any = None

    @property
    def refused(self) -> bool:
        return self.error is not None

    def describe(self) -> str:
        if self.error is None:
            return "succeeded"
        return f"raised {type(self.error).__name__}: {str(self.error).splitlines()[0][:300]}"


def normal(definition: Definition | None, own_location: str | None) -> Definition | None:
    """``definition`` with the location the table was created at (an external table's own directory, which differs
    between a table and its twin) written as :data:`OWN`; ``managed`` stays ``managed``."""
    if definition is None or own_location in (None, "managed") or definition.location != own_location:
        return definition
    return attrs.evolve(definition, location=OWN)


def differences(expected: Snapshot, actual: Snapshot, *, files: bool = False) -> list[str]:
    """What differs between two snapshots, one line per attribute or column ("what: Spark leaves X; project Y")."""
    found: list[str] = []
    if expected.definition is None or actual.definition is None:
        if expected.definition != actual.definition:
            found.append(f"table: expected {_show(expected.definition) if expected.definition else ABSENT}; "
                         f"project left {_show(actual.definition) if actual.definition else ABSENT}")
        return found
    want, got = expected.definition, actual.definition
    for field in attrs.fields(Definition):
        if field.name == "fields":
            found += _field_differences(want.fields, got.fields)
        elif getattr(want, field.name) != getattr(got, field.name):
            found.append(f"{field.name}: expected {getattr(want, field.name)!r}; project left "
                         f"{getattr(got, field.name)!r}")
    if expected.rows != actual.rows:
        found.append(f"rows: expected {list(expected.rows)!r}; project left {list(actual.rows)!r}")
    if expected.partitions != actual.partitions:
        found.append(f"partitions: expected {list(expected.partitions)!r}; project left {list(actual.partitions)!r}")
    if expected.partitions == actual.partitions and expected.partition_storage != actual.partition_storage:
        for want, got in zip(expected.partition_storage, actual.partition_storage, strict=True):
            for attribute in ("location", "serde", "input_format", "output_format", "options"):
                if getattr(want, attribute) != getattr(got, attribute):
                    found.append(f"partition {want.name} {attribute}: expected {getattr(want, attribute)!r}; "
                                 f"project left {getattr(got, attribute)!r}")
    if files and expected.files != actual.files:
        found.append(f"files: expected {list(expected.files)!r}; project left {list(actual.files)!r}")
    return found


def _field_differences(want: tuple[Any, ...], got: tuple[Any, ...]) -> list[str]:
    if [f.name for f in want] != [f.name for f in got]:
        return [f"columns: expected {[f.name for f in want]}; project left {[f.name for f in got]}"]
    found = []
    for before, after in zip(want, got, strict=True):
        for attribute in ("type", "nullable", "metadata"):
            if getattr(before, attribute) != getattr(after, attribute):
                found.append(f"column {before.name!r} {attribute}: expected {getattr(before, attribute)!r}; "
                             f"project left {getattr(after, attribute)!r}")
    return found


def _show(definition: Definition) -> str:
    return f"{definition.kind} {definition.provider} table at {definition.location}"


def names_the_table(error: BaseException, table: str) -> bool:
    """The README's promise: every error is a DDLLogError that names its object (``.name``)."""
    return isinstance(error, DDLLogError) and table.lower() in str(getattr(error, "name", "")).lower()


class Bench:
    """One test's bench. :meth:`example` gives each hypothesis example fresh names and drops them afterwards."""

    counter = itertools.count()

    def __init__(self, spark: Any, root: Path, test: str) -> None:
        self.spark = spark
        self.root = root
        self.test = test

    @contextlib.contextmanager
    def example(self) -> Iterator[Example]:
        example = Example(self, next(self.counter))
        try:
            yield example
        finally:
            example.clean_up()

    def verdict(self, case: object, found: list[str]) -> None:
        """Pass when nothing differs; else fail with the case (its shape and statement as SQL) and the differences,
        or, in a discovery run, record them and go on."""
        if not found:
            return
        if RECORD:
            with open(RECORD, "a", encoding="utf-8") as out:
                out.write(json.dumps({"test": self.test, "case": repr(case), "differences": found}) + "\n")
            event("difference recorded")
            return
        raise AssertionError("the project's statement left something plain Spark would not:\n"
                             + "\n".join(f"  - {line}" for line in found) + f"\ncase:\n{case!r}")


class Example:
    """One example's tables (``pv<n>_<role>``), external locations, DDL log home and session settings."""

    def __init__(self, bench: Bench, number: int) -> None:
        self.bench = bench
        self.spark = bench.spark
        self.prefix = f"pv{number}"
        self.home = bench.root / "homes" / self.prefix
        self._ddl: AtomicDDL | None = None
        self.own_locations: dict[str, str | None] = {}

    def name(self, role: str) -> str:
        return f"{self.prefix}_{role}"

    def location(self, role: str) -> Path:
        return self.bench.root / "external" / self.name(role)

    @property
    def ddl(self) -> AtomicDDL:
        """The project, on a DDL log home of this example (replaced versions deleted at once)."""
        if self._ddl is None:
            self._ddl = AtomicDDL(spark=self.spark, home=self.home, grace_seconds=0)
        return self._ddl

    def make(self, shape: Shape, role: str) -> str:
        """Create and fill ``shape`` as ``pv<n>_<role>`` with plain Spark; its name."""
        try:
            name = self._create(shape, role)
        except Exception as error:
            if RECORD:  # a shape the strategies should not draw: noted, and the discovery run goes on
                with open(RECORD, "a", encoding="utf-8") as out:
                    out.write(json.dumps({"test": self.bench.test, "shape refused": repr(shape),
                                          "error": str(error).splitlines()[0][:300]}) + "\n")
                reject()
            raise
        return name

    def _create(self, shape: Shape, role: str) -> str:
        name = self.name(role)
        self.spark.sql(shape.create_sql(name, str(self.location(role))))
        with self.settings(NONSTRICT):
            for statement in shape.fill_sql(name):
                self.spark.sql(statement)
        self.remember(name)
        return name

    def remember(self, name: str) -> None:
        """Note the location ``name`` was made at (its twin's differs: see :func:`normal`)."""
        definition = table_definition(self.spark, DB, name)
        self.own_locations[name] = None if definition is None else definition.location

    def try_make(self, shape: Shape, role: str, fill: Callable[[str], None] | None = None) -> str | None:
        """Like :meth:`make` for a shape that plain Spark may refuse (a derived one, an oracle): None when Spark
        refuses to create it or to fill it (``fill``: extra statements on the new table), leaving nothing behind."""
        name = self.name(role)
        try:
            self._create(shape, role)
            if fill is not None:
                with self.settings(NONSTRICT):
                    fill(name)
        except Exception:  # noqa: BLE001 - Spark's refusal is the answer
            self.spark.sql(f"DROP TABLE IF EXISTS {name} PURGE")
            shutil.rmtree(self.location(role), ignore_errors=True)
            return None
        return name

    def snapshot(self, name: str, *, location: str | None = None) -> Snapshot:
        """``name`` now; its location normalised against where it was made (or ``location``)."""
        definition = table_definition(self.spark, DB, name)
        if definition is None:
            return Snapshot(None)
        own = location if location is not None else self.own_locations.get(name)
        try:
            held = tuple(map(tuple, rows(self.spark, DB, name)))
        except Exception as error:  # noqa: BLE001 - a table plain Spark cannot read is a difference to report
            held = ((f"<unreadable: {str(error).splitlines()[0][:200]}>",),)
        return Snapshot(normal(definition, own), held, partitions(self.spark, DB, name),
                        files_at(self.raw_location(name)), partition_storage(self.spark, DB, name))

    def raw_location(self, name: str) -> str:
        """Where ``name``'s data lives (a managed table's directory too, which its definition only calls
        ``managed``)."""
        external = self.spark._jsparkSession.sharedState().externalCatalog()
        return str(external.getTable(DB, name).storage().locationUri().get().toString())

    def binlog_size(self) -> int:
        return len(self.ddl.binlog_events())

    def tables(self) -> set[str]:
        from tests.spark.sweep_support import scala_strings

        external = self.spark._jsparkSession.sharedState().externalCatalog()
        return set(scala_strings(external.listTables(DB)))

    @contextlib.contextmanager
    def settings(self, values: dict[str, str]) -> Iterator[None]:
        """Session settings for the duration of the block (restored as they were, unset ones unset)."""
        before = {key: self.spark.conf.get(key, None) for key in values}
        for key, value in values.items():
            self.spark.conf.set(key, value)
        try:
            yield
        finally:
            for key, value in before.items():
                if value is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, value)

    def run(self, statement: Callable[[], Any], settings: dict[str, str] | None = None) -> Outcome:
        """Run a statement (plain Spark's or the project's) under ``settings``; how it ended."""
        with self.settings(settings or {}):
            try:
                return Outcome(result=statement())
            except Exception as error:  # noqa: BLE001 - the outcome is what is compared
                return Outcome(error=error)

    def clean_up(self) -> None:
        if self._ddl is not None:
            self._ddl.close()
        for table in sorted(self.tables()):
            if table.startswith(self.prefix + "_") or table.startswith("ddllog_"):
                self.spark.sql(f"DROP TABLE IF EXISTS `{DB}`.`{table}` PURGE")
        shutil.rmtree(self.home, ignore_errors=True)
        for path in (self.bench.root / "external").glob(self.prefix + "_*"):
            shutil.rmtree(path, ignore_errors=True)


def files_at(location: str) -> tuple[tuple[str, int], ...]:
    """The files under a local table location (relative path, size), sorted; () for any other location."""
    from storage.catalogs.spark.profile import local_path

    path = local_path(location)
    if path is None or not path.is_dir():
        return ()
    return tuple(sorted((str(p.relative_to(path)), p.stat().st_size) for p in path.rglob("*") if p.is_file()))


def judge(example: Example, table: str, *, expected: Snapshot | None, spark_said: str, outcome: Outcome,
          before: Snapshot, binlog_before: int) -> list[str]:
    """The property, for one statement on ``table``: when plain Spark refused (``expected`` None, ``spark_said``
    why), the project refuses too, with a DDLLogError naming the table, and changes nothing at all (definition,
    rows, partitions, files, binlog); else the project succeeds and leaves ``expected``. Either way it leaves no
    table of its own behind."""
    found = [f"leftover: the project left table {name}" for name in sorted(example.tables())
             if name.startswith("ddllog_")]
    if expected is None:
        if not outcome.refused:
            found.append(f"refusal: plain Spark refused ({spark_said}); the project succeeded")
        elif not names_the_table(outcome.error, table):  # type: ignore[arg-type]
            found.append(f"refusal: expected a DDLLogError naming {table}; the project {outcome.describe()}")
        found += [f"after the refusal, {line}" for line in differences(before, example.snapshot(table), files=True)]
        if example.binlog_size() != binlog_before:
            found.append("after the refusal, binlog: the refused statement was binlogged")
        return found
    if outcome.refused:
        found.append(f"refusal: plain Spark succeeded; the project {outcome.describe()}")
        return found + [f"after the project's refusal, {line}"
                        for line in differences(before, example.snapshot(table), files=True)]
    return found + differences(expected, example.snapshot(table))


def note_route(outcome: Outcome) -> None:
    """Count, in hypothesis' statistics, how the project ran the statement: through its own machine (``ddl``) or
    handed to Spark (``query``), and by which replace path (``swap`` or ``rename``)."""
    result = outcome.result
    if isinstance(result, list) and result:
        event(f"routed: {result[-1].kind}")
        result = result[-1].result
    path = getattr(result, "path", None)
    if path is not None:
        event(f"path: {path}")
    if outcome.refused:
        event(f"refused: {type(outcome.error).__name__}")
