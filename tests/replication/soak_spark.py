"""The replication soak on Spark (issue 28): ``python -m tests.replication.soak_spark --seconds N [--seed S]
[--drivers 2]`` (``make soak-replica``; the in-memory one is :mod:`tests.replication.soak`).

Two Hive metastore services on PostgreSQL, started by the project (``ddl-log metastore``): the source's and the
replica's. Source drivers (:mod:`tests.replication.soak_spark_driver`, processes with database homes on the source's
PostgreSQL, the production shape of the cluster soak) run random statements of every kind; each is SIGKILLed (JVM
included) at random instants, preferably inside a statement, and replaced: half the time by a process reopening the
same home (its open recovers it), else by one with a new home (the dead home is then the survivors' to take over:
takeover). The replica applier (``ddl-log --home R replica run --source URL``, a directory home on the replica's
service) follows the source's catalog binlog and is SIGKILLed at random instants and restarted. A reader
(:mod:`tests.replication.soak_spark_reader`) reads the replica throughout. At the end the drivers stop, any dead home
left is taken over (``ddl-log recover --all``), the applier runs until caught up, and the verdict holds when:
``replica check`` finds 0 differences and nothing pending, the replica's binlog applied every committed source event
exactly once in order (its marks equal the source's seqs: no gap, no duplicate), the reader had 0 bad reads, and no
process exited on its own. Prints one JSON line of counts; exit 1 on a violation.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ddl_log.ops import metastore, postgres
from ddl_log.ops.metastore import MetastoreService
from ddl_log.ops.metastore_schema import JAVA_OPTIONS_ENV
from tests.jvm_archive import SERVICE_JVM_OPTIONS, spark_jvm_options
from tests.soak.run import Worker
from tests.soak_cluster.cluster_state import binlog_of, home_rows, home_url

ROOT = Path(__file__).resolve().parents[2]
SIDES = ("source", "replica")
STARTUP_TIMEOUT = 300.0
STOP_TIMEOUT = 180.0
KILLS_GRACE = 180.0
"""Seconds the workload goes on past its time for kills not made yet (a driver or applier still starting)."""


def start_services(root: Path) -> dict[str, MetastoreService]:
    """The source's and the replica's metastore services under ``root``, started at once (each with its own
    PostgreSQL cluster); the caller stops them (:func:`stop_services`)."""
    previous = os.environ.get(JAVA_OPTIONS_ENV)
    os.environ[JAVA_OPTIONS_ENV] = SERVICE_JVM_OPTIONS
    started: dict[str, Any] = {}

    def start(side: str) -> None:
        try:
            started[side] = metastore.start(root / side)
        except Exception as error:  # noqa: BLE001 - raised below, in the caller's thread
            started[side] = error

    try:
        threads = [threading.Thread(target=start, args=(side,)) for side in SIDES]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        if previous is None:
            os.environ.pop(JAVA_OPTIONS_ENV, None)
        else:
            os.environ[JAVA_OPTIONS_ENV] = previous
    for value in started.values():
        if isinstance(value, Exception):
            raise value
    return started


def stop_services(root: Path) -> None:
    for side in SIDES:
        with contextlib.suppress(Exception):
            metastore.stop(root / side)


def homes_url(service: MetastoreService, database: str) -> str:
    """A database of the source's own PostgreSQL cluster for the drivers' homes (no home parameter)."""
    assert service.postgres_root is not None
    server = postgres.status(service.postgres_root)
    assert server is not None
    return postgres.create_database(server, database)


class Process:
    def __init__(self, name: str, worker: Worker) -> None:
        self.name, self.worker, self.started, self.ready = name, worker, time.monotonic(), False
        self.running: str | None = None
        self.exit: int | None = None
        self.statements = self.position = 0  # position: the applier's, the replica's position when it started


class ReplicaSoak:
    def __init__(self, workdir: Path, services: dict[str, MetastoreService], url: str, *, seed: int,
                 seconds: float, drivers: int, source_kills: int, applier_kills: int) -> None:
        self.workdir, self.services, self.url, self.seed = workdir, services, url, seed
        self.rng = random.Random(seed)
        self.seconds, self.drivers = seconds, drivers
        self.source_kills, self.applier_kills = source_kills, applier_kills
        self.replica_home = workdir / "replica"
        self.stop_file, self.reader_stop = workdir / "stop", workdir / "reader-stop"
        self.logs = workdir / "logs"
        self.next_home = 1
        self.sources: list[Process] = []
        self.applier: Process | None = None
        self.reader: Process | None = None
        self.counts: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.samples: dict[str, str | None] = {}
        self.journal: list[dict[str, Any]] = []  # every statement's end, kept in the work directory
        self.failures: list[dict[str, Any]] = []
        self.homes: list[str] = []
        self.workload_seconds = 0.0

    def log(self, text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    def env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "TMPDIR": str(self.workdir / "tmp")}
        env.setdefault("SPARK_SUBMIT_OPTS", spark_jvm_options())
        env.pop("DDL_LOG_CRASH_AT", None)
        return env

    def spawn(self, name: str, args: list[str]) -> Process:
        number = sum(1 for p in self.logs.iterdir() if p.name.startswith(f"{name}.")) if self.logs.exists() else 0
        worker = Worker([sys.executable, "-m", *args], self.env(), ROOT, self.logs / f"{name}.{number}.err")
        return Process(name, worker)

    def replica_cli(self, *args: str) -> list[str]:
        service = self.services["replica"]
        return ["ddl_log", "--home", str(self.replica_home), "--metastore-uri", service.uri, "--warehouse",
                str(service.warehouse), *args]

    # ------------------------------------------------------------------ processes

    def start_source(self, home: str | None = None, setup: bool = False) -> Process:
        if home is None:
            home = f"d{self.next_home}"
            self.next_home += 1
            self.homes.append(home)
        service = self.services["source"]
        process = self.spawn(home, ["tests.replication.soak_spark_driver", "--url", self.url, "--home", home,
                                    "--uri", service.uri, "--warehouse", str(service.warehouse),
                                    "--seed", str(self.seed), "--stop-file", str(self.stop_file), "--incarnation",
                                    str(sum(p.name == home for p in self.sources)), *(["--setup"] if setup else [])])
        self.sources.append(process)
        return process

    def applier_moved(self) -> bool:
        assert self.applier is not None
        return max(applied_marks(self.replica_home), default=0) > self.applier.position

    def start_applier(self) -> None:
        position = max(applied_marks(self.replica_home), default=0)
        self.applier = self.spawn("applier", self.replica_cli("replica", "run", "--source", self.source_url(),
                                                              "--poll", "0.2"))
        self.applier.position = position
        self.counts["applier_starts"] += 1

    def source_url(self) -> str:
        return home_url(self.url, self.homes[0])

    def start_reader(self) -> None:
        service = self.services["replica"]
        self.reader = self.spawn("reader", ["tests.replication.soak_spark_reader", "--uri", service.uri,
                                            "--warehouse", str(service.warehouse), "--scratch",
                                            str(self.workdir / "reader-spark"), "--out",
                                            str(self.workdir / "reads.json"), "--stop-file", str(self.reader_stop)])

    def poll(self, process: Process) -> None:
        while (message := process.worker.next(0)) not in (False, None):
            assert isinstance(message, dict)
            if message["type"] == "ready":
                process.ready = True
            elif message["type"] == "begin":
                process.running = message["sid"]
            elif message["type"] == "end":
                process.running = None
                process.statements += 1
                self.kinds[message["kind"]] += message["outcome"] == "ok"
                self.outcomes["ok" if message["outcome"] == "ok" else "failed"] += 1
                if message["outcome"] != "ok":
                    self.errors[message["outcome"]] += 1
                    self.samples.setdefault(f"{message['kind']} {message['outcome']}", message.get("error"))
                self.counts["statements"] += 1
                self.journal.append({"home": process.name, **message})
            elif message["type"] == "takeovers":
                self.counts["takeovers_at_stop"] += len(message["homes"])
        if process.exit is None and process.worker.proc.poll() is not None:
            process.exit = process.worker.proc.returncode

    def kill(self, process: Process) -> None:
        process.worker.kill()
        process.worker.reap()
        process.exit = -9

    def live_sources(self) -> list[Process]:
        return [p for p in self.sources if p.exit is None]

    # ------------------------------------------------------------------ phases

    def wait_ready(self, processes: list[Process]) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not all(p.ready for p in processes):
            for process in processes:
                self.poll(process)
                if process.exit is not None and not process.ready:
                    raise RuntimeError(f"{process.name} exited with {process.exit}:\n{process.worker.stderr_tail()}")
            if time.monotonic() > deadline:
                raise TimeoutError("not ready: " + ", ".join(p.name for p in processes if not p.ready))
            time.sleep(0.2)

    def schedule(self, kills: int, begin: float) -> list[float]:
        slot = self.seconds / max(kills, 1)
        return [begin + slot * (i + self.rng.uniform(0.2, 0.8)) for i in range(kills)]

    def kill_a_source(self) -> None:
        candidates = [p for p in self.live_sources() if p.statements > 1]
        inside = [p for p in candidates if p.running is not None]
        victim = self.rng.choice(inside or candidates)
        self.kill(victim)
        how = self.rng.choice(["restart", "takeover"])
        self.counts[f"source_kills_{how}"] += 1
        self.counts["source_kills_inside_a_statement"] += victim.running is not None
        self.log(f"KILLED source driver {victim.name} inside {victim.running}; {how}")
        self.start_source(victim.name if how == "restart" else None)

    def kill_the_applier(self) -> None:
        assert self.applier is not None
        self.kill(self.applier)
        self.counts["applier_kills"] += 1
        self.log(f"KILLED the applier at position {max(applied_marks(self.replica_home), default=0)}")
        self.start_applier()

    def workload(self) -> None:
        setup = self.start_source(setup=True)
        self.start_applier()
        self.start_reader()
        self.wait_ready([setup])  # the others only then: one racing in could make sk.w first (setup then failed)
        self.wait_ready([setup, *(self.start_source() for _ in range(self.drivers - 1))])
        begin = time.monotonic()
        self.log(f"workload of {self.seconds:.0f} s begins")
        source_kills = self.schedule(self.source_kills, begin)
        applier_kills = self.schedule(self.applier_kills, begin)
        while time.monotonic() < begin + self.seconds or (
                (source_kills or applier_kills) and time.monotonic() < begin + self.seconds + KILLS_GRACE):
            for process in [*self.sources, self.applier, self.reader]:
                assert process is not None
                self.poll(process)
            for process in self.sources:
                if process.exit is not None and process.exit != -9:
                    self.failures.append({"process": process.name, "exit": process.exit,
                                          "stderr": process.worker.stderr_tail(2000)})
                    process.exit = -9  # noted once; a driver in its place
                    self.start_source(process.name)
            assert self.applier is not None and self.reader is not None
            if self.reader.exit is not None:
                raise RuntimeError(f"the reader exited with {self.reader.exit}:\n{self.reader.worker.stderr_tail()}")
            if self.applier.exit is not None:  # it stopped on its own (typed, before an event): the soak ends here
                break
            busy = any(p.statements > 1 for p in self.live_sources())
            if source_kills and time.monotonic() >= source_kills[0] and busy:
                source_kills.pop(0)  # a driver that ran something, preferably inside its next statement
                self.kill_a_source()
            if applier_kills and time.monotonic() >= applier_kills[0] and self.applier_moved():
                applier_kills.pop(0)  # an applier that applied something, at a random instant after that
                self.kill_the_applier()
            time.sleep(0.1)
        self.workload_seconds = time.monotonic() - begin

    def stop_sources(self) -> None:
        self.stop_file.touch()
        deadline = time.monotonic() + STOP_TIMEOUT
        for process in self.live_sources():
            while process.worker.proc.poll() is None and time.monotonic() < deadline:
                self.poll(process)
                time.sleep(0.2)
            if not process.ready:
                self.kill(process)  # still starting: it ran nothing
                continue
            process.worker.reap()
            self.poll(process)
            if process.exit not in (0, None):
                self.failures.append({"process": process.name, "exit": process.exit,
                                      "stderr": process.worker.stderr_tail(2000)})

    def count_takeovers(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            self.counts["takeovers"] = sum(1 for row in home_rows(connection) if row.get("taken_over_by"))

    def source_seqs(self) -> list[int]:
        return [event["seq"] for event in binlog_of(home_url(self.url, self.homes[0]))]

    def finish_replica(self) -> dict[str, Any]:
        """The background applier goes on until it has applied the source's head (the reader still reading), then
        stops (SIGTERM: between two events); ``replica check`` compares (catching up first, which finds nothing to
        do), then the reader stops."""
        assert self.applier is not None and self.reader is not None
        head = max(self.source_seqs(), default=0)
        position, deadline = -1, 0.0
        while (now := max(applied_marks(self.replica_home), default=0)) < head:
            if now > position:  # progress: the applier has STOP_TIMEOUT for each next event
                position, deadline = now, time.monotonic() + STOP_TIMEOUT
            self.poll(self.applier)
            if self.applier.exit is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the applier stopped at {now} of {head}:\n{self.applier.worker.stderr_tail()}")
            time.sleep(0.5)
        self.log(f"the replica caught up with source event {head} ({self.counts['statements']} statements)")
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.applier.worker.proc.pid, signal.SIGTERM)
        self.applier.worker.reap()
        check = cli(*self.replica_cli("replica", "check", "--json", "--source-metastore",
                                      self.services["source"].uri))
        self.reader_stop.touch()
        self.reader.worker.reap()
        if check.returncode not in (0, 1):
            raise RuntimeError(f"replica check exited with {check.returncode}:\n{check.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(check.stdout.strip().splitlines()[-1])
        self.log(f"replica check: {len(result['differences'])} differences, {len(result['pending'])} pending")
        return result

    def run(self) -> dict[str, Any]:
        began = time.monotonic()
        for directory in (self.logs, self.workdir / "tmp"):
            directory.mkdir(parents=True, exist_ok=True)
        try:
            self.workload()
            self.stop_sources()
            self.log(f"sources stopped after {self.counts['statements']} statements")
            self.count_takeovers()
            try:
                check = self.finish_replica()
            except RuntimeError as error:  # the applier stopped (typed, before an event): a violation, counted
                self.failures.append({"process": "applier", "stopped": str(error)[-1500:]})
                check = {"position": -1, "differences": [], "pending": [], "compared": 0, "seconds": 0.0}
                self.reader_stop.touch()
                assert self.reader is not None
                self.reader.worker.proc.wait(timeout=STOP_TIMEOUT)
        finally:
            for process in [*self.sources, self.applier, self.reader]:
                if process is not None and process.worker.proc.poll() is None:
                    self.kill(process)
        return self.verdict(check, time.monotonic() - began)

    def verdict(self, check: dict[str, Any], seconds: float) -> dict[str, Any]:
        events = binlog_of(home_url(self.url, self.homes[0]))
        source_seqs = [event["seq"] for event in events]
        for name, rows in (("statements.jsonl", self.journal), ("source-binlog.jsonl", events)):
            (self.workdir / name).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        applied = applied_marks(self.replica_home)
        reads = json.loads((self.workdir / "reads.json").read_text(encoding="utf-8"))
        problems: list[Any] = []
        (self.workdir / "failures.json").write_text(json.dumps(self.samples, indent=1), encoding="utf-8")
        if applied != source_seqs:
            twice = sorted(seq for seq, n in Counter(applied).items() if n > 1)
            problems.append({"exactly once": f"applied {len(applied)} marks for {len(source_seqs)} source events",
                             "twice": twice[:20], "missing": sorted(set(source_seqs) - set(applied))[:20]})
        if check["position"] not in (-1, max(source_seqs, default=0)):
            problems.append({"check position": check["position"], "source head": max(source_seqs, default=0)})
        if check["differences"] or check["pending"]:
            problems.append({"check": check["differences"][:20], "pending": check["pending"][:20]})
        if reads["bad"]:
            problems.append({"bad reads": reads["bad"][:20]})
        problems += [{"exited": failure} for failure in self.failures]
        return {"seed": self.seed, "seconds": self.seconds, "drivers": self.drivers,
                "source_statements": self.counts["statements"], "source_ok": self.outcomes["ok"],
                "source_failed": self.outcomes["failed"], "ok_by_kind": dict(sorted(self.kinds.items())),
                "failed_by_error": dict(self.errors.most_common()),
                "source_kills_restart": self.counts["source_kills_restart"],
                "source_kills_takeover": self.counts["source_kills_takeover"],
                "source_kills_inside_a_statement": self.counts["source_kills_inside_a_statement"],
                "takeovers_by_live_drivers": self.counts["takeovers"],
                "takeovers_at_stop": self.counts["takeovers_at_stop"], "applier_kills": self.counts["applier_kills"],
                "applier_starts": self.counts["applier_starts"], "workload_seconds": round(self.workload_seconds, 1),
                "source_events": len(source_seqs),
                "applied": len(applied), "duplicates": len(applied) - len(set(applied)),
                "reads": reads["reads"], "bad_reads": len(reads["bad"]), "check_compared": check["compared"],
                "check_seconds": round(check["seconds"], 1),
                "check_differences": len(check["differences"]), "check_pending": len(check["pending"]),
                "violations": len(problems), "problems": problems, "total_seconds": round(seconds, 1)}


def applied_marks(home: Path) -> list[int]:
    """The source seqs the replica's binlog records as applied, in its order (files only: no Spark, no lock)."""
    from chains.binlog import read_events
    from ddl_log.replication.origin import mark_of

    marks = [mark_of(event.statement) for event in read_events(str(home))] if home.exists() else []
    return [mark.seq for mark in marks if mark is not None]


def cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "DDL_LOG_CRASH_AT"} | {"PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=timeout, check=False)


def soak(services: dict[str, MetastoreService], workdir: Path, *, seconds: float, seed: int, drivers: int = 2,
         source_kills: int | None = None, applier_kills: int | None = None, database: str = "soak_homes") -> dict[
        str, Any]:
    """One soak on running services (the kills default to one of each kind per 40 s of workload)."""
    workdir.mkdir(parents=True, exist_ok=True)
    workdir.chmod(0o755)
    each = max(1, int(seconds // 40))
    runner = ReplicaSoak(workdir, services, homes_url(services["source"], database), seed=seed, seconds=seconds,
                         drivers=drivers, source_kills=each if source_kills is None else source_kills,
                         applier_kills=each if applier_kills is None else applier_kills)
    return runner.run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.replication.soak_spark", description=__doc__)
    parser.add_argument("--seconds", type=float, default=240.0, help="workload time once the drivers are ready")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--drivers", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the work directory even when all is well")
    args = parser.parse_args(argv)
    seed = random.randrange(1 << 30) if args.seed is None else args.seed
    root = Path(tempfile.mkdtemp(prefix="ddl-soak-replica-"))
    root.chmod(0o755)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally blocks stop every process
    try:
        report = soak(start_services(root / "services"), root / "work", seconds=args.seconds, seed=seed,
                      drivers=args.drivers)
    finally:
        stop_services(root / "services")
    print(json.dumps(report), flush=True)
    if not report["violations"] and not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"work directory kept: {root}", file=sys.stderr)
    return 1 if report["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
