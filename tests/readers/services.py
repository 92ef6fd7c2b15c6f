"""Two drivers on one metastore service: a writer driver (AtomicDDL, reader threads in its session) and a reader
in another driver, both subprocesses in process groups of their own (always killed at the end), and optionally a
SIGKILL of the writer in the middle of a statement followed by a recovery run on its home.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from tests.readers.harness import load, records
from tests.readers.model import Event, Read, normalise, render, tally
from tests.servers.metastore import MetastoreService, metastore_service

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 300.0
KILL_KIND = "cor_select"


class Driver:
    """A Python + Spark subprocess in its own session (process group); :meth:`kill` takes the JVM with it."""

    def __init__(self, module: str, args: list[str], log: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        env.pop("DDL_LOG_CRASH_AT", None)
        self.log = log
        with open(log, "ab") as handle:
            self.popen = subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT, env=env,
                                          stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
                                          start_new_session=True)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=60)

    def wait(self, timeout: float) -> int:
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def tail(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
        except OSError:
            return ""


@contextlib.contextmanager
def drivers() -> Iterator[list[Driver]]:
    """Every driver started in the block is killed (its whole process group) when the block ends."""
    started: list[Driver] = []
    try:
        yield started
    finally:
        for driver in started:
            driver.kill()


def wait_for(path: Path, record_type: str, driver: Driver, timeout: float = START_TIMEOUT) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for record in records(path):
            if record.get("type") == record_type:
                return record
        if driver.popen.poll() is not None:
            raise RuntimeError(f"driver exited with {driver.popen.returncode} before {record_type!r}:\n"
                               + driver.tail())
        time.sleep(0.2)
    raise TimeoutError(f"no {record_type!r} within {timeout:.0f} s:\n{driver.tail()}")


@attrs.frozen
class Place:
    """The tally of one place's readers."""

    title: str
    counts: dict[str, Counter[str]]
    errors: Counter[str]
    examples: list[dict[str, Any]]
    stale_ok: bool

    @property
    def bad(self) -> int:
        return int(self.counts.get("all", Counter())["bad"])

    def reads(self, kind: str = "all") -> int:
        return int(self.counts.get(kind, Counter())["reads"])

    def report(self) -> str:
        return render(self.title, self.counts, self.errors, stale_ok=self.stale_ok)


@attrs.frozen
class TwoDrivers:
    writer_session: Place
    other_driver: Place
    statement_errors: list[Event]
    problems: list[str]
    """Harness findings (a recovery that left neither the old nor the new version, ...)."""

    @property
    def bad(self) -> int:
        return self.writer_session.bad + self.other_driver.bad + len(self.problems)

    def report(self) -> str:
        lines = [self.writer_session.report(), self.other_driver.report()]
        if self.statement_errors:
            lines.append(f"statements that raised: {len(self.statement_errors)}: {self.statement_errors[0].error}")
        lines += [f"PROBLEM: {problem}" for problem in self.problems]
        return "\n".join(lines)


def killed_statement(writer_out: Path, recovery_out: Path) -> tuple[list[Event], list[str]]:
    """The statement the kill interrupted (begun, never ended) and the recovery after it, as model events: the
    table holds the old or the new content from the statement's start until the recovery ended, then what the
    recovery left (which must be one of the two)."""
    _, _, writer_other = load(writer_out)
    events, _, _ = load(writer_out)
    ended = {(e.table, e.start) for e in events}
    begun = [r for r in writer_other if r.get("type") == "begin"]
    open_ones = [r for r in begun if not any(t == r["table"] and abs(s - r["start"]) < 0.5 for t, s in ended)]
    recovered = next((r for r in records(recovery_out) if r.get("type") == "recovered"), None)
    if not open_ones or recovered is None:
        return [], ["the kill landed outside a statement" if not open_ones else "no recovery record"]
    killed = open_ones[-1]
    observed = normalise(recovered["content"] or [])
    before = [e for e in events if e.table == killed["table"]]
    old = before[-1].content if before else None
    new = normalise(killed["content"])
    problems = [] if observed in (old, new) else [f"after recovery {killed['table']} holds {observed}, neither the "
                                                  f"old {old} nor the new {new}"]
    end = recovered["end"]
    return [Event(killed["table"], killed["kind"], killed["start"], end, new),
            Event(killed["table"], "recovery", killed["start"], end, observed)], problems


def run_two_drivers(workdir: Path, *, kinds: list[str], statements: int, rows: int, kill: bool = False,
                    readers: int = 2, service: MetastoreService | None = None, refresh_every: int = 3) -> TwoDrivers:
    """Start a service (unless given), one reader driver and the writer driver; with ``kill``, afterwards a
    second writer on tables of its own that is SIGKILLed in the middle of its second statement, and a recovery
    writer on the same home that goes on with one statement. The reader driver reads throughout, refreshing the
    table before every ``refresh_every``-th read (1: every read resolves the table anew)."""
    workdir.mkdir(parents=True, exist_ok=True)
    if service is None:
        with metastore_service(workdir / "metastore") as started:
            return run_two_drivers(workdir, kinds=kinds, statements=statements, rows=rows, kill=kill,
                                   readers=readers, service=started, refresh_every=refresh_every)
    control, stop, go = workdir / "control.json", workdir / "stop", workdir / "go"
    common = ["--uri", service.uri, "--warehouse", str(service.warehouse)]
    reader_out, writer_out = workdir / "reader.jsonl", workdir / "writer.jsonl"
    kill_out, recovery_out = workdir / "writer-kill.jsonl", workdir / "writer-recovery.jsonl"
    problems: list[str] = []
    with drivers() as started:
        reader = Driver("tests.readers.reader_process",
                        [*common, "--home", str(workdir / "reader-home"), "--control", str(control), "--out",
                         str(reader_out), "--stop-file", str(stop), "--refresh-every", str(refresh_every)],
                        workdir / "reader.log")
        started.append(reader)
        writer_args = [*common, "--home", str(workdir / "writer-home"), "--control", str(control),
                       "--statements", str(statements), "--rows", str(rows), "--readers", str(readers),
                       "--start-file", str(go)]
        writer = Driver("tests.readers.writer_process", [*writer_args, "--out", str(writer_out),
                                                         "--kinds", ",".join(kinds)], workdir / "writer.log")
        started.append(writer)
        wait_for(reader_out, "ready", reader)
        go.touch()
        code = writer.wait(timeout=3600)
        if code != 0:
            problems.append(f"writer exited with {code}: {writer.tail()}")
        if kill:
            killer = Driver("tests.readers.writer_process",
                            [*writer_args, "--out", str(kill_out), "--kinds", KILL_KIND, "--prefix", "k_",
                             "--statements", "50"], workdir / "writer-kill.log")
            started.append(killer)
            kill_during(killer, kill_out, statement=2)
            recovery = Driver("tests.readers.writer_process",
                              [*writer_args, "--out", str(recovery_out), "--prefix", "k_", "--recover-kind",
                               KILL_KIND, "--first-index", "100", "--statements", "1"], workdir / "writer-recovery.log")
            started.append(recovery)
            code = recovery.wait(timeout=1800)
            if code != 0:
                problems.append(f"recovery writer exited with {code}: {recovery.tail()}")
        stop.touch()
        reader.wait(timeout=300)
    events: list[Event] = []
    writer_reads: list[Read] = []
    for path in (writer_out, kill_out, recovery_out):
        found, reads, _ = load(path)
        events += found
        writer_reads += reads
    if kill:
        extra, kill_problems = killed_statement(kill_out, recovery_out)
        events += extra
        problems += kill_problems
    _, other_reads, _ = load(reader_out)
    same = tally(events, writer_reads, stale_ok=False)
    other = tally(events, other_reads, stale_ok=True)
    return TwoDrivers(
        Place("readers in the writer driver's session (2 threads)", *same, stale_ok=False),
        Place("reader in another driver (stale = an older complete version, allowed: it reads its cached relation "
              "until it refreshes)", *other, stale_ok=True),
        [e for e in events if e.error], problems)


def kill_during(writer: Driver, out: Path, *, statement: int, fraction: float = 0.5) -> None:
    """SIGKILL the writer's process group ``fraction`` of the mean statement time into its ``statement``-th
    statement (counted from 1), measured from the statements before."""
    deadline = time.monotonic() + START_TIMEOUT + 600
    while time.monotonic() < deadline:
        events, _, other = load(out)
        begun = [r for r in other if r.get("type") == "begin"]
        if len(begun) >= statement:
            done = [e.end - e.start for e in events if e.kind != "setup"] or [2.0]
            delay = fraction * sum(done) / len(done)
            time.sleep(max(0.0, begun[statement - 1]["start"] + delay - time.time()))
            writer.kill()
            return
        if writer.popen.poll() is not None:
            raise RuntimeError(f"the writer to kill exited with {writer.popen.returncode}:\n{writer.tail()}")
        time.sleep(0.05)
    writer.kill()
    raise TimeoutError("the writer to kill never reached its statement")
