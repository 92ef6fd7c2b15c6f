"""Where a session's tasks run, and so how long one of them can go on writing files once its driver is gone.

In local mode the tasks are threads of the driver's JVM: they end with it. On a cluster manager (standalone, YARN,
Kubernetes, ``local-cluster``) they run in executors, JVMs of their own that outlive a driver that dies, for as long
as nothing ends them: the cluster manager on driver loss (the standalone master asks the workers to kill a lost
application's executors as soon as its connection to the driver drops; a driver host that vanishes without closing
the connection is noticed later), or the executor itself, which exits once ``spark.executor.heartbeat.maxFailures``
heartbeats in a row, each waiting up to ``spark.executor.heartbeatInterval``, found no driver (Spark's
``Executor.reportHeartBeat``). That last bound holds whatever the cluster manager does, so it is the window a task
of a dead driver can write in: ``interval x (maxFailures + 1)`` (one more interval for the beat that was already
under way), 610 s with Spark's defaults.

A Spark Connect session's tasks run in the server, which a client's death does not stop at all: no bound is known,
so none is claimed (README: Limitations).
"""

from __future__ import annotations

from typing import Any

from storage.catalogs.spark.profile import Jvm

HEARTBEAT_INTERVAL = ("spark.executor.heartbeatInterval", "10s")
HEARTBEAT_MAX_FAILURES = ("spark.executor.heartbeat.maxFailures", 60)


_KNOWN: list[Any] = [None, None]
"""The last SparkContext asked and its answer: its master and executor settings are fixed for its life."""


def orphan_window(jvm: Jvm | None) -> float | None:
    """Seconds a task of the session's jobs can write after its driver died (see the module); None in local mode and
    on Spark Connect (``jvm`` None: no SparkContext of its own). Read once per SparkContext."""
    if jvm is None:
        return None
    jsc = jvm.context
    known = _KNOWN
    if known[0] is not jsc:
        known[1], known[0] = _read_window(jsc), jsc
    return known[1]  # type: ignore[no-any-return]


def _read_window(jsc: Any) -> float | None:
    context = jsc.sc()
    master = str(context.master())
    if master == "local" or master.startswith("local["):
        return None
    conf = context.conf()
    interval_ms = int(conf.getTimeAsMs(*HEARTBEAT_INTERVAL))
    failures = int(conf.getInt(HEARTBEAT_MAX_FAILURES[0], HEARTBEAT_MAX_FAILURES[1]))
    return interval_ms * (failures + 1) / 1000.0
