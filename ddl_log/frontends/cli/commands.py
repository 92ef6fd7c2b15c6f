"""The ``ddl-log`` entry point: the argument parser, the command table and how errors become exit codes."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from ddl_log.errors import CommandFailed, StatementFailed, UsageError
from ddl_log.frontends.cli.cluster import add_cluster_parser, cmd_cluster
from ddl_log.frontends.cli.crash_points import cmd_crash_points
from ddl_log.frontends.cli.extension import add_session_conf_parser, cmd_session_conf
from ddl_log.frontends.cli.forensics import cmd_binlog, cmd_dump, cmd_history, cmd_status
from ddl_log.frontends.cli.metastore_commands import add_metastore_parser, cmd_metastore
from ddl_log.frontends.cli.output import EXIT_FAILED, EXIT_USAGE
from ddl_log.frontends.cli.replica import add_replica_parser, cmd_replica
from ddl_log.frontends.cli.run import cmd_recover, cmd_release, cmd_sql
from ddl_log.frontends.cli.server_commands import add_server_parsers, server_handlers
from ddl_log.settings import add_setting_options
from storage.errors import DDLLogError
from storage.records.home import DEFAULT_HOME, HOME_ENV


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", metavar="DIR|URL", default=argparse.SUPPRESS,
                        help=f"the DDL log home: metastore, warehouse, log and binlog (env {HOME_ENV}, "
                             f"default {DEFAULT_HOME}); or postgresql://HOST:PORT/DB?home=ID for a log and "
                             "binlog kept in a database under the driver's home id")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks on errors")
    add_setting_options(common)

    parser = argparse.ArgumentParser(
        prog="ddl-log", parents=[common],
        description="Crash-safe, atomic DDL for Spark tables: run SQL through a DDL log, inspect it, recover.",
        epilog="exit codes: 0 ok, 1 a statement failed, 2 usage, 3 recovery left abandoned chains",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sql = commands.add_parser("sql", parents=[common], help="run SQL statements (DDL atomically)",
                              description="Run statements in order; DDL runs atomically through the DDL log, "
                                          "anything else goes to Spark unchanged.")
    sql.add_argument("statements", nargs="*", metavar="STMT", help="SQL text (several statements split by ;)")
    sql.add_argument("-f", "--file", metavar="FILE", help="read SQL from FILE ('-' for stdin)")
    sql.add_argument("--json", action="store_true", help="print one JSON object per row (and per statement)")
    sql.add_argument("--allow-non-atomic", action="store_true",
                     help="run DDL the log cannot make atomic directly on Spark instead of refusing it")

    recover = commands.add_parser("recover", parents=[common], help="run recovery and report what it did")
    recover.add_argument("--json", action="store_true")
    recover.add_argument("--retry-abandoned", action="store_true",
                         help="give abandoned chains new tries (after fixing what made them fail; see `status`)")
    recover.add_argument("--all", action="store_true",
                         help="then take over every dead driver's home in the database home's database (its "
                              "advisory lock free or its lease over) and recover its statements")

    release = commands.add_parser(
        "release", parents=[common], help="free a table name's default directory now (RELEASE TABLE NAME)",
        description="Delete what this home keeps at <database>/<name> (a replaced or dropped version waiting for "
                    "its grace period), after proving nothing uses it, so that plain Spark can create a managed "
                    "table of that name. Queries still reading those files then fail.")
    release.add_argument("table", metavar="TABLE", help="db.name (a bare name is in the default database)")
    release.add_argument("--json", action="store_true")

    add_inspection_parsers(commands, common)
    add_session_conf_parser(commands, common)
    add_metastore_parser(commands)
    add_replica_parser(commands, common)
    add_cluster_parser(commands)
    add_server_parsers(commands, common)
    for command in commands.choices.values():
        command.set_defaults(subparser=command)
    return parser


def add_inspection_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser],
                           common: argparse.ArgumentParser) -> None:
    """The read-only commands: status, history, dump, binlog, crash-points."""
    status = commands.add_parser("status", parents=[common], help="active and abandoned chains (read-only)")
    status.add_argument("--json", action="store_true")

    history = commands.add_parser("history", parents=[common],
                                  help="the kept versions of a table, newest first, as JSON lines (read-only)")
    history.add_argument("table", metavar="TABLE", help="db.name (a bare name is in the default database)")

    dump = commands.add_parser("dump", parents=[common], help="every DDL log record with its fields (read-only)")
    dump.add_argument("--json", action="store_true")

    binlog = commands.add_parser("binlog", parents=[common], help="binlog events (read-only)")
    binlog.add_argument("--json", action="store_true")
    binlog.add_argument("--since", metavar="SEQ", type=int, default=0, help="only events after sequence SEQ")
    until = binlog.add_mutually_exclusive_group()
    until.add_argument("--until", metavar="SEQ", type=int, default=None, help="only events up to sequence SEQ")
    until.add_argument("--until-time", metavar="TIME", default=None,
                       help="only events committed at or before TIME (ISO 8601, local time unless it names a zone)")
    binlog.add_argument("--sql", action="store_true",
                        help="print the events as a SQL script that `ddl-log sql -f` replays, each statement once "
                             "(each carries its origin and sequence: statements the replaying home applied are "
                             "skipped). Text replay: queries run again; `replica run --until` copies their files")

    points = commands.add_parser("crash-points", parents=[common], help="every crash point name, one per line")
    points.add_argument("-v", "--describe", action="store_true", help="add what each point means")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    handler: Callable[[argparse.Namespace], int] = COMMANDS[args.command]
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except UsageError as exc:
        getattr(args, "subparser", parser).print_usage(sys.stderr)
        print(f"ddl-log {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except StatementFailed as exc:
        return fail(exc.cause, debug, where=exc.where)
    except Exception as exc:  # noqa: BLE001 - Spark's own errors (no pyspark import here) and anything else
        return fail(exc, debug)


def fail(exc: BaseException, debug: bool, *, where: str = "") -> int:
    """Print one ``error:`` line (and with ``--debug`` the traceback first); exit code 1."""
    if debug:
        traceback.print_exception(exc)
    message = first_line(str(exc)) or type(exc).__name__
    if not isinstance(exc, DDLLogError | CommandFailed) and not is_engine_error(exc):
        message = f"{type(exc).__name__}: {message}" + ("" if debug else " (--debug shows the traceback)")
    print(f"error: {where + ': ' if where else ''}{message}", file=sys.stderr)
    return EXIT_FAILED


def is_engine_error(exc: BaseException) -> bool:
    return any(cls.__module__.split(".")[0] in ("pyspark", "py4j") for cls in type(exc).__mro__)


def first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "sql": cmd_sql,
    "recover": cmd_recover,
    "release": cmd_release,
    "status": cmd_status,
    "history": cmd_history,
    "dump": cmd_dump,
    "binlog": cmd_binlog,
    "crash-points": cmd_crash_points,
    "metastore": cmd_metastore,
    "replica": cmd_replica,
    "cluster": cmd_cluster,
    "session-conf": cmd_session_conf,
    **server_handlers(),
}
