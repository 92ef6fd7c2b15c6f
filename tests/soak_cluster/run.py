"""``make soak-cluster``: ``python -m tests.soak_cluster.run --seconds N --seed S --drivers 3 [--json]``.

Starts a local PostgreSQL cluster with a PostgreSQL-backed metastore service on it (ddl_log.ops.metastore) and
a ``ddl_homes`` database for the drivers' DDL logs, a reader process and ``--drivers`` driver processes
(:mod:`tests.soak_cluster.driver`) on the same few tables. Once every driver is ready the workload runs for
``--seconds``; meanwhile the killer SIGKILLs a random driver's process group (its Spark JVM included) at random
instants, ``--kills`` times, and starts a new driver with a new home id in its place (the dead home is never reopened
by its owner: a survivor's takeover must recover it). Then the drivers finish their statements and stop, the reader
stops, the final step (:mod:`tests.soak_cluster.final`) recovers what is left and observes the catalog, and
:mod:`tests.soak_cluster.verdict` checks everything. The summary is printed (``--json``: as JSON) and written to
``summary.json`` in the work directory; the exit status is 1 on any violation.

``--spark-master spark://HOST:PORT`` (``make soak-cluster SPARK_MASTER=...``): the drivers, the reader and the final
step run their jobs on that cluster manager (``DDL_LOG_SPARK_MASTER``), each application with 1 core and a small
executor (:data:`APP_ON_CLUSTER`), so that executors in JVMs of their own write the data; a killed driver's executors
end with it. Give the cluster a core per application (drivers + reader + final: ``ddl-log cluster start --workers 2
--cores 3``); cores are slots, not CPUs.

``--disjoint``: each driver has tables of its own (named after its home), so that the mechanics can be proved on a
build without cross-driver locks or takeover.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ddl_log.ops import metastore, postgres
from ddl_log.ops.metastore_schema import JAVA_OPTIONS_ENV
from tests.jvm_archive import SERVICE_JVM_OPTIONS, spark_jvm_options
from tests.readers.harness import records
from tests.soak.run import Worker
from tests.soak_cluster import cluster_state, verdict
from tests.soak_cluster.final import CHECKER_HOME

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 420.0
"""Seconds a driver may take to start Spark and open its home on a busy machine."""
STOP_TIMEOUT = 300.0
"""Seconds a driver may take to end its statement after the stop file appears."""
FINAL_TIMEOUT = 900.0
SHARED_POOL = ("t0", "t1", "t2", "t3")
OWN_TABLES = 3
HOMES_DATABASE = "ddl_homes"
APP_ON_CLUSTER = {"spark.cores.max": "1", "spark.executor.cores": "1", "spark.executor.memory": "512m"}
"""Each application's share of a standalone cluster: one core, one small executor (a cluster of this machine)."""


class Process:
    """A driver (or the reader) and what the parent knows of it."""

    def __init__(self, home: str, worker: Worker, pool: list[str], started: float) -> None:
        self.home = home
        self.worker = worker
        self.pool = pool
        self.started = started
        self.ready_at: float | None = None
        self.running: str | None = None
        self.statements = 0
        self.killed_at: float | None = None
        self.exit: int | None = None
        self.done = False


class ClusterSoak:
    def __init__(self, workdir: Path, *, seed: int, drivers: int, seconds: float, kills: int, disjoint: bool,
                 lease: float, out: Any = None, spark_master: str | None = None) -> None:
        self.workdir = workdir
        self.spark_master = spark_master
        self.seed = seed
        self.rng = random.Random(seed)
        self.drivers = drivers
        self.seconds = seconds
        self.kills = kills
        self.disjoint = disjoint
        self.lease = lease
        self.out = out or sys.stdout
        self.stop_file = workdir / "stop"
        self.pool_file = workdir / "pool.json"
        self.journals = workdir / "journals"
        self.logs = workdir / "logs"
        self.processes: list[Process] = []
        self.reader: Process | None = None
        self.next_home = 1
        self.kill_log: list[dict[str, Any]] = []
        self.failures: list[dict[str, Any]] = []
        self.fenced: list[str] = []
        self.service: metastore.MetastoreService | None = None
        self.url = ""

    def log(self, text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=self.out, flush=True)

    # ------------------------------------------------------------------ processes

    def env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "TMPDIR": str(self.workdir / "tmp")}
        env.setdefault("SPARK_SUBMIT_OPTS", spark_jvm_options())  # short-lived JVMs: start sooner, as in the tests
        env.pop("DDL_LOG_CRASH_AT", None)
        if self.spark_master is not None:
            submit = " ".join(f"--conf {key}={value}" for key, value in APP_ON_CLUSTER.items())
            env.update(DDL_LOG_SPARK_MASTER=self.spark_master, PYSPARK_SUBMIT_ARGS=f"{submit} pyspark-shell")
        return env

    def spawn(self, module: str, name: str, args: list[str]) -> Worker:
        return Worker([sys.executable, "-m", module, *args], self.env(), ROOT, self.logs / f"{name}.err")

    def start_driver(self) -> Process:
        assert self.service is not None
        home = f"d{self.next_home}"
        self.next_home += 1
        pool = [f"{home}_t{i}" for i in range(OWN_TABLES)] if self.disjoint else list(SHARED_POOL)
        worker = self.spawn("tests.soak_cluster.driver", home, [
            "--url", self.url, "--home", home, "--uri", self.service.uri, "--warehouse", str(self.service.warehouse),
            "--journal", str(self.journals / f"{home}.jsonl"), "--pool", ",".join(pool), "--seed", str(self.seed),
            "--stop-file", str(self.stop_file), "--lease", str(self.lease)])
        process = Process(home, worker, pool, time.time())
        self.processes.append(process)
        self.write_pool()
        self.log(f"driver {home} started (pid {worker.pgid}) on {', '.join(pool)}")
        return process

    def write_pool(self) -> None:
        names = sorted({name for process in self.processes for name in process.pool})
        tmp = self.pool_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(names), encoding="utf-8")
        os.replace(tmp, self.pool_file)

    def start_reader(self) -> None:
        assert self.service is not None
        worker = self.spawn("tests.soak_cluster.reader", "reader", [
            "--uri", self.service.uri, "--warehouse", str(self.service.warehouse),
            "--scratch", str(self.workdir / "reader-spark"), "--pool-file", str(self.pool_file),
            "--out", str(self.workdir / "reads.jsonl"), "--stop-file", str(self.stop_file), "--seed", str(self.seed)])
        self.reader = Process("reader", worker, [], time.time())

    def poll(self, process: Process) -> None:
        """Take in the process's messages; note its exit."""
        while True:
            message = process.worker.next(0)
            if message is False:
                break
            if message is None:
                process.done = True
                break
            assert isinstance(message, dict)
            kind = message["type"]
            if kind == "ready":
                process.ready_at = time.time()
                self.log(f"{process.home} ready after {process.ready_at - process.started:.0f} s"
                         + (f" (options {message.get('options')})" if message.get("options") else ""))
            elif kind == "begin":
                process.running = message["sid"]
            elif kind == "end":
                process.running = None
                process.statements += 1
            elif kind == "fenced":
                self.fenced.append(process.home)
                self.log(f"{process.home} FENCED: {message.get('error')}")
        if process.exit is None and process.worker.proc.poll() is not None:
            process.exit = process.worker.proc.returncode

    def live_drivers(self) -> list[Process]:
        return [p for p in self.processes if p.killed_at is None and p.exit is None]

    def kill(self, process: Process) -> None:
        process.killed_at = time.time()
        running = process.running
        process.worker.kill()
        process.worker.reap()
        process.exit = process.worker.proc.returncode
        self.kill_log.append({"home": process.home, "at": process.killed_at, "inside": running,
                              "statements_before": process.statements})
        self.log(f"KILLED {process.home} (process group {process.worker.pgid}) "
                 + (f"inside {running}" if running else "between statements"))

    def wait_ready(self, processes: list[Process]) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while any(p.ready_at is None for p in processes):
            for process in processes:
                self.poll(process)
                if process.ready_at is None and process.exit is not None:
                    raise RuntimeError(f"{process.home} exited with {process.exit} before it was ready:\n"
                                       + process.worker.stderr_tail())
            if time.monotonic() > deadline:
                raise TimeoutError("drivers not ready in time: "
                                   + ", ".join(p.home for p in processes if p.ready_at is None))
            time.sleep(0.2)

    # ------------------------------------------------------------------ phases

    def start_servers(self) -> None:
        previous = os.environ.get(JAVA_OPTIONS_ENV)
        os.environ[JAVA_OPTIONS_ENV] = SERVICE_JVM_OPTIONS
        try:
            began = time.monotonic()
            self.service = metastore.start(self.workdir / "service")
        finally:
            if previous is None:
                os.environ.pop(JAVA_OPTIONS_ENV, None)
            else:
                os.environ[JAVA_OPTIONS_ENV] = previous
        assert self.service.postgres_root is not None
        server = postgres.status(self.service.postgres_root)
        assert server is not None
        self.url = postgres.create_database(server, HOMES_DATABASE)
        self.log(f"metastore service {self.service.uri} on PostgreSQL port {server.port} up in "
                 f"{time.monotonic() - began:.0f} s; homes in {self.url}")

    def kill_schedule(self, begin: float) -> list[float]:
        """One kill at a random instant in each of ``kills`` equal slots of the workload."""
        if self.kills <= 0:
            return []
        slot = self.seconds / self.kills
        return [begin + slot * (i + self.rng.uniform(0.15, 0.85)) for i in range(self.kills)]

    def workload(self) -> None:
        initial = [self.start_driver() for _ in range(self.drivers)]
        self.start_reader()
        self.wait_ready(initial)
        begin = time.time()
        end = begin + self.seconds
        schedule = self.kill_schedule(begin)
        self.log(f"workload: {self.seconds:.0f} s, kills at +" + ", +".join(f"{t - begin:.0f}" for t in schedule))
        while time.time() < end:
            for process in [*self.processes, *( [self.reader] if self.reader else [])]:
                self.poll(process)
            for process in self.processes:
                if process.exit is not None and process.killed_at is None and not getattr(process, "noted", False):
                    process.noted = True  # type: ignore[attr-defined]
                    if process.home not in self.fenced:
                        self.failures.append({"home": process.home, "exit": process.exit,
                                              "stderr": process.worker.stderr_tail()})
                        self.log(f"{process.home} EXITED with {process.exit}")
                    self.start_driver()
            if schedule and time.time() >= schedule[0]:
                candidates = [p for p in self.live_drivers() if p.ready_at is not None]
                inside = [p for p in candidates if p.running is not None]
                candidates = inside or candidates  # a kill inside a statement leaves something to take over
                if candidates:
                    schedule.pop(0)
                    self.kill(self.rng.choice(candidates))
                    self.start_driver()
            if self.reader is not None and self.reader.exit is not None:
                raise RuntimeError(f"the reader exited with {self.reader.exit}:\n{self.reader.worker.stderr_tail()}")
            time.sleep(0.1)
        if schedule:
            self.log(f"{len(schedule)} kills not made (no ready driver at their instants)")

    def stop_all(self) -> None:
        """The stop file ends every driver after its statement and the reader after its read; a driver still
        starting Spark has run nothing and is killed at once (its home is recovered with the dead ones)."""
        self.stop_file.touch()
        for process in self.live_drivers():
            self.poll(process)
            if process.ready_at is None and process.exit is None:
                process.killed_at = time.time()
                process.worker.kill()
                process.worker.reap()
                self.log(f"{process.home} was still starting: killed (not counted as a kill)")
        deadline = time.monotonic() + STOP_TIMEOUT
        for process in [*self.processes, *([self.reader] if self.reader else [])]:
            if process.killed_at is not None:
                continue
            while process.worker.proc.poll() is None and time.monotonic() < deadline:
                self.poll(process)
                time.sleep(0.2)
            if process.worker.proc.poll() is None:
                self.failures.append({"home": process.home, "exit": None, "what": "did not stop in time",
                                      "stderr": process.worker.stderr_tail()})
                process.worker.kill()
            process.worker.reap()
            self.poll(process)
            process.exit = process.worker.proc.returncode
            if process.exit not in (0, None) and process.home not in self.fenced and not any(
                    f["home"] == process.home for f in self.failures):
                self.failures.append({"home": process.home, "exit": process.exit,
                                      "stderr": process.worker.stderr_tail()})
        self.log("drivers and reader stopped: " + ", ".join(f"{p.home} {p.statements} statements" for p in
                                                             self.processes))

    def final(self, dead: list[str]) -> dict[str, Any]:
        assert self.service is not None
        out = self.workdir / "final.json"
        worker = self.spawn("tests.soak_cluster.final", "final", [
            "--url", self.url, "--uri", self.service.uri, "--warehouse", str(self.service.warehouse),
            "--out", str(out), "--lease", str(self.lease)])
        try:
            code = worker.proc.wait(timeout=FINAL_TIMEOUT)
        finally:
            worker.kill()
            worker.reap()
        if code != 0 or not out.exists():
            raise RuntimeError(f"the final step exited with {code}:\n{worker.stderr_tail()}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result

    # ------------------------------------------------------------------ the verdict

    def takeovers(self) -> int | None:
        """Homes whose ``taken_over_by`` is set (None: the column does not exist yet)."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            rows = cluster_state.home_rows(connection)
        if not rows or "taken_over_by" not in rows[0]:
            return None
        return sum(1 for row in rows if row["taken_over_by"])

    def advisory_locks(self) -> list[dict[str, Any]]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            rows = connection.execute(
                "SELECT coalesce(a.application_name, ''), l.pid, l.classid, l.objid, l.objsubid, l.mode "
                "FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()").fetchall()
        return [dict(zip(("application_name", "pid", "classid", "objid", "objsubid", "mode"), row, strict=True))
                for row in rows]

    def judge(self, final: dict[str, Any], takeovers_before: int | None, soak_end: float) -> dict[str, Any]:
        result = verdict.Verdict()
        homes = [p.home for p in self.processes]
        dead = [p.home for p in self.processes if p.killed_at is not None]
        statements, torn = verdict.load_statements({home: self.journals / f"{home}.jsonl" for home in homes})
        mode, events = cluster_state.binlog_events(self.url, homes)
        committed = verdict.check_binlog(result, statements, mode, events)
        replayed = verdict.replay(result, committed, statements, soak_end)
        logs = {home: cluster_state.home_log(cluster_state.home_url(self.url, home)) for home in [*homes, CHECKER_HOME]}
        pending = [location for log in logs.values() for location in log["pending"]]
        sweeps = [location for log in logs.values() for location in log["sweeps"]]
        verdict.check_catalog(result, replayed.state, final["observed"], pending, statements, sweeps)
        verdict.check_logs(result, logs)
        for outcome in final["recovery"]["outcomes"]:
            if outcome.get("outcome") in ("failed", "abandoned"):
                result.violate("recovery", f"final recovery {outcome['outcome']} a chain", outcome.get("home"),
                               outcome=outcome)
        locks = self.advisory_locks()
        dead_names = {cluster_state.application_name(home): home for home in dead}
        for lock in locks:
            if lock["application_name"] in dead_names:
                result.violate("locks", "advisory lock held by a dead driver's session",
                               dead_names[lock["application_name"]], lock=lock)
            else:
                result.violate("locks", "advisory lock still held after every driver ended", lock["application_name"],
                               lock=lock)
        reads = [verdict.as_read(r) for r in records(self.workdir / "reads.jsonl") if r.get("type") == "read"]
        verdict.check_reads(result, reads, replayed)
        for failure in self.failures:
            result.violate("driver", "a driver exited on its own (not killed, not fenced)", failure["home"],
                           exit=failure.get("exit"), stderr=failure.get("stderr", "")[-1500:])
        takeovers_after = self.takeovers()
        return {
            "seed": self.seed, "workdir": str(self.workdir), "drivers": self.drivers, "disjoint": self.disjoint,
            "seconds": self.seconds, "binlog": mode, "options": cluster_state.ddl_options(
                lease_seconds=self.lease, lock_wait_seconds=60.0, takeover_interval=self.lease),
            "homes": homes, "dead": dead,
            "statements": result.counts.get("statements", 0), "commits": result.counts.get("commits", 0),
            "outcomes": result.counts.get("outcomes", {}), "binlog_events": result.counts.get("events", 0),
            "events_by_another_driver": result.counts.get("events_by_another_driver"),
            "kills": len(self.kill_log), "kill_log": self.kill_log, "fenced": self.fenced,
            "takeovers_by_survivors": takeovers_before, "takeovers": takeovers_after,
            "final_recovery": {"how": final["recovery"]["how"], "outcomes": len(final["recovery"]["outcomes"]),
                               "detail": Counter(o.get("outcome", "?") for o in final["recovery"]["outcomes"])},
            "reads": result.counts.get("reads", {}).get("reads", 0), "bad_reads": result.counts.get("reads", {}).get(
                "bad", 0), "read_counts": result.counts.get("reads", {}), "torn_journal_lines": torn,
            "tables": sorted(final["observed"]["tables"]), "advisory_locks_at_end": len(locks),
            "violations": len(result.violations), "violation_list": result.violations,
        }

    # ------------------------------------------------------------------ all of it

    def run(self) -> dict[str, Any]:
        began = time.monotonic()
        for directory in (self.journals, self.logs, self.workdir / "tmp"):
            directory.mkdir(parents=True, exist_ok=True)
        try:
            self.start_servers()
            self.workload()
            self.stop_all()
            soak_end = time.time()
            takeovers_before = self.takeovers()
            dead = [p.home for p in self.processes if p.killed_at is not None]
            self.log(f"final recovery and check (dead homes: {', '.join(dead) or 'none'}; taken over by survivors: "
                     f"{'n/a' if takeovers_before is None else takeovers_before})")
            final = self.final(dead)
            summary = self.judge(final, takeovers_before, soak_end)
        finally:
            self.cleanup()
        summary["total_secs"] = round(time.monotonic() - began, 1)
        return summary

    def cleanup(self) -> None:
        """Every process group we started, then the service and its PostgreSQL cluster: nothing outlives the run."""
        for process in [*self.processes, *([self.reader] if self.reader else [])]:
            if process.worker.proc.poll() is None:
                process.worker.kill()
            with contextlib.suppress(Exception):
                process.worker.reap()
        with contextlib.suppress(Exception):
            metastore.stop(self.workdir / "service")


def _or_na(value: object) -> str:
    return "n/a" if value is None else str(value)


def render(summary: dict[str, Any]) -> str:
    lines = [
        "=" * 100,
        f"cluster soak (seed {summary['seed']}, {summary['drivers']} drivers"
        f"{', disjoint tables' if summary['disjoint'] else ', shared tables'}, {summary['seconds']:.0f} s, "
        f"work directory {summary['workdir']})",
        f"cluster options: {summary['options']}; binlog: {summary['binlog']}",
        f"spark master: {summary.get('spark_master') or 'local (tasks in each driver)'}",
        f"statements: {summary['statements']}  commits: {summary['commits']}  outcomes: {summary['outcomes']}  "
        f"binlog events: {summary['binlog_events']}",
        f"kills: {summary['kills']}  ("
        + "; ".join(f"{k['home']} {'inside ' + k['inside'] if k['inside'] else 'between statements'}"
                    for k in summary["kill_log"]) + ")",
        f"takeovers by survivors: {_or_na(summary['takeovers_by_survivors'])}  in all: "
        f"{_or_na(summary['takeovers'])}  fenced drivers: "
        f"{summary['fenced'] or 'none'}  final recovery ({summary['final_recovery']['how']}): "
        f"{dict(summary['final_recovery']['detail']) or 'nothing to do'}",
        f"reader: {summary['reads']} reads, bad {summary['bad_reads']}  ({summary['read_counts']})",
        f"tables at the end: {', '.join(summary['tables']) or '-'}",
        f"violations: {summary['violations']}",
    ]
    by_kind = Counter(v["kind"] for v in summary["violation_list"])
    if by_kind:
        lines.append("  by kind: " + ", ".join(f"{k} {n}" for k, n in by_kind.most_common()))
    for violation in summary["violation_list"][:40]:
        lines.append(f"  - [{violation['kind']}] {violation['what']}: {violation['object']}")
        lines.append("      " + json.dumps(violation["detail"], default=str)[:1200])
    lines.append(f"total: {summary.get('total_secs', 0):.0f} s")
    lines.append("=" * 100)
    return "\n".join(lines)


def run_cluster_soak(*, seconds: float, seed: int | None = None, drivers: int = 3, kills: int | None = None,
                     disjoint: bool = False, lease: float = 3.0, workdir: Path | None = None, keep: bool = False,
                     out: Any = None, spark_master: str | None = None) -> dict[str, Any]:
    """Run the soak; the work directory (a new one under the system's temporary directory, which PostgreSQL's
    unprivileged user can reach) is removed afterwards unless given, ``keep``, or something was violated."""
    seed = random.randrange(1 << 32) if seed is None else seed
    kills = max(1, math.floor(seconds / 30)) if kills is None else kills
    own = workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="ddl-soak-cluster-")) if workdir is None else workdir
    workdir.mkdir(parents=True, exist_ok=True)
    workdir.chmod(0o755)
    soak = ClusterSoak(workdir.resolve(), seed=seed, drivers=drivers, seconds=seconds, kills=kills,
                       disjoint=disjoint, lease=lease, out=out, spark_master=spark_master)
    soak.log(f"cluster soak: {drivers} drivers, {seconds:.0f} s, {kills} kills, seed {seed}, work directory {workdir}, "
             f"Spark master {spark_master or 'local (each driver runs its tasks)'}")
    summary = {**soak.run(), "spark_master": spark_master}
    (workdir / "summary.json").write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    if own and not keep and summary["violations"] == 0:
        shutil.rmtree(workdir, ignore_errors=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak_cluster.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="workload time once every driver is ready")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--drivers", type=int, default=3)
    parser.add_argument("--kills", type=int, default=None, help="SIGKILLs of a random driver (default: 1 per 30 s)")
    parser.add_argument("--disjoint", action="store_true", help="each driver on tables of its own")
    parser.add_argument("--lease", type=float, default=3.0, help="lease_seconds of every driver (if AtomicDDL has it)")
    parser.add_argument("--dir", type=Path, default=None, help="work directory (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory even when all is well")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--spark-master", default=None, metavar="URL",
                        help="run every driver's and the reader's jobs on this cluster manager (spark://HOST:PORT)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally blocks stop every process
    summary = run_cluster_soak(seconds=args.seconds, seed=args.seed, drivers=args.drivers, kills=args.kills,
                               disjoint=args.disjoint, lease=args.lease, workdir=args.dir, keep=args.keep,
                               out=sys.stderr if args.json else sys.stdout, spark_master=args.spark_master)
    print(json.dumps(summary, indent=1, default=str) if args.json else render(summary), flush=True)
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
