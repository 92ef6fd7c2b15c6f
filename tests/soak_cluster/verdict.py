"""The cluster soak's verdict: the journals, the binlog, what Spark and the disk show after the final recovery, the
homes' logs, the locks and the reader's reads, against the model (:mod:`tests.soak_cluster.plan` replayed in commit
order). Pure: no Spark, no servers (the parent gathers the inputs)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from tests.readers.model import FAILED, GOOD, STALE, Read, Version, classify
from tests.soak.checker import check_directory, directories, pending_by_database, read_journal, rows_match, sid_of
from tests.soak.readers import ABSENT, NOT_PROMISED, content
from tests.soak_cluster.plan import NotApplicableError, State, apply, touched

ABSENT_ERRORS = ("TABLE_OR_VIEW_NOT_FOUND", "REFRESH TABLE_OR_VIEW_NOT_FOUND")
"""A read of a name no table has: the model's ``absent`` version, not a failure."""
EXAMPLES = 8
FILE_GONE = "FAILED_READ_FILE.FILE_NOT_EXIST"


@attrs.define
class Statement:
    home: str
    begin: dict[str, Any]
    end: dict[str, Any] | None

    @property
    def sid(self) -> str:
        return str(self.begin["sid"])

    @property
    def outcome(self) -> str:
        return "killed" if self.end is None else str(self.end["outcome"])

    def finished(self, default: float) -> float:
        """When it ended (a killed statement: ``default``, the latest its recovery can have ended)."""
        return float(self.end["end"]) if self.end is not None else default


def load_statements(journals: dict[str, Path]) -> tuple[dict[str, Statement], int]:
    """Every journalled statement by sid, and the number of torn journal lines (a kill while writing one)."""
    statements: dict[str, Statement] = {}
    torn = 0
    for home, path in sorted(journals.items()):
        entries, torn_here = read_journal(path)
        torn += torn_here
        for entry in entries:
            statements[entry["begin"]["sid"]] = Statement(home, entry["begin"], entry["end"])
    return statements, torn


class Verdict:
    """Collects violations (each ``{"kind", "what", "object", "detail"}``) and the counts of the report."""

    def __init__(self) -> None:
        self.violations: list[dict[str, Any]] = []
        self.counts: dict[str, Any] = {}

    def violate(self, category: str, what: str, obj: str | None = None, **detail: Any) -> None:
        self.violations.append({"kind": category, "what": what, "object": obj, "detail": detail})


def check_binlog(verdict: Verdict, statements: dict[str, Statement], mode: str,
                 events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Statement]]:
    """Every returned statement in the binlog exactly once, no failed one, a killed one at most once, no event of a
    statement the soak never ran; the catalog binlog's seqs gap-free. Returns the committed statements in commit
    order, with their events."""
    by_sid: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        sid = sid_of(event["statement"])
        if sid is None or sid not in statements:
            verdict.violate("binlog", "binlog event of no statement the soak ran", sid, event=event)
            continue
        by_sid.setdefault(sid, []).append(event)
    if mode == "catalog":
        seqs = [event["seq"] for event in events]
        if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
            verdict.violate("binlog", "catalog binlog seqs are not consecutive", None, seqs=seqs)
    outcomes: Counter[str] = Counter()
    for sid, statement in statements.items():
        found = by_sid.get(sid, [])
        outcome = statement.outcome
        outcomes[outcome] += 1
        if outcome == "killed":
            outcomes["killed_committed" if found else "killed_not_committed"] += 1
        if len(found) > 1:
            verdict.violate("binlog", f"statement is in the binlog {len(found)} times", sid, events=found)
        if outcome == "ok" and not found:
            verdict.violate("binlog", "statement returned but is not in the binlog", sid, text=statement.begin["text"])
        if outcome != "ok" and outcome != "killed" and found:
            verdict.violate("binlog", f"statement {outcome} but is in the binlog", sid, error=statement.end and
                            statement.end.get("error"), events=found)
        if outcome == "error":
            verdict.violate("statement", "statement raised an exception that is not a DDLLogError", sid,
                            text=statement.begin["text"], error=(statement.end or {}).get("error", "")[:3000])
    verdict.counts["outcomes"] = dict(outcomes)
    verdict.counts["statements"] = len(statements)
    verdict.counts["commits"] = sum(1 for sid in statements if by_sid.get(sid))
    verdict.counts["events"] = len(events)
    if mode == "catalog":
        verdict.counts["events_by_another_driver"] = sum(
            1 for sid, found in by_sid.items() for event in found if event.get("driver") != statements[sid].home)
    seen: set[str] = set()
    committed = []
    for event in events:
        sid = sid_of(event["statement"])
        if sid in statements and sid not in seen:
            seen.add(sid)
            committed.append((event, statements[sid]))
    return committed


@attrs.define
class Replayed:
    state: State
    versions: dict[str, list[Version]]
    """Per table, the versions a reader may see, in commit order (beside the killed statements' maybe-versions)."""
    unpromised: list[tuple[str, float, float]]
    """(table, start, end) of statements during which a name may vanish by design (swaps), or whose visible
    states cannot be told (a killed rename)."""
    dropping: list[tuple[str, float, float]] = attrs.field(factory=list)
    """(table, start, end) of every DROP TABLE and RENAME: a DROP deletes the table's files at once and a RENAME of a
    table at its default directory moves them, as Spark's own statements do, so a query reading the table in another
    driver at that instant may fail on a missing file (renames are not reader-atomic, README)."""


def replay(verdict: Verdict, committed: list[tuple[dict[str, Any], Statement]], statements: dict[str, Statement],
           soak_end: float) -> Replayed:
    """The tables after every committed statement in commit order; a statement whose precondition fails there
    ran interleaved with another on the same table (no cross-driver lock): a violation."""
    state: State = {}
    history: dict[str, list[tuple[Any, float, float, str]]] = {}
    unpromised: list[tuple[str, float, float]] = []
    for event, statement in committed:
        effect = statement.begin["effect"]
        try:
            state = apply(state, effect)
        except NotApplicableError as exc:
            verdict.violate("isolation", "committed statement could not have run on the state the binlog order gives "
                            "(interleaved with another driver's)", statement.sid, why=exc.why, driver=statement.home,
                            event_seq=event.get("seq"), text=statement.begin["text"][:200])
            state = exc.after
        start, end = float(statement.begin["start"]), statement.finished(soak_end)
        for table in touched(effect):
            history.setdefault(table, []).append((content(_state(state, table)), start, end, statement.begin["kind"]))
    committed_sids = {statement.sid for _, statement in committed}
    maybe: dict[str, list[Version]] = {}
    for statement in statements.values():
        start, end = float(statement.begin["start"]), statement.finished(soak_end)
        if statement.begin["kind"] in NOT_PROMISED:
            unpromised += [(table, start, end) for table in touched(statement.begin["effect"])]
        if statement.end is not None or statement.sid in committed_sids:
            continue
        effect = statement.begin["effect"]  # killed, rolled back: its new version may have shown until recovery
        if effect["op"] == "rename":
            unpromised += [(table, start, end) for table in touched(effect)]
            continue
        after = {"drop": None, "truncate": {"seg": []}}.get(effect["op"], {"seg": effect.get("seg")})
        for table in touched(effect):
            maybe.setdefault(table, []).append(Version(content(after), start, end, "killed"))
    versions: dict[str, list[Version]] = {}
    for table in set(history) | set(maybe):
        steps = history.get(table, [])
        made = [Version(ABSENT, -math.inf, steps[0][2] if steps else math.inf, "setup")]
        for index, (held, start, _, kind) in enumerate(steps):
            made.append(Version(held, start, steps[index + 1][2] if index + 1 < len(steps) else math.inf, kind))
        versions[table] = made + maybe.get(table, [])
    dropping = [(table, float(statement.begin["start"]), statement.finished(soak_end))
                for statement in statements.values() if statement.begin["effect"]["op"] in ("drop", "rename")
                for table in touched(statement.begin["effect"])]
    return Replayed(state, versions, unpromised, dropping)


def _state(state: State, table: str) -> dict[str, Any] | None:
    return None if table not in state else {"seg": state[table]}


def check_catalog(verdict: Verdict, state: State, observed: dict[str, Any], pending: list[str],
                  statements: dict[str, Statement], sweeps: Iterable[str] = ()) -> None:
    """Every table's rows as the binlog says, no TMP/BACKUP table, no orphan directory in the warehouse. The
    directories of ``sweeps`` (undone work tables on a cluster, their sweep not due yet) are neither required nor
    orphans: a late task of the undone statement may make one again until its sweep removes it."""
    tables = observed["tables"]
    for name in sorted(set(state) | set(tables)):
        expected, seen = _state(state, name), tables.get(name)
        if expected is None or seen is None or seen.get("error") or not rows_match(expected, seen):
            last = [s.sid for s in statements.values() if name in touched(s.begin["effect"])][-3:]
            verdict.violate("atomicity", "table rows differ from what the binlog says they are", name,
                            expected=None if expected is None else expected["seg"],
                            observed=None if seen is None else {k: seen.get(k) for k in ("agg", "schema", "error")},
                            recent_statements=last)
    for name in observed["reserved"]:
        verdict.violate("atomicity", "a TMP/BACKUP table (reserved prefix) is left", name)
    pending_dirs = pending_by_database(pending).get("default", set())
    # A DROP TABLE deletes the files at the name's default directory with the table ("DROP expedites"), whichever
    # driver's log still lists a replaced version there; its deletion, when due, finds nothing (idempotent).
    dropped = {name for statement in statements.values()
               if statement.begin["effect"]["op"] == "drop" and statement.outcome == "ok"
               for name in touched(statement.begin["effect"])}
    pending_dirs = {d for d in pending_dirs if d in observed["dirs"] or d not in dropped}
    expected_dirs = directories(state, tables, pending_dirs)
    swept = pending_by_database(sweeps).get("default", set())
    observed = {**observed, "dirs": [d for d in observed["dirs"] if str(d).lower() not in swept]}
    check_directory(verdict.violate, "the warehouse", expected_dirs, observed, tables=set(tables))


def check_logs(verdict: Verdict, logs: dict[str, dict[str, Any]]) -> None:
    for home, log in sorted(logs.items()):
        if log["active"]:
            verdict.violate("log", "active chains left in a home", home, chains=log["active"])
        if log["abandoned"]:
            verdict.violate("log", "abandoned chains in a home", home, chains=log["abandoned"])
        if log["problems"]:
            verdict.violate("log", "the home's log cannot be read cleanly", home, problems=log["problems"])


def as_read(record: dict[str, Any]) -> Read:
    read = Read.from_json(record)
    if read.error is not None and read.error.startswith(ABSENT_ERRORS):
        return attrs.evolve(read, result=ABSENT, error=None)
    return read


def check_reads(verdict: Verdict, reads: list[Read], replayed: Replayed) -> None:
    """Every read a complete version possibly live while it ran (or an older one: the reader is another driver,
    stale counted apart); bad reads during statements that do not promise one are only counted."""
    counts: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    for read in reads:
        verdict_of = classify(read, replayed.versions.get(read.table, [Version(ABSENT, -math.inf, math.inf, "none")]))
        counts["reads"] += 1
        counts[verdict_of] += 1
        if verdict_of in (GOOD, STALE):
            continue
        if verdict_of == FAILED and (read.error or "").startswith(FILE_GONE) and any(
                table == read.table and start <= read.end and end >= read.start
                for table, start, end in replayed.dropping):
            counts["dropped_mid_read"] += 1  # the table was dropped while the query read it (not a replace)
            continue
        excused = any(table == read.table and start <= read.end and end >= read.start
                      for table, start, end in replayed.unpromised)
        counts["bad_excused" if excused else "bad"] += 1
        if not excused and len(examples) < EXAMPLES:
            examples.append({"verdict": verdict_of, **read.as_json()})
    verdict.counts["reads"] = dict(counts)
    if counts["bad"]:
        errors = Counter((e.get("error") or "").split(":")[0] for e in examples if e["verdict"] == FAILED)
        verdict.violate("reader", f"{counts['bad']} reads were neither a complete old nor a complete new version",
                        None, examples=examples, errors=dict(errors))
