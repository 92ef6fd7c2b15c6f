"""``make differential-golden GOLDEN_INPUTS=DIR``: ``python -m tests.differential.golden --inputs DIR [--json FILE]``.

Apache Spark's own SQL golden-file inputs (``sql/core/src/test/resources/sql-tests/inputs``), read as its
``SQLQueryTestSuite`` reads them (:mod:`~tests.differential.golden_files`), run statement by statement through plain
``spark.sql`` and through ``AtomicDDL.sql`` on one Spark (:mod:`~tests.differential.golden_sides`: the sides take
turns, each file on a clean catalog), every statement compared, queries, SHOW and DESCRIBE included
(:mod:`~tests.differential.golden_compare`): what it returned or the condition it failed with, and the state after
it. Reported per file and in total: equal, failing alike, and mismatches by kind, each with the statement and both
outcomes, grouped into classes; mismatches that README documents (docs/limitations.md) or that are being fixed
elsewhere (:mod:`~tests.differential.golden_known`) are counted apart. Exit status 1 when a mismatch is neither.

The inputs are not part of this project (never copy them in). The last run used these 25 files of apache/spark's
``sql/core/src/test/resources/sql-tests/inputs/`` (fetch them into a directory outside the repository)::

    change-column.sql charvarchar.sql columnresolution-views.sql comments.sql create.sql cte-command.sql
    cte-ddl.sql describe-part-after-analyze.sql describe-query.sql describe-table-column.sql describe.sql
    double-quoted-identifiers.sql explain.sql identifier-clause.sql null-handling.sql show-create-table.sql
    show-tables.sql show-tblproperties.sql show-views.sql show_columns.sql table-aliases.sql
    view-schema-binding-config.sql view-schema-binding.sql view-schema-compensation.sql view-schema-evolution.sql
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import attrs

from tests.differential import golden_known
from tests.differential.golden_compare import (
    AGREEING,
    MISMATCHES,
    OUTPUT_DIFFERS,
    STATE_DIFFERS,
    Result,
    head,
    kind_of,
)
from tests.differential.golden_files import GoldenFile, read_golden, read_inputs
from tests.differential.golden_sides import Baseline, Side, baseline, clear
from tests.differential.harness import generalise, shorten
from tests.differential.state import differences


@attrs.frozen
class Compared:
    """One statement of one file, both sides' results, how they compare, the state paths that newly differ after
    it, whether the states had already parted before it, and which documented or known difference it is."""

    file: str
    position: int
    statement: str
    kind: str
    plain: Result
    atomic: Result
    state: tuple[tuple[str, Any, Any], ...] = ()
    parted_before: bool = False
    known: str = ""

    @property
    def signature(self) -> str:
        """The class of a mismatch: its kind, the statement's leading keywords, and what each side did."""
        parts = [self.kind, head(self.statement)]
        if self.kind == STATE_DIFFERS:
            parts.append("state " + ", ".join(sorted({generalise(path) for path, _, _ in self.state})))
        else:
            parts.append(f"plain {'ok' if self.plain.ok else self.plain.condition} / "
                         f"project {'ok' if self.atomic.ok else self.atomic.condition}")
        return " | ".join(parts)

    def describe(self) -> str:
        lines = [f"{self.file} #{self.position}: {self.statement}",
                 f"  plain Spark: {self.plain.describe()}", f"  project:     {self.atomic.describe()}"]
        if self.kind == OUTPUT_DIFFERS:
            lines.extend(f"  {line}" for line in row_differences(self.plain.rows, self.atomic.rows))
        for path, plain, atomic in self.state[:6]:
            lines.append(f"  state {path}:\n    plain   {shorten(plain)}\n    project {shorten(atomic)}")
        if self.parted_before:
            lines.append("  (the two states had already parted before this statement)")
        return "\n".join(lines)


def row_differences(plain: Sequence[tuple[str, ...]], atomic: Sequence[tuple[str, ...]], limit: int = 8) -> list[str]:
    """The rows only one side returned (``-`` plain Spark's, ``+`` the project's), at most ``limit`` of each."""
    only_plain = [row for row in plain if row not in atomic]
    only_atomic = [row for row in atomic if row not in plain]
    shown = [f"- {' | '.join(row)[:300]}" for row in only_plain[:limit]]
    shown += [f"+ {' | '.join(row)[:300]}" for row in only_atomic[:limit]]
    if not shown:
        shown.append("(the same rows in another order)")
    return shown


def known_as(compared: Compared) -> str:
    return "" if compared.kind in AGREEING else golden_known.known_as(compared)


@attrs.define
class FileReport:
    name: str
    compared: list[Compared] = attrs.Factory(list)
    skipped: dict[str, int] = attrs.Factory(dict)
    config_sets: int = 1
    seconds: float = 0.0
    harness_error: str = ""

    def counts(self) -> Counter[str]:
        return Counter(c.kind if not c.known or c.kind in AGREEING else "known" for c in self.compared)


def run_side(spark: Any, golden: GoldenFile, home: Path | None,
             kept: Baseline) -> tuple[list[Result], list[dict[str, Any]]]:
    """Every statement of ``golden`` on one side (the project's when ``home``), with the state after each; then
    everything the side made is removed (what ``kept`` holds stays)."""
    side = Side(spark, golden, home)
    results, states = [], []
    try:
        for _, statement in golden.statements:
            results.append(side.run(statement))
            states.append(side.state())
    finally:
        side.close()
        clear(spark, kept)
    return results, states


def compare_file(spark: Any, golden: GoldenFile, workdir: Path) -> FileReport:
    """``golden`` on both sides, compared statement by statement (the catalog as it was before, after)."""
    report = FileReport(golden.name, skipped=dict(golden.skipped), config_sets=golden.config_sets)
    if golden.skipped_file:
        report.skipped[golden.skipped_file] = 1
        return report
    began = time.monotonic()
    home = workdir / "home"
    shutil.rmtree(home, ignore_errors=True)
    try:
        kept = baseline(spark)
        plain, plain_states = run_side(spark, golden, None, kept)
        atomic, atomic_states = run_side(spark, golden, home, kept)
    except Exception as error:  # noqa: BLE001 - one broken file must not end the run; reported as the harness's
        report.harness_error = f"{type(error).__name__}: {error}"
        return report
    finally:
        shutil.rmtree(home, ignore_errors=True)
    before: set[tuple[str, str, str]] = set()
    parted_by = ""  # what made the states part, when that is known: what follows from it is counted with it
    for (position, statement), p, a, ps, as_ in zip(golden.statements, plain, atomic, plain_states, atomic_states,
                                                     strict=True):
        found = differences(ps, as_)
        now = {(path, repr(x), repr(y)) for path, x, y in found}
        fresh = tuple(item for item in found if (item[0], repr(item[1]), repr(item[2])) not in before)
        compared = Compared(golden.name, position, statement, kind_of(p, a, fresh), p, a, fresh, bool(before))
        known = known_as(compared)
        if not known and compared.kind not in AGREEING and before and parted_by:
            known = parted_by if parted_by.startswith("after: ") else f"after: {parted_by}"
        report.compared.append(attrs.evolve(compared, known=known))
        if fresh:
            parted_by = known
        if not now:
            parted_by = ""
        before = now
    report.seconds = time.monotonic() - began
    return report


@attrs.define
class Totals:
    files: list[FileReport] = attrs.Factory(list)

    def kinds(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for report in self.files:
            total.update(report.counts())
        return total

    def mismatches(self) -> list[Compared]:
        return [c for report in self.files for c in report.compared if c.kind in MISMATCHES and not c.known]

    def known(self) -> Counter[str]:
        return Counter(c.known for report in self.files for c in report.compared if c.known)

    def classes(self) -> dict[str, list[Compared]]:
        grouped: dict[str, list[Compared]] = defaultdict(list)
        for compared in self.mismatches():
            grouped[compared.signature].append(compared)
        return dict(sorted(grouped.items(), key=lambda item: (-len(item[1]), item[0])))


def render(totals: Totals) -> str:
    kinds = totals.kinds()
    statements = sum(len(report.compared) for report in totals.files)
    skipped: Counter[str] = Counter()
    for report in totals.files:
        skipped.update(report.skipped)
    lines = [f"{len(totals.files)} files, {statements} statements compared; skipped: "
             + (", ".join(f"{count} x {why}" for why, count in sorted(skipped.items())) or "none"),
             "totals: " + ", ".join(f"{kinds[kind]} {kind}" for kind in (*AGREEING, *MISMATCHES)) +
             f", {kinds['known']} known (counted apart)", "", "per file:"]
    for report in totals.files:
        counts = report.counts()
        extra = f" HARNESS ERROR {report.harness_error}" if report.harness_error else ""
        dims = f" (first of {report.config_sets} config sets)" if report.config_sets > 1 else ""
        lines.append(f"  {report.name}: {len(report.compared)} statements, "
                     + ", ".join(f"{counts[kind]} {kind}" for kind in (*AGREEING, *MISMATCHES, "known")
                                 if counts[kind]) + f", {report.seconds:.0f} s{dims}{extra}")
    classes = totals.classes()
    parted = sum(1 for c in totals.mismatches() if c.parted_before)
    lines.append(f"\n{len(totals.mismatches())} mismatches outside the documented differences ({parted} of them after "
                 f"the two states had parted), {len(classes)} classes:")
    for signature, members in classes.items():
        lines.append(f"\n--- {signature}\n    {len(members)} instance(s)")
        for member in members[:3]:
            lines.append("    " + member.describe().replace("\n", "\n    "))
        if len(members) > 3:
            lines.append("    also: " + ", ".join(f"{m.file} #{m.position}" for m in members[3:12]))
    known = totals.known()
    if known:
        lines.append("\nknown or documented, counted apart:")
        lines.extend(f"  {count} x {what}" for what, count in sorted(known.items()))
    return "\n".join(lines)


def as_json(totals: Totals) -> dict[str, Any]:
    def entry(c: Compared) -> dict[str, Any]:
        return {"file": c.file, "position": c.position, "statement": c.statement, "kind": c.kind, "known": c.known,
                "plain": c.plain.describe(), "project": c.atomic.describe(), "parted_before": c.parted_before,
                "rows": row_differences(c.plain.rows, c.atomic.rows, limit=50) if c.kind == OUTPUT_DIFFERS else [],
                "state": [[path, shorten(p), shorten(a)] for path, p, a in c.state]}

    return {
        "totals": dict(totals.kinds()),
        "known": dict(totals.known()),
        "files": [{"name": r.name, "counts": dict(r.counts()), "skipped": r.skipped, "seconds": round(r.seconds, 1),
                   "harness_error": r.harness_error} for r in totals.files],
        "classes": {signature: [entry(c) for c in members] for signature, members in totals.classes().items()},
        "known_instances": [entry(c) for r in totals.files for c in r.compared if c.known],
    }


def run(spark: Any, files: Sequence[GoldenFile], workdir: Path, out: TextIO) -> Totals:
    totals = Totals()
    for golden in files:
        report = compare_file(spark, golden, workdir)
        totals.files.append(report)
        counts = report.counts()
        print(f"{golden.name}: {len(report.compared)} statements, "
              + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
              + (f" HARNESS ERROR {report.harness_error}" if report.harness_error else ""), file=out, flush=True)
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, required=True,
                        help="a directory of Spark's sql-tests inputs (*.sql, searched recursively), or one file")
    parser.add_argument("--only", nargs="*", default=(), help="only these files (names or paths under --inputs)")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--workdir", type=Path, help="where Spark and the DDL log home live (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.inputs.is_file():
        files = [read_golden(args.inputs.read_text(encoding="utf-8"), args.inputs.name)]
    else:
        files = read_inputs(args.inputs, args.only)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="differential-golden-"))
    workdir.mkdir(parents=True, exist_ok=True)
    from tests.differential.run import start_spark

    spark = start_spark(workdir)
    try:
        totals = run(spark, files, workdir, sys.stdout)
    finally:
        spark.stop()
    print(render(totals))
    if args.json is not None:
        args.json.write_text(json.dumps(as_json(totals), indent=2, default=str))
    return 1 if totals.mismatches() or any(r.harness_error for r in totals.files) else 0


if __name__ == "__main__":
    sys.exit(main())
