"""``ddl-log``: run DDL atomically from SQL, inspect the DDL log and the binlog, and recover, from the shell.

Exit codes: 0 success; 1 a statement (or reading the log) failed, one ``error:`` line on stderr (``--debug`` adds the
traceback); 2 usage; 3 recovery left abandoned chains.

``sql`` and ``recover`` open the home (taking its lock), which runs recovery first; Spark starts only when a
statement or a chain needs it. ``status``, ``dump``, ``binlog`` and ``crash-points`` only read files: they never
start Spark (nor import pyspark), never take the lock and work on a damaged log. Keep this module free of top-level
imports of Spark or of the statement machinery: they are imported by the commands that need them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from storage.errors import CorruptLogError, DDLLogError
from storage.records.home import DEFAULT_HOME, HOME_ENV, LOG_DIR, default_home

if TYPE_CHECKING:
    from chains.entries import ExecuteEntry
    from chains.state import LogState
    from ddl_log.api import AtomicDDL
    from ddl_log.recovery import RecoveryReport
    from ddl_log.sql_frontend import PlannedStatement, SqlResult

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_ABANDONED = 3

SUMMARY_WIDTH = 72


class CommandFailed(Exception):  # noqa: N818 - a clean "error: ..." exit, not a bug
    """Stop the command with ``error: <message>`` and exit code 1."""


class StatementFailed(Exception):  # noqa: N818 - carries the statement's own error
    """A statement of a script failed: ``where`` says which one, ``cause`` is its error."""

    def __init__(self, where: str, cause: BaseException) -> None:
        super().__init__(f"{where}: {cause}")
        self.where = where
        self.cause = cause


class UsageError(Exception):
    """Bad arguments found after parsing: exit code 2."""


# ---------------------------------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help=f"the DDL log home: metastore, warehouse, log and binlog (env {HOME_ENV}, "
                             f"default {DEFAULT_HOME})")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks on errors")
    common.add_argument("--no-binlog", action="store_true", default=argparse.SUPPRESS,
                        help="do not write the binlog (closing a statement's chain commits it)")

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

    status = commands.add_parser("status", parents=[common], help="active and abandoned chains (read-only)")
    status.add_argument("--json", action="store_true")

    dump = commands.add_parser("dump", parents=[common], help="every DDL log record with its fields (read-only)")
    dump.add_argument("--json", action="store_true")

    binlog = commands.add_parser("binlog", parents=[common], help="binlog events (read-only)")
    binlog.add_argument("--json", action="store_true")
    binlog.add_argument("--since", metavar="SEQ", type=int, default=0, help="only events after sequence SEQ")

    points = commands.add_parser("crash-points", parents=[common], help="every crash point name, one per line")
    points.add_argument("-v", "--describe", action="store_true", help="add what each point means")
    for command in commands.choices.values():
        command.set_defaults(subparser=command)
    return parser


# ---------------------------------------------------------------------------------------------------- main


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


def home_path(args: argparse.Namespace) -> str:
    return os.path.abspath(getattr(args, "home", None) or default_home())


def summary(statement: str, width: int = SUMMARY_WIDTH) -> str:
    """A statement on one short line."""
    flat = " ".join(statement.split())
    return flat if len(flat) <= width else flat[:width - 3] + "..."


def out(line: str = "") -> None:
    print(line, flush=True)  # flushed: a crash point may SIGKILL the process right after


def warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)


# ---------------------------------------------------------------------------------------------------- sql


def cmd_sql(args: argparse.Namespace) -> int:
    from ddl_log.sql_frontend import check_available, execute, plan_script

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
        plans = check_available(ddl, plans, allow_non_atomic=args.allow_non_atomic)
        done = 0
        try:
            for result in execute(ddl, plans):
                print_result(result, as_json=args.json)
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
    from ddl_log.api import AtomicDDL

    ddl = AtomicDDL(home=home_path(args), binlog=not getattr(args, "no_binlog", False))
    try:
        yield ddl
    finally:
        try:
            ddl.close()
        finally:
            session = getattr(ddl, "_spark", None)  # created by this process only when something needed Spark
            if session is not None:
                session.stop()


def print_result(result: SqlResult, *, as_json: bool) -> None:
    if result.kind == "query":
        if getattr(result.result, "columns", None):
            print_frame(result.result, as_json=as_json)
        elif not as_json:
            out(f"ok  {summary(result.statement)}")  # INSERT INTO, USE, SET ...: nothing to show but that it ran
        return
    seq = binlog_seq(result.result)
    if as_json:
        out(dumps({"statement": result.statement, "kind": "ddl", "ok": True, "binlog_seq": seq,
                   "detail": ddl_detail(result.result)}))
        return
    line = f"ok  {summary(result.statement)}"
    detail = ddl_detail(result.result)
    if detail:
        line += f"  ({detail})"
    if seq is not None:
        line += f"  [binlog #{seq}]"
    out(line)


def binlog_seq(value: Any) -> int | None:
    event = getattr(value, "event", value)
    seq = getattr(event, "seq", None)
    return seq if isinstance(seq, int) and hasattr(event, "statement") else None


def ddl_detail(value: Any) -> str:
    if isinstance(value, bool):
        return "" if value else "nothing to do"
    if isinstance(value, list):
        return ("done: " + ", ".join(str(item) for item in value)) if value else "nothing to do"
    replaced = getattr(value, "replaced", None)
    if isinstance(replaced, bool):
        return "replaced the old table" if replaced else "created"
    return ""


def print_frame(frame: Any, *, as_json: bool) -> None:
    columns = [str(c) for c in getattr(frame, "columns", [])]
    if not columns:
        return
    rows = frame.collect()
    if as_json:
        for row in rows:
            out(dumps({name: jsonable(value) for name, value in zip(columns, row, strict=False)}))
        return
    out("\t".join(columns))
    for row in rows:
        out("\t".join(cell(value) for value in row))


def jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if hasattr(value, "asDict"):  # a pyspark Row (a struct)
        return {str(k): jsonable(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes | bytearray):
        text = bytes(value).hex()
    elif isinstance(value, str):
        text = value
    elif isinstance(value, list | tuple | dict) or hasattr(value, "asDict"):
        text = dumps(jsonable(value))
    else:
        text = str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


# ---------------------------------------------------------------------------------------------------- recover


def cmd_recover(args: argparse.Namespace) -> int:
    with open_home(args) as ddl:
        report = ddl.last_recovery
        if args.retry_abandoned and ddl.abandoned_chains():
            report = ddl.recover(retry_abandoned=True)
        if args.json:
            out(dumps({"outcomes": [item.as_dict() for item in report.outcomes],
                       "abandoned": [chain_dict(chain, None) for chain in report.abandoned],
                       "compacted": report.compacted}))
        elif report.nothing_to_do:
            out("nothing to recover")
        else:
            report_recovery(report, to_stderr=False)
    if report.abandoned:
        return EXIT_ABANDONED
    return EXIT_FAILED if report.of("failed") else EXIT_OK


def report_recovery(report: RecoveryReport, *, to_stderr: bool) -> bool:
    """Print what recovery did (nothing when it had nothing to do); True when abandoned chains remain."""
    emit = warn if to_stderr else out
    for item in report.outcomes:
        line = f"recovery: {item.outcome:<9} #{item.position}  {summary(item.statement, 60)}"
        emit(line + (f"  -- {item.detail}" if item.detail else ""))
    if report.abandoned:
        numbers = ", ".join(f"#{chain.position}" for chain in report.abandoned)
        emit(f"recovery: abandoned chains remain ({numbers}); see `ddl-log status`, fix the cause, then "
             "`ddl-log recover --retry-abandoned`")
    return bool(report.abandoned)


# ---------------------------------------------------------------------------------------------------- status, dump


def cmd_status(args: argparse.Namespace) -> int:
    from chains.entries import ChainState
    from chains.log import LOG_FILE, LOG_MAGIC

    home = home_path(args)
    records, problems, _, _ = scan_file(os.path.join(home, LOG_DIR, LOG_FILE), LOG_MAGIC)
    state = log_state(records, problems)
    chains = [state.chains[p] for p in sorted(state.chains)]
    active = [c for c in chains if c.state is ChainState.ACTIVE]
    abandoned = [c for c in chains if c.state is ChainState.ABANDONED]
    if args.json:
        out(dumps({"home": home, "active": [chain_dict(c, state) for c in active],
                   "abandoned": [chain_dict(c, state) for c in abandoned], "problems": problems}))
    else:
        out(f"home: {home}")
        if not active and not abandoned:
            out("no active or abandoned chains")
        if active:
            out(f"active chains ({len(active)}; the next `ddl-log recover` or `ddl-log sql` recovers them):")
            for chain in active:
                print_chain(chain, state)
        if abandoned:
            out(f"abandoned chains ({len(abandoned)}; recovery gave up on them: fix the cause, then "
                "`ddl-log recover --retry-abandoned` runs them again):")
            for chain in abandoned:
                print_chain(chain, state, plan=True)
    for problem in problems:
        warn(problem)
    if any(p.startswith("error:") for p in problems):
        return EXIT_FAILED
    return EXIT_ABANDONED if abandoned else EXIT_OK


def log_state(records: Sequence[tuple[int, Any]], problems: list[str]) -> LogState:
    """The chains the records describe, read as :class:`chains.log.DDLLog` loads them: a ``batch`` record
    announces the n records that count only together; an incomplete batch at the tail is a torn write."""
    from chains.state import replay_records

    def report(offset: int, exc: Exception) -> None:
        problems.append(f"error: record at offset {offset} does not apply: {type(exc).__name__}: {exc}")

    state, torn_batch = replay_records(records, report)
    if torn_batch is not None:
        problems.append(f"note: incomplete batch at offset {torn_batch} (a write cut short by a crash; the next "
                        "open cuts it off)")
    return state


def chain_dict(chain: ExecuteEntry, state: LogState | None) -> dict[str, Any]:
    from chains.payloads import payload_to_wire

    actions: list[dict[str, Any]] = []
    if state is not None:
        for action_id in chain.actions:
            action = state.actions.get(action_id)
            if action is None:
                actions.append({"id": action_id, "missing": True})
                continue
            actions.append({
                "id": action.id, "type": action.type.value, "phase": action.phase_name,
                "name": None if action.name is None else str(action.name),
                "from": None if action.from_name is None else str(action.from_name),
                "tag": action.tag, "payload": payload_to_wire(action.type, action.payload),
            })
    return {
        "position": chain.position, "kind": chain.kind.value, "state": chain.state.value,
        "statement": chain.statement, "xid": chain.xid, "retries": chain.retries, "master": chain.master,
        "actions": actions,
    }


def print_chain(chain: ExecuteEntry, state: LogState, *, plan: bool = False) -> None:
    """One chain and its actions; ``plan``: also what replaying it would do, in replay order."""
    facts = [chain.kind.value, f"retries {chain.retries}"]
    if chain.xid is not None:
        facts.append(f"xid {chain.xid}")
    if chain.master is not None:
        facts.append(f"after #{chain.master}")
    out(f"  #{chain.position} [{', '.join(facts)}]  {summary(chain.statement, 60)}")
    for entry in chain_dict(chain, state)["actions"]:
        if entry.get("missing"):
            out(f"      action {entry['id']}: missing from the log")
            continue
        target = entry["name"] or "-"
        if entry["from"]:
            target = f"{entry['from']} -> {target}"
        out(f"      {entry['type']:<13} {target}  phase {entry['phase']}")
    if plan:
        from actions.describe import describe
        from actions.replay import replay_order

        pending = [a for a in replay_order(chain.kind, state.chain_actions(chain.position)) if not a.done]
        for number, action in enumerate(pending, 1):
            out(f"      would {number}: {describe(action)}")


def cmd_dump(args: argparse.Namespace) -> int:
    from chains.log import LOG_FILE, LOG_MAGIC

    path = os.path.join(home_path(args), LOG_DIR, LOG_FILE)
    records, problems, _, size = scan_file(path, LOG_MAGIC)
    if not args.json:
        out(f"{path}: {len(records)} records, {size} bytes")
    for offset, record in records:
        if args.json:
            out(dumps({"offset": offset, **record}))
        else:
            fields = "  ".join(f"{key}={field(value)}" for key, value in record.items() if key != "op")
            out(f"{offset:>8}  {record.get('op', '?'):<6} {fields}")
    for problem in problems:
        warn(problem)
    return EXIT_FAILED if any(p.startswith("error:") for p in problems) else EXIT_OK


def field(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return summary(value, 80) if value else "''"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    return str(value)


def scan_file(path: str, magic: bytes) -> tuple[list[tuple[int, Any]], list[str], int, int]:
    """Read a record file without writing anything: ``(records, problems, valid_end, size)``.

    A torn tail is a note; corruption is an ``error:`` with its offset, and the records after it (when a valid one
    follows) are still listed. A missing file is an empty log."""
    from storage.records.files import open_private
    from storage.records.format import HEADER_SIZE, check_header, scan_records

    if not os.path.lexists(path):
        return [], [], 0, 0
    fd = open_private(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    check_header(path, data, magic)
    records: list[tuple[int, Any]] = []
    problems: list[str] = []
    offset = HEADER_SIZE
    while True:
        try:
            found, end = scan_records(path, data, offset)
        except CorruptLogError as exc:
            found, _ = scan_records(path, data[:exc.offset], offset)
            records += found
            problems.append(f"error: {exc}")
            resume = re.search(r"valid record at offset (\d+)", exc.reason)
            if resume is None or int(resume.group(1)) <= exc.offset:
                return records, problems, exc.offset, len(data)
            offset = int(resume.group(1))
            continue
        records += found
        if end < len(data):
            problems.append(f"note: {path}: torn tail of {len(data) - end} bytes at offset {end} (a write cut short "
                            "by a crash; the next open cuts it off)")
        return records, problems, end, len(data)


# ---------------------------------------------------------------------------------------------------- binlog


def cmd_binlog(args: argparse.Namespace) -> int:
    from chains.binlog import read_events

    if args.since < 0:
        raise UsageError("--since must be 0 or more")
    for event in read_events(home_path(args), args.since):
        if args.json:
            out(dumps(event.as_dict()))
            continue
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.timestamp))
        xid = "-" if event.xid is None else str(event.xid)
        line = f"#{event.seq}  xid {xid}  {stamp}  {' '.join(event.statement.split())}"
        if event.generated_by_recovery:
            line += "  [generated by recovery]"
        out(line)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------- crash points


def cmd_crash_points(args: argparse.Namespace) -> int:
    from storage import crashpoints

    load_crash_points()
    for point in crashpoints.describe():
        out(f"{point.name}\t{point.doc}" if args.describe else point.name)
    return EXIT_OK


def load_crash_points() -> None:
    """Import the modules that declare crash points (they register on import). The API imports every statement,
    recovery, the log and the record layer, and imports Spark only when a session is needed: no JVM starts."""
    importlib.import_module("ddl_log.api")


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "sql": cmd_sql,
    "recover": cmd_recover,
    "status": cmd_status,
    "dump": cmd_dump,
    "binlog": cmd_binlog,
    "crash-points": cmd_crash_points,
}


if __name__ == "__main__":
    sys.exit(main())
