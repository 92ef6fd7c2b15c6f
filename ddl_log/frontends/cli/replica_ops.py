"""``ddl-log replica bootstrap|check|resync|promote``: the operations on a replica beside its applier (each opens
the replica's home, so the background applier must be stopped first; ``promote`` stops it itself)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import attrs

from ddl_log.errors import UsageError
from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_OK, dumps, home_path, out
from ddl_log.frontends.cli.run import open_home


def filters_of(args: argparse.Namespace) -> tuple[list[str] | None, dict[str, str]]:
    """``--databases`` and ``--rewrite-db`` as the API takes them."""
    databases = None if args.databases is None else [d.strip() for d in args.databases.split(",") if d.strip()]
    rewrite: dict[str, str] = {}
    for given in args.rewrite_db:
        for pair in given.split(","):
            source, equals, target = pair.partition("=")
            if not equals or not source.strip() or not target.strip():
                raise UsageError(f"--rewrite-db takes SRC=DST, not {pair!r}")
            rewrite[source.strip()] = target.strip()
    return databases, rewrite


def replica_bootstrap(args: argparse.Namespace) -> int:
    databases, rewrite = filters_of(args)
    with open_home(args) as ddl:
        report = ddl.replica_bootstrap(args.source, databases=databases or [], rewrite_db=rewrite,
                                       source_metastore=args.source_metastore, attempts=args.attempts)
    if args.json:
        out(dumps(attrs.asdict(report)))
    else:
        out(f"bootstrapped at source seq {report.position} in {report.seconds:.1f} s: {report.statements} "
            f"statements, {report.kept} objects kept from an earlier try, {report.dropped} dropped, "
            f"{report.rounds} round(s)")
        for line in report.not_copied:
            out(f"not copied: {line}")
    return EXIT_OK


def replica_check(args: argparse.Namespace) -> int:
    with open_home(args) as ddl:
        report = ddl.replica_check(args.source, catch_up=not args.no_catch_up,
                                   source_metastore=args.source_metastore)
    if args.json:
        out(dumps(report.as_dict()))
    else:
        out(f"compared {report.compared} objects at source seq {report.position} (source head "
            f"{report.source_head}) in {report.seconds:.1f} s: {len(report.differences)} difference(s)")
        for difference in report.differences:
            detail = f": {difference.detail}" if difference.detail else ""
            out(f"  {difference.kind} {difference.object}: {difference.what}{detail}")
        if report.pending:
            out(f"not compared ({len(report.pending)}; source events after the position touch them): "
                + ", ".join(report.pending))
        if report.stopped:
            out(f"catching up stopped: {report.stopped}")
    return EXIT_OK if report.ok else EXIT_FAILED


def replica_resync(args: argparse.Namespace) -> int:
    with open_home(args) as ddl:
        report = ddl.replica_resync(args.table, source=args.source, source_metastore=args.source_metastore,
                                    attempts=args.attempts)
    if args.json:
        out(dumps(attrs.asdict(report)))
    else:
        out(f"resynced {args.table} at source seq {report.position} in {report.seconds:.1f} s "
            f"({report.rounds} round(s))")
    return EXIT_OK


def replica_promote(args: argparse.Namespace, stop_applier: Callable[[str], bool]) -> int:
    stopped = stop_applier(home_path(args))
    with open_home(args) as ddl:
        report = ddl.replica_promote(catch_up=args.catch_up, source=args.source)
    if args.json:
        out(dumps({**attrs.asdict(report), "stopped_applier": stopped}))
    else:
        already = " (already promoted)" if report.already else ""
        out(f"promoted at seq {report.position} of {report.origin}{already}: this home is a source now")
    return EXIT_OK
