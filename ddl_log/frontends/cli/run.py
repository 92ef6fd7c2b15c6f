"""The commands that open the home (its lock, then recovery first): ``sql``, ``release`` and ``recover``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ddl_log.errors import CommandFailed, StatementFailed, UsageError
from ddl_log.frontends.cli.forensics import chain_dict
from ddl_log.frontends.cli.output import (
    EXIT_ABANDONED,
    EXIT_FAILED,
    EXIT_OK,
    dumps,
    home_path,
    out,
    print_result,
    summary,
    warn,
)
from ddl_log.settings import settings_from_options
from storage.errors import DDLLogError

if TYPE_CHECKING:
    from actions.recovery import RecoveryReport
    from ddl_log.cluster.takeover import HomeTakeover
    from ddl_log.frontends.python import AtomicDDL
    from ddl_log.frontends.sql import PlannedStatement


def cmd_sql(args: argparse.Namespace) -> int:
    from ddl_log.frontends.sql import execute, plan_script

    sources: list[tuple[str, str]] = []
    if args.file:
        sources.append((args.file, read_sql_file(args.file)))
    many = len(args.statements) > 1 or bool(args.file and args.statements)
    sources += [(f"argument {n}" if many else "", text) for n, text in enumerate(args.statements, 1)]
    if not sources:
        raise UsageError("give statements to run, or -f FILE")

    plans: list[PlannedStatement] = []
    labels: list[str] = []
    for label, text in sources:  # parse everything before anything runs (and before the home is opened)
        try:
            planned = plan_script(text, allow_non_atomic=args.allow_non_atomic)
        except DDLLogError as exc:
            if label:
                raise StatementFailed(label, exc) from exc
            raise
        plans += planned
        labels += [label] * len(planned)
    if not plans:
        return EXIT_OK

    with open_home(args) as ddl:
        abandoned = report_recovery(ddl.last_recovery, to_stderr=True)
        done = 0
        try:
            for result in execute(ddl, plans):
                print_result(result, as_json=args.json)
                warn_holds(result.result, ddl.home.location)
                done += 1
        except BrokenPipeError:
            raise
        except Exception as exc:
            if len(plans) == 1:
                raise
            label = labels[done]
            where = f"statement {done + 1} of {len(plans)} ({label + ', ' if label else ''}line {plans[done].line})"
            raise StatementFailed(where, exc) from exc
    return EXIT_ABANDONED if abandoned else EXIT_OK


def warn_holds(result: object, home: str) -> None:
    """What a statement left at a table name's default directory, on stderr (see ``RELEASE TABLE NAME``)."""
    from ddl_log.engine.release_name import hold_message

    for hold in getattr(result, "holds", ()):
        warn(f"note: {hold_message(hold, home)}")


def cmd_release(args: argparse.Namespace) -> int:
    """``RELEASE TABLE NAME``: free a table name's default directory now (see :mod:`ddl_log.engine.release_name`)."""
    from storage.catalogs.names import TableName

    name = TableName.of(args.table)
    with open_home(args) as ddl:
        abandoned = report_recovery(ddl.last_recovery, to_stderr=True)
        result = ddl.release_table_name(name)
        if args.json:
            out(dumps({"table": str(name), "location": result.location, "released": list(result.released),
                       "kept": result.kept}))
        else:
            out(f"ok  {result.describe()}")
    return EXIT_ABANDONED if abandoned else EXIT_OK


def read_sql_file(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise CommandFailed(f"{path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise CommandFailed(f"{path}: not UTF-8 text ({exc.reason})") from exc


@contextmanager
def open_home(args: argparse.Namespace) -> Iterator[AtomicDDL]:
    """Open the home (lock, log, binlog) and run recovery; stop the Spark session at the end if one started."""
    from ddl_log.frontends.python import AtomicDDL

    ddl = AtomicDDL(home=home_path(args), settings=settings_from_options(args))
    try:
        yield ddl
    finally:
        try:
            ddl.close()
        finally:
            ddl.stop_spark()  # started by this process only when something needed Spark


def cmd_recover(args: argparse.Namespace) -> int:
    with open_home(args) as ddl:
        report = ddl.last_recovery
        if args.retry_abandoned and ddl.abandoned_chains():
            report = ddl.recover(retry_abandoned=True)
        takeovers = ddl.take_over_dead().homes if getattr(args, "all", False) else ()
        if args.json:
            out(dumps({"outcomes": [item.as_dict() for item in report.outcomes],
                       "abandoned": [chain_dict(chain, None) for chain in report.abandoned],
                       "compacted": report.compacted, "note": report.note,
                       "takeovers": [takeover_dict(item) for item in takeovers]}))
        else:
            if report.nothing_to_do:
                out(report.note or "nothing to recover")
            else:
                report_recovery(report, to_stderr=False)
            for item in takeovers:
                out(f"takeover: {item.home}: {item.outcome}" + (f"  -- {item.detail}" if item.detail else ""))
                if item.recovery is not None:
                    report_recovery(item.recovery, to_stderr=False)
    failed = [item for item in takeovers if item.outcome == "failed" or (item.recovery and item.recovery.of("failed"))]
    if report.abandoned or any(item.recovery and item.recovery.abandoned for item in takeovers):
        return EXIT_ABANDONED
    return EXIT_FAILED if report.of("failed") or failed else EXIT_OK


def takeover_dict(item: HomeTakeover) -> dict[str, object]:
    recovery = item.recovery
    return {"home": item.home, "outcome": item.outcome, "detail": item.detail, "seconds": dict(item.seconds),
            "outcomes": [] if recovery is None else [outcome.as_dict() for outcome in recovery.outcomes]}


def report_recovery(report: RecoveryReport, *, to_stderr: bool) -> bool:
    """Print what recovery did (nothing when it had nothing to do); True when abandoned chains remain."""
    emit = warn if to_stderr else out
    if report.note is not None:
        emit(f"recovery: {report.note}")
    for item in report.outcomes:
        line = f"recovery: {item.outcome:<9} #{item.position}  {summary(item.statement, 60)}"
        emit(line + (f"  -- {item.detail}" if item.detail else ""))
    if report.abandoned:
        numbers = ", ".join(f"#{chain.position}" for chain in report.abandoned)
        emit(f"recovery: abandoned chains remain ({numbers}); see `ddl-log status`, fix the cause, then "
             "`ddl-log recover --retry-abandoned`")
    return bool(report.abandoned)
