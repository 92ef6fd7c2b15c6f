"""Log forensics, read-only: ``status``, ``dump`` and ``binlog`` read the record files without writing, without the
home's lock and without Spark, and keep going over a damaged log (problems are listed, with their offsets)."""

from __future__ import annotations

import argparse
import os
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ddl_log.errors import UsageError
from ddl_log.frontends.cli.history import version_dict, versions_of_state
from ddl_log.frontends.cli.output import (
    EXIT_ABANDONED,
    EXIT_FAILED,
    EXIT_OK,
    dumps,
    field,
    home_path,
    out,
    summary,
    warn,
)
from ddl_log.replication.origin import origin_for
from storage.errors import CorruptLogError, DDLLogError
from storage.records.home import LOG_DIR, home_stores, is_database_url

if TYPE_CHECKING:
    from chains.entries import ActionEntry, ExecuteEntry
    from chains.log_state import LogState

def cmd_status(args: argparse.Namespace) -> int:
    from actions.deletions import waits
    from chains.entries import ChainState

    home = home_path(args)
    records, problems, _, _ = scan_log(home)
    state = log_state(records, problems)
    chains = [state.chains[p] for p in sorted(state.chains)]
    now = time.time()
    waiting = {c.position for c in chains if c.state is ChainState.ACTIVE and waits(actions_of(c, state), now)}
    active = [c for c in chains if c.state is ChainState.ACTIVE and c.position not in waiting]
    abandoned = [c for c in chains if c.state is ChainState.ABANDONED]
    deletions = [pending_dict(c, state) for c in chains if c.position in waiting]
    kept = [{"chain": c.position, "statement": c.statement, "why": state.notes[a.id]} for c in chains
            for a in actions_of(c, state) if a.id in state.notes]
    versions = [version_dict(v) for v in versions_of_state(state)]
    if args.json:
        out(dumps({"home": home, "active": [chain_dict(c, state) for c in active],
                   "abandoned": [chain_dict(c, state) for c in abandoned], "pending_deletions": deletions,
                   "kept_directories": kept, "kept_versions": versions, "problems": problems}))
    else:
        out(f"home: {home}")
        if not active and not abandoned:
            out("no active or abandoned chains")
        if deletions:
            out(f"pending deletions ({len(deletions)}; old table files kept for readers, or an undone statement's "
                "work table swept once no task of it can write, when due, by the next statement or recovery):")
            for deletion in sorted(deletions, key=lambda d: d["due"]):
                what = "sweep of late writes to" if deletion["sweep"] else "was"
                out(f"  chain {deletion['chain']}: {deletion['location']} ({what} {deletion['table']}), due "
                    f"{deletion['due_at']} (in {deletion['due_in_seconds']:.0f} s)")
                if deletion["holds_name"]:
                    out(f"    plain Spark cannot create a managed table {deletion['holds_name']} until then "
                        f"(`ddl-log release {deletion['holds_name']}` frees the name now)")
        if versions:
            total = sum(v["size_bytes"] or 0 for v in versions)
            out(f"kept versions ({len(versions)}, {total} bytes; RESTORE / UNDROP can bring them back until then):")
            for v in versions:
                size = "?" if v["size_bytes"] is None else v["size_bytes"]
                made = f"made by {v['operation']} at {v['timestamp']}; " if v["operation"] else ""
                out(f"  version {v['version']} of {v['table']} ({made}{v['retired_by']} at {v['retired_at']}): "
                    f"{size} bytes at {v['location']}, until {v['restorable_until']}")
        if kept:
            out(f"kept directories ({len(kept)}; due for deletion, but something uses them now):")
            for entry in kept:
                out(f"  chain {entry['chain']}: {entry['why']}")
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


def cmd_history(args: argparse.Namespace) -> int:
    """The kept versions of a table, newest first, one JSON object per line (what RESTORE can take)."""
    from storage.catalogs.names import TableName

    records, problems, _, _ = scan_log(home_path(args))
    versions = versions_of_state(log_state(records, problems), TableName.of(args.table))
    for version in reversed(versions):
        out(dumps(version_dict(version)))
    for problem in problems:
        warn(problem)
    return EXIT_OK


def actions_of(chain: ExecuteEntry, state: LogState) -> list[ActionEntry]:
    return [state.actions[a] for a in chain.actions if a in state.actions]


def pending_dict(chain: ExecuteEntry, state: LogState) -> dict[str, Any]:
    from actions.deletions import deletion_of, held_name
    from actions.kept_versions import time_text
    from chains.entries import ActionType

    actions = actions_of(chain, state)
    deletion = deletion_of(actions)
    assert deletion is not None
    table, payload = deletion
    sweep = any(action.type is ActionType.SWEEP_TABLE for action in actions)
    held = None if sweep else held_name(table, payload.location)
    return {"chain": chain.position, "table": str(table), "location": payload.location, "due": payload.due,
            "sweep": sweep, "holds_name": None if held is None else str(held),
            "due_at": time_text(payload.due),
            "due_in_seconds": max(0.0, payload.due - time.time()), "statement": chain.statement}


def log_state(records: Sequence[tuple[int, Any]], problems: list[str]) -> LogState:
    """The chains the records describe, read as :class:`chains.log.DDLLog` loads them: a ``batch`` record
    announces the n records that count only together; an incomplete batch at the tail is a torn write."""
    from chains.log_state import replay_records

    def report(offset: int, exc: Exception) -> None:
        problems.append(f"error: record at offset {offset} does not apply: {type(exc).__name__}: {exc}")

    state, torn_batch = replay_records(records, report)
    if torn_batch is not None:
        problems.append(f"note: incomplete batch at offset {torn_batch} (a write cut short by a crash; the next "
                        "open cuts it off)")
    return state


def chain_dict(chain: ExecuteEntry, state: LogState | None) -> dict[str, Any]:
    from actions.kinds import phase_name

    actions: list[dict[str, Any]] = []
    if state is not None:
        for action_id in chain.actions:
            action = state.actions.get(action_id)
            if action is None:
                actions.append({"id": action_id, "missing": True})
                continue
            actions.append({
                "id": action.id, "type": action.type.value, "phase": phase_name(action),
                "name": None if action.name is None else str(action.name),
                "from": None if action.from_name is None else str(action.from_name),
                "tag": action.tag, "payload": dict(action.payload),
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
        from actions.kinds import describe
        from actions.replay import replay_order

        pending = [a for a in replay_order(chain.kind, state.chain_actions(chain.position)) if not a.done]
        for number, action in enumerate(pending, 1):
            out(f"      would {number}: {describe(action)}")


def cmd_dump(args: argparse.Namespace) -> int:
    from chains.log import LOG_FILE

    home = home_path(args)
    path = home_stores(home)[0].location_of(LOG_FILE)
    records, problems, _, size = scan_log(home)
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


def scan_log(home: str) -> tuple[list[tuple[int, Any]], list[str], int, int]:
    """The DDL log of a home, read-only: a record file, or a database stream (whose rows are whole: damage is an
    ``error:`` and nothing is listed)."""
    from chains.log import LOG_FILE, LOG_MAGIC

    if not is_database_url(home):
        return scan_file(os.path.join(home, LOG_DIR, LOG_FILE), LOG_MAGIC)
    store = home_stores(home)[0]
    if not store.exists(LOG_FILE):
        return [], [], 0, 0
    try:
        records, end, size = store.read(LOG_FILE, LOG_MAGIC)
    except CorruptLogError as exc:
        return [], [f"error: {exc}"], exc.offset, exc.offset
    return records, [], end, size


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


def cmd_binlog(args: argparse.Namespace) -> int:
    from chains.binlog import events_in
    from chains.catalog_binlog import read_catalog_events

    if args.since < 0:
        raise UsageError("--since must be 0 or more")
    location = home_path(args)  # a database home shows its catalog's one binlog: every driver's events
    catalog = is_database_url(location)
    events = read_catalog_events(location, args.since) if catalog else events_in(home_stores(location)[1], args.since)
    if args.sql and args.json:
        raise UsageError("give --sql or --json, not both")
    until_time = None
    if args.until_time is not None:
        from ddl_log.engine.version_statements import parse_timestamp

        try:
            until_time = parse_timestamp(args.until_time)
        except DDLLogError as exc:
            raise UsageError(f"--until-time: {exc}") from exc
    origin = origin_for(location) if args.sql else ""
    for event in events:
        if (args.until is not None and event.seq > args.until) or (until_time is not None
                                                                   and event.timestamp > until_time):
            break
        if args.sql:
            out(script_lines(origin, event))
            continue
        if args.json:
            out(dumps(event.as_dict()))
            continue
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.timestamp))
        xid = "-" if event.xid is None else str(event.xid)
        driver = f"  driver {event.driver or '-'}" if catalog else ""
        line = f"#{event.seq}  xid {xid}  {stamp}{driver}  {' '.join(event.statement.split())}"
        if event.generated_by_recovery:
            line += "  [generated by recovery]"
        if event.txn is not None:
            line += f"  [transaction {event.txn[0]}/{event.txn[1]}]"
        out(line)
    return EXIT_OK


def script_lines(origin: str, event: Any) -> str:
    """One event as ``ddl-log sql -f`` replays it: a comment saying what it is (and why a replay of its text is not
    the event's exact effect), then the statement behind its origin marker, so that the replaying home records what
    it applied and skips it when the script runs again."""
    from ddl_log.replication.origin import marked_event

    notes = [f"-- #{event.seq}  {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(event.timestamp))}"]
    if event.generated_by_recovery:
        notes[0] += "  generated by recovery"
    if event.version is not None or event.added is not None:
        notes.append("-- text replay runs its query again: rand(), current_timestamp() and tables the replaying "
                     "catalog lacks give other rows (`replica run` copies the source's files instead)")
    text = event.statement.rstrip().rstrip(";")
    lines = [*notes, marked_event(origin, event, text) + terminator(text)]
    if event.txn is not None:  # a DDL transaction's events replay as one transaction
        index, count = event.txn
        lines = (["START TRANSACTION;"] if index == 1 else []) + lines + (["COMMIT;"] if index == count else [])
    return "\n".join(lines)


def terminator(statement: str) -> str:
    """The ``;`` that ends ``statement`` in a script: on a line of its own when the statement's last line may end in
    a ``--`` comment (one that runs to the end of the line would swallow it, and the next statement with it)."""
    last_line = statement.rsplit("\n", 1)[-1]
    return "\n;" if "--" in last_line else ";"
