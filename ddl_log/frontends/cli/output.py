"""What ``ddl-log`` prints: exit codes, one-line summaries, result rows as text or JSON (one object per line)."""

from __future__ import annotations

import json
import math
import os
import sys
from typing import TYPE_CHECKING, Any

import attrs

from storage.records.home import default_home, is_database_url

if TYPE_CHECKING:
    import argparse

    from actions.results import StatementResult
    from ddl_log.frontends.sql import SqlResult

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_ABANDONED = 3

SUMMARY_WIDTH = 72


def home_path(args: argparse.Namespace) -> str:
    """The home given (a directory, made absolute, or a database URL with its home id)."""
    home: str = getattr(args, "home", None) or default_home()
    return home if is_database_url(home) else os.path.abspath(home)


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


def print_result(result: SqlResult, *, as_json: bool) -> None:
    if result.kind == "skipped":
        out(dumps({"statement": result.statement, "kind": "skipped"}) if as_json
            else f"skipped  {summary(result.statement)}  (applied before)")
        return
    if result.kind == "transaction":  # START TRANSACTION, ROLLBACK: None; COMMIT: the group's events
        seqs = [event.seq for event in getattr(result.result, "events", ())]
        if as_json:
            out(dumps({"statement": result.statement, "kind": "transaction", "ok": True, "binlog_seqs": seqs}))
        else:
            out(f"ok  {summary(result.statement)}" + (f"  [binlog #{seqs[0]}-#{seqs[-1]}]" if seqs else ""))
        return
    if result.kind == "query":
        if getattr(result.result, "columns", None):
            print_frame(result.result, as_json=as_json)
        elif not as_json:
            out(f"ok  {summary(result.statement)}")  # INSERT INTO, USE, SET ...: nothing to show but that it ran
        return
    done: StatementResult = result.result
    rows = getattr(done, "rows", None)  # DESCRIBE HISTORY, SHOW TABLES DROPPED: rows, as a query's
    if rows is not None:
        records = [attrs.asdict(row) for row in rows]
        if as_json:
            for record in records:
                out(dumps(record))
            return
        if records:
            out("\t".join(records[0]))
        for record in records:
            out("\t".join(cell(value) for value in record.values()))
        return
    if as_json:
        out(dumps({"statement": result.statement, "kind": "ddl", "ok": True, "binlog_seq": done.seq,
                   "detail": done.describe()}))
        return
    line = f"ok  {summary(result.statement)}"
    detail = done.describe()
    if detail:
        line += f"  ({detail})"
    if done.seq is not None:
        line += f"  [binlog #{done.seq}]"
    out(line)


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


def field(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return summary(value, 80) if value else "''"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    return str(value)
