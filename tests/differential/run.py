"""``make differential``: ``python -m tests.differential.run --seconds N [--seed S]``.

Random scripts (one per seed, seeds counting up from ``--seed``) run on plain Spark and through ``AtomicDDL.sql``
side by side (:mod:`tests.differential.harness`) until ``--seconds`` have passed. Every difference is classified
(:attr:`~tests.differential.harness.Difference.signature`: statement kind, what each side did, which parts of the
state differ); the first instance of each class is shrunk to a minimal script, the others are counted. The report
groups the classes by statement kind, each with its minimal repro (runnable by hand in a database ``db``, or again
here with ``--script FILE``), what plain Spark does and what the project does. Differences README documents are
listed apart. Exit status 1 when any difference was found.

``--script FILE`` runs one script (a repro as printed) instead, and reports its differences.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, TextIO

import attrs

from tests.differential.grammar import generate
from tests.differential.harness import Difference, Sides, run_script, shrink
from tests.differential.reading import from_display
from tests.differential.script import Step, format_script


@attrs.define
class Found:
    """One class of difference: how often, in which seeds, and its minimal repro."""

    first: Difference
    repro: list[Step]
    count: int = 1
    seeds: list[int] = attrs.Factory(list)


@attrs.define
class Report:
    scripts: int = 0
    statements: int = 0
    executed: int = 0
    seconds: float = 0.0
    found: dict[str, Found] = attrs.Factory(dict)
    documented: dict[str, int] = attrs.Factory(lambda: defaultdict(int))
    harness_errors: list[str] = attrs.Factory(list)
    """Scripts the harness itself failed on (an emulation that did not hold, a Spark call that broke): a bug here."""


def start_spark(workdir: Path) -> Any:
    """The one Spark session, set up as the test suite's (JVM options, temporary files in RAM)."""
    from storage.catalogs.spark.session import embedded_session
    from tests.attached.support import extension_settings
    from tests.jvm_archive import spark_jvm_options
    from tests.ramdisk import use_ram_for_temporary_files

    os.environ.setdefault("SPARK_SUBMIT_OPTS", spark_jvm_options())
    use_ram_for_temporary_files()
    return embedded_session(workdir / "spark-home", extra=extension_settings())


def long_run(sides: Sides, *, seconds: float, seed: int, length: int, shrink_seconds: float,
             out: TextIO) -> Report:
    report = Report()
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        try:
            result = run_script(sides, generate(seed, length))
        except Exception as error:  # noqa: BLE001 - one broken script must not end a long run; reported
            report.harness_errors.append(f"seed {seed}: {type(error).__name__}: {error}")
            print(f"seed {seed}: harness error {type(error).__name__}: {error}", file=out, flush=True)
            seed += 1
            continue
        report.scripts += 1
        report.statements += result.statements
        for difference in result.documented:
            report.documented[difference.documented] += 1
        fresh = 0
        for difference, before in result.differences:
            known = report.found.get(difference.signature)
            if known is not None:
                known.count += 1
                known.seeds.append(seed)
                continue
            fresh += 1
            try:
                repro, final = shrink(sides, difference, before, seconds=shrink_seconds)
            except Exception as error:  # noqa: BLE001 - keep the unshrunk script; reported
                report.harness_errors.append(f"seed {seed}, shrinking: {type(error).__name__}: {error}")
                repro, final = [*before, difference.step], difference
            report.found[difference.signature] = Found(final, repro, seeds=[seed])
        print(f"seed {seed}: {result.statements} statements, {len(result.differences)} differences ({fresh} new "
              f"classes), {len(report.found)} classes so far, {time.monotonic() - began:.0f} s", file=out, flush=True)
        seed += 1
    report.seconds = time.monotonic() - began
    report.executed = sides.statements
    return report


def render(report: Report) -> str:
    lines = [f"{report.scripts} scripts, {report.statements} statements compared ({report.executed} run on each side "
             f"with replays and shrinking) in {report.seconds:.0f} s; {len(report.found)} classes of difference"]
    by_kind: dict[str, list[tuple[str, Found]]] = defaultdict(list)
    for signature, found in report.found.items():
        by_kind[found.first.step.production].append((signature, found))
    for kind in sorted(by_kind):
        lines.append(f"\n=== {kind}")
        for signature, found in sorted(by_kind[kind], key=lambda item: -item[1].count):
            lines.append(f"\n--- {signature}\n    {found.count} instance(s), seeds {sorted(set(found.seeds))[:8]}")
            lines.append("    minimal repro:\n      " + format_script(found.repro, numbered=False).replace(
                "\n", "\n      "))
            lines.append("    " + found.first.describe().replace("\n", "\n    "))
    if report.harness_errors:
        lines.append("\n=== harness errors (bugs of tests/differential, not of the product)")
        lines.extend(f"    {error}" for error in report.harness_errors)
    if report.documented:
        lines.append("\n=== documented differences (README), not defects")
        lines.extend(f"    {count} x {what}" for what, count in sorted(report.documented.items()))
    return "\n".join(lines)


def as_json(report: Report) -> dict[str, Any]:
    return {
        "scripts": report.scripts, "statements": report.statements, "executed": report.executed,
        "seconds": round(report.seconds, 1), "documented": dict(report.documented),
        "harness_errors": report.harness_errors,
        "differences": [{"signature": signature, "count": found.count, "seeds": found.seeds,
                         "repro": format_script(found.repro, numbered=False), "detail": found.first.describe()}
                        for signature, found in report.found.items()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long to generate scripts")
    parser.add_argument("--seed", type=int, default=None, help="the first seed (default: from the clock)")
    parser.add_argument("--length", type=int, default=40, help="statements per script")
    parser.add_argument("--shrink-seconds", type=float, default=120.0, help="time to shrink each new difference")
    parser.add_argument("--script", type=Path, help="run this script (a printed repro) instead of random ones")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--workdir", type=Path, help="where Spark and the DDL log homes live (default: a temp dir)")
    parser.add_argument("--attached", action="store_true",
                        help="run the project's side as spark.sql on a session attached to its home (the extension)")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="differential-"))
    workdir.mkdir(parents=True, exist_ok=True)
    spark = start_spark(workdir)
    sides = Sides(spark, workdir, attached=args.attached)
    try:
        if args.script is not None:
            result = run_script(sides, from_display(args.script.read_text()))
            for difference, _ in result.differences:
                print(difference.describe(), "\n")
            print(f"{result.statements} statements, {len(result.differences)} differences")
            return 1 if result.differences else 0
        seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
        print(f"differential run from seed {seed} for {args.seconds:.0f} s, workdir {workdir}", flush=True)
        report = long_run(sides, seconds=args.seconds, seed=seed, length=args.length,
                          shrink_seconds=args.shrink_seconds, out=sys.stdout)
        print(render(report))
        if args.json is not None:
            args.json.write_text(json.dumps(as_json(report), indent=2, default=str))
        return 1 if report.found or report.harness_errors else 0
    finally:
        sides.close()
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
