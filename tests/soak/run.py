"""``make soak``: ``python -m tests.soak.run --iterations N``.

Each iteration starts one worker (:mod:`tests.soak.workload`) in its own session, on the same home as the last one:
it recovers, checks the home against the model and reports the check, then runs a random workload of atomic
statements. Once it says it is ready the parent waits a random time and SIGKILLs its whole process group (Python
and the Spark JVM), so the kill lands anywhere: inside Spark jobs, metastore calls, log writes. Some iterations also
arm ``DDL_LOG_CRASH_AT`` at a random crash point (it may fire in the workload, or in the next recovery). A last
check-only worker checks the last kill. The summary (iterations, kills, outcomes per statement kind, violations with
their detail) is printed and written to ``summary.json`` in the work directory; the exit status is 1 on any
violation or worker failure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CRASH_ENV = "DDL_LOG_CRASH_AT"
UNREACHED_POINT_PREFIXES = ("binlog.before_rotate", "binlog.rotate_")
"""Crash points the soak never reaches (the binlog rotates at 1 MiB; a soak writes a few hundred events)."""
STARTUP_TIMEOUT = 900.0
"""Seconds a worker may take to start Spark, recover and check."""
KILL_GRACE = 120.0
"""Seconds a killed process group (or a worker that stopped on its own) may take to be gone."""
DEFAULT_STATEMENT_SECS = 5.0
HANG_SECS = 900.0
"""Seconds one statement may run before the soak calls it hung."""
CLASSES = ("ok", "failed", "error", "committed", "finished_by_recovery", "rolled_back", "no_trace")


def crash_points() -> list[str]:
    from ddl_log.frontends.cli import load_crash_points
    from storage import crashpoints

    load_crash_points()
    return [name for name in crashpoints.names() if not name.startswith(UNREACHED_POINT_PREFIXES)]


def group_alive(pgid: int) -> list[int]:
    """Pids still in process group ``pgid`` (zombies do not count)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().decode(errors="replace").rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


class Worker:
    """One worker process in its own session; its ``SOAK {...}`` lines arrive on a queue."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path, stderr: Path) -> None:
        self.stderr_path = stderr
        with open(stderr, "w", encoding="utf-8") as err:
            self.proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=err, text=True,
                                         start_new_session=True)
        self.pgid = self.proc.pid
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("SOAK "):
                with contextlib.suppress(json.JSONDecodeError):
                    self.messages.put(json.loads(line[5:]))
        self.messages.put(None)

    def next(self, timeout: float) -> dict[str, Any] | bool | None:
        """A message, None at end of output, False on timeout."""
        try:
            return self.messages.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return False

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, signal.SIGKILL)

    def reap(self) -> int:
        """Wait for the worker and every process of its group to be gone; kill them if they linger."""
        try:
            code = self.proc.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.wait(timeout=KILL_GRACE)
        deadline = time.monotonic() + KILL_GRACE
        while group_alive(self.pgid):
            if time.monotonic() > deadline:
                self.kill()
                deadline = time.monotonic() + KILL_GRACE
            time.sleep(0.1)
        return code

    def stderr_tail(self, chars: int = 4000) -> str:
        try:
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""


class Soak:
    def __init__(self, workdir: Path, *, seed: int, kill_within: int, crash_fraction: float, statements: int,
                 out: Any = None, readers: int = 0) -> None:
        self.readers = readers
        self.workdir = workdir
        self.seed = seed
        self.rng = random.Random(seed)
        self.kill_within = kill_within
        self.live_secs: dict[str, list[float]] = {}
        self.current: Worker | None = None
        self.crash_fraction = crash_fraction
        self.statements = statements
        self.out = out or sys.stdout
        self.points = crash_points() if crash_fraction > 0 else []
        self.summary: dict[str, Any] = {
            "seed": seed, "workdir": str(workdir), "iterations": 0, "workers": 0, "kills": 0,
            "kills_by_parent": 0, "kills_by_crash_point": 0, "crash_points_armed": 0, "completed_without_kill": 0,
            "kills_inside_statements": 0, "kills_between_statements": 0, "deaths_before_check": 0, "resets": 0,
            "checks": 0, "violations": [], "worker_failures": [], "per_kind": defaultdict(Counter),
            "secs_per_kind": defaultdict(list), "recovery": Counter(), "disabled": {}, "crash_point_kills": [],
            "open_secs": [], "check_secs": [], "iteration_secs": [], "events": 0, "tables": [],
            "readers": readers, "reads_per_kind": defaultdict(Counter), "reader_violations": [],
            "reader_violating": 0,
        }

    def log(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def worker(self, iteration: int, *, check_only: bool = False, crash_at: str | None = None) -> Worker:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        env.pop(CRASH_ENV, None)
        if crash_at:
            env[CRASH_ENV] = crash_at
        cmd = [sys.executable, "-m", "tests.soak.workload", "--dir", str(self.workdir), "--iteration", str(iteration),
               "--seed", str(self.seed), "--statements", str(self.statements)]
        if check_only:
            cmd.append("--check-only")
        if self.readers:
            cmd += ["--readers", str(self.readers)]
        self.summary["workers"] += 1
        return Worker(cmd, env, self.workdir, self.workdir / f"worker-{iteration:04d}.err")

    def run(self, iterations: int) -> dict[str, Any]:
        started = time.monotonic()
        self.summary["planned"] = iterations
        for iteration in range(1, iterations + 1):
            self.iteration(iteration, iterations)
        self.iteration(iterations + 1, iterations, check_only=True)
        self.summary["total_secs"] = round(time.monotonic() - started, 1)
        return self.summary

    def record_check(self, iteration: int, check: dict[str, Any]) -> str:
        summary = self.summary
        summary["checks"] += 1
        summary["open_secs"].append(check["secs"]["open"])
        summary["check_secs"].append(check["secs"]["check"])
        summary["events"] = check["events"]
        summary["tables"] = check["tables"]
        for statement in check["statements"]:
            summary["per_kind"][statement["kind"]][statement["class"]] += 1
            if statement["secs"] is not None:
                summary["secs_per_kind"][statement["kind"]].append(statement["secs"])
        for outcome in check["recovery"]:
            summary["recovery"][outcome["outcome"]] += 1
        for violation in check["violations"]:
            summary["violations"].append({"iteration": iteration, "gen": check["gen"], "home": check["home"],
                                          "journal": check["journal"], "interrupted": check["interrupted"],
                                          **violation})
        interrupted = check["interrupted"]
        if interrupted is not None:
            summary["kills_inside_statements"] += 1
            where = (f"inside {interrupted['sid']} {interrupted['kind']} -> {interrupted['class']}"
                     + (f" (recovery: {', '.join(interrupted['recovery'])})" if interrupted["recovery"] else ""))
        elif check["statements"]:
            summary["kills_between_statements"] += 1
            where = "between statements"
        else:
            where = "no workload before"
        verdict = "ok" if not check["violations"] else f"{len(check['violations'])} VIOLATIONS"
        return (f"check {verdict}: {len(check['tables'])} tables, {len(check['views'])} views, {check['events']} "
                f"binlog events, {len(check['statements'])} statements checked, last {where}")

    def estimate(self, kind: str) -> float:
        """Mean seconds a statement of ``kind`` took so far in this run (a guess before the first one ends)."""
        seen = self.summary["secs_per_kind"].get(kind) or self.live_secs.get(kind)
        return sum(seen) / len(seen) if seen else DEFAULT_STATEMENT_SECS

    def iteration(self, iteration: int, total: int, *, check_only: bool = False) -> None:
        try:
            self._iteration(iteration, total, check_only=check_only)
        except BaseException:
            if self.current is not None:  # interrupted (Ctrl-C): take the worker's process group down with us
                self.current.kill()
            raise
        finally:
            self.current = None

    def _iteration(self, iteration: int, total: int, *, check_only: bool) -> None:
        """One worker. Once it is ready the parent picks one of its next ``kill_within`` statements and an instant
        up to 1.25 times that kind's mean duration after the statement begins, and SIGKILLs the process group
        there: usually inside the statement (any step: Spark job, metastore call, log write), sometimes just
        after it. Iterations that arm a crash point wait twice as many statements for it to fire first."""
        summary = self.summary
        crash_at = None
        if not check_only and self.points and self.rng.random() < self.crash_fraction:
            crash_at = f"{self.rng.choice(self.points)}:{self.rng.randint(1, 3)}"
            summary["crash_points_armed"] += 1
        target = self.rng.randrange(self.kill_within * (2 if crash_at else 1))
        fraction = self.rng.uniform(0.0, 1.25)
        began = time.monotonic()
        worker = self.worker(iteration, check_only=check_only, crash_at=crash_at)
        self.current = worker
        notes: list[str] = []
        ready_at: float | None = None
        kill_at: float | None = None
        killed_at: float | None = None
        running: dict[str, Any] | None = None
        last_activity = began
        saw_check = saw_end = reset = False
        while True:
            now = time.monotonic()
            if killed_at is not None:
                timeout = killed_at + KILL_GRACE - now
                if timeout <= 0:
                    break  # killed, but the output never closed: reap() deals with what is left
            elif kill_at is not None and now >= kill_at:
                worker.kill()
                killed_at = now
                where = (f"{now - running['at']:.1f}s into statement {running['n']} ({running['kind']})"
                         if running else "between statements")
                notes.append(f"killed {where}")
                continue
            elif ready_at is None and now > began + STARTUP_TIMEOUT:
                worker.kill()
                killed_at = now
                summary["worker_failures"].append({"iteration": iteration, "what": "no check within timeout",
                                                   "stderr": worker.stderr_tail()})
                notes.append("HUNG before ready: killed")
                continue
            elif ready_at is not None and kill_at is None and now > last_activity + HANG_SECS:
                worker.kill()
                killed_at = now
                summary["worker_failures"].append({"iteration": iteration, "what": "a statement hung",
                                                   "statement": running, "stderr": worker.stderr_tail()})
                notes.append(f"HUNG in {running}: killed")
                continue
            timeout = min(5.0, kill_at - now) if kill_at is not None and killed_at is None else 5.0
            message = worker.next(timeout)
            if message is False:
                continue
            if message is None:
                break
            kind = message["type"]
            last_activity = time.monotonic()
            if kind == "check":
                saw_check = True
                notes.append(self.record_check(iteration, message))
            elif kind == "ready":
                ready_at = time.monotonic()
                for cap in sorted(cap for cap, ok in message["caps"].items() if not ok):
                    summary["disabled"][cap] = summary["disabled"].get(cap, 0) + 1
            elif kind == "begin":
                running = {"n": message["n"], "kind": message["kind"], "sid": message["sid"], "at": time.monotonic()}
                if message["n"] == target and kill_at is None:
                    kill_at = running["at"] + fraction * self.estimate(message["kind"])
            elif kind == "end":
                self.live_secs.setdefault(message["kind"], []).append(message["secs"])
                running = None
            elif kind == "reset":
                summary["resets"] += 1
                reset = saw_end = True
                notes.append(f"violations: going on in a fresh home (generation {message['gen']})")
            elif kind == "done":
                saw_end = True
            elif kind == "readers":
                for read_kind, counts in message["counts"].items():
                    summary["reads_per_kind"][read_kind].update(counts)
                summary["reader_violating"] += message["violating"]
                room = 20 - len(summary["reader_violations"])
                summary["reader_violations"] += [{"iteration": iteration, **e} for e in message["examples"][:room]]
        killed_by_us = killed_at is not None
        code = worker.reap()
        if not check_only:
            summary["iterations"] += 1
        if killed_by_us and code == -signal.SIGKILL:
            summary["kills"] += 1
            summary["kills_by_parent"] += 1
        elif code == -signal.SIGKILL:
            summary["kills"] += 1
            summary["kills_by_crash_point"] += 1
            phase = "workload" if ready_at is not None else "recovery/check"
            summary["crash_point_kills"].append({"iteration": iteration, "point": crash_at, "phase": phase})
            notes.append(f"crash point {crash_at} fired during {phase}")
            if not saw_check:
                summary["deaths_before_check"] += 1
        elif code == 0 and saw_end and not check_only:
            if ready_at is not None and not killed_by_us and not reset:
                summary["completed_without_kill"] += 1
                notes.append("workload ran to its end before the kill")
        elif code != 0 or not saw_check:
            summary["worker_failures"].append({"iteration": iteration, "what": f"worker exited with {code}",
                                               "crash_at": crash_at, "stderr": worker.stderr_tail()})
            notes.append(f"WORKER FAILED (exit {code}), see {worker.stderr_path}")
        secs = time.monotonic() - began
        summary["iteration_secs"].append(round(secs, 1))
        label = "final" if check_only else f"{iteration:3d}/{total}"
        armed = f" [armed {crash_at}]" if crash_at else ""
        self.log(f"[{label}]{armed} " + " | ".join(notes) + f" | {secs:.0f}s")


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "-"


def render(summary: dict[str, Any]) -> str:
    lines = [
        "",
        "=" * 100,
        f"soak summary  (seed {summary['seed']}, work directory {summary['workdir']})",
        f"iterations: {summary['iterations']}   workers: {summary['workers']}   checks: {summary['checks']}   "
        f"total: {summary.get('total_secs', 0):.0f}s   per worker: mean {_mean(summary['iteration_secs'])}s, "
        f"open+recover {_mean(summary['open_secs'])}s, check {_mean(summary['check_secs'])}s",
        f"kills: {summary['kills']} (by the parent at a random instant: {summary['kills_by_parent']}, by "
        f"DDL_LOG_CRASH_AT: {summary['kills_by_crash_point']} of {summary['crash_points_armed']} armed)   "
        f"inside a statement: {summary['kills_inside_statements']}   between statements: "
        f"{summary['kills_between_statements']}   before the check: {summary['deaths_before_check']}   "
        f"workloads not killed: {summary['completed_without_kill']}",
        f"fresh homes after violations: {summary['resets']}   binlog events in the last home: {summary['events']}   "
        f"tables at the end: {', '.join(summary['tables']) or '-'}",
        "recovery outcomes: " + (", ".join(f"{k} {v}" for k, v in sorted(summary["recovery"].items())) or "none"),
    ]
    if summary["disabled"]:
        lines.append("statement kinds not run (the catalog engine lacks the methods they need): "
                     + ", ".join(f"{cap} (in {n} workers)" for cap, n in sorted(summary["disabled"].items())))
    lines.append("")
    lines.append("statement outcomes per kind (ok / failed = returned; the rest = interrupted by a kill, decided by "
                 "recovery and the binlog):")
    header = f"  {'kind':24}" + "".join(f"{c:>22}" for c in CLASSES) + f"{'mean s':>9}"
    lines.append(header)
    for kind in sorted(summary["per_kind"]):
        counts = summary["per_kind"][kind]
        lines.append(f"  {kind:24}" + "".join(f"{counts.get(c, 0):>22}" for c in CLASSES)
                     + f"{_mean(summary['secs_per_kind'][kind]):>9}")
    lines.append("")
    violations = summary["violations"]
    by_kind = Counter(v["kind"] for v in violations)
    lines.append(f"violations: {len(violations)}" + (f" ({', '.join(f'{k} {n}' for k, n in by_kind.items())})"
                                                     if violations else ""))
    for violation in violations:
        found_by = ("the final check" if violation["iteration"] > summary.get("planned", violation["iteration"])
                    else f"the check of worker {violation['iteration']}")
        lines.append(f"  - [{violation['kind']}] {violation['what']}: {violation['object']}  (found by {found_by}, "
                     f"after the kill of worker {violation['iteration'] - 1})")
        lines.append("      " + json.dumps(violation["detail"], default=str)[:3000])
        if violation["interrupted"]:
            lines.append("      interrupted statement: " + json.dumps(violation["interrupted"], default=str)[:1500])
        lines.append(f"      home {violation['home']}, journal {violation['journal']}")
    if summary.get("readers"):
        lines.append(f"readers ({summary['readers']} threads in the worker's session): reads / bad per statement "
                     "kind they overlapped: " + ", ".join(f"{k} {c.get('reads', 0)}/{c.get('bad', 0)}" for k, c in
                                                          sorted(summary["reads_per_kind"].items())))
        lines.append(f"reader violations (bad reads outside multi-table renames): {summary['reader_violating']}")
        for example in summary["reader_violations"][:10]:
            lines.append("  - " + json.dumps(example, default=str)[:600])
    lines.append(f"worker failures: {len(summary['worker_failures'])}")
    for failure in summary["worker_failures"]:
        lines.append(f"  - iteration {failure['iteration']}: {failure['what']}")
        lines.append("      " + failure.get("stderr", "")[-2000:].replace("\n", "\n      "))
    lines.append("=" * 100)
    return "\n".join(lines)


def failed(summary: dict[str, Any]) -> bool:
    return bool(summary["violations"] or summary["worker_failures"] or summary.get("reader_violating"))


def run_soak(iterations: int, *, workdir: Path | None = None, seed: int | None = None, kill_within: int = 6,
             crash_fraction: float = 0.25, statements: int = 40, keep: bool = False,
             out: Any = None, readers: int = 0) -> dict[str, Any]:
    """Run the soak; returns the summary. The work directory is removed afterwards unless it was given, ``keep``
    is set, or something failed (it then holds every home, journal and worker log)."""
    seed = random.randrange(1 << 32) if seed is None else seed
    own = workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="ddl-soak-")) if workdir is None else workdir
    workdir.mkdir(parents=True, exist_ok=True)
    soak = Soak(workdir.resolve(), seed=seed, kill_within=kill_within, crash_fraction=crash_fraction,
                statements=statements, out=out, readers=readers)
    soak.log(f"soak: {iterations} iterations, seed {seed}, work directory {workdir}")
    summary = soak.run(iterations)
    (workdir / "summary.json").write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8")
    soak.log(render(summary))
    if own and not keep and not failed(summary):
        shutil.rmtree(workdir, ignore_errors=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=None, help="seed of the workload and the kill timing")
    parser.add_argument("--dir", type=Path, default=None, help="work directory (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory even when all is well")
    parser.add_argument("--kill-within", type=int, default=6,
                        help="the kill lands in one of the first N statements of each worker (2N with a crash point)")
    parser.add_argument("--crash-fraction", type=float, default=0.25,
                        help="share of iterations that also arm DDL_LOG_CRASH_AT at a random point")
    parser.add_argument("--statements", type=int, default=40, help="most statements one worker runs")
    parser.add_argument("--readers", type=int, default=2,
                        help="reader threads in each worker's session, every read checked against the model (0: off)")
    args = parser.parse_args(argv)
    summary = run_soak(args.iterations, workdir=args.dir, seed=args.seed, kill_within=args.kill_within,
                       crash_fraction=args.crash_fraction, statements=args.statements,
                       keep=args.keep, readers=args.readers)
    return 1 if failed(summary) else 0


if __name__ == "__main__":
    sys.exit(main())
