"""INSERT INTO written in place on Spark: Spark names every file a write job makes with the job's id
(``part-00000-<job>-c000.snappy.parquet``; Hive's moves keep the name, adding ``_copy_1`` at most), and the project's
commit protocol (``spark_ddl_log.NamedJobCommitProtocol``, Spark's own ``SQLHadoopMapReduceCommitProtocol`` but for
the id) gives a job into a table's directory the id the statement logged before it ran. So the rows are written by
Spark's own job exactly where plain Spark writes them, and an undo finds the job's files by name wherever the commit
had got to, staging directories included; nothing is renamed after the commit point.

Where it applies (:func:`jobs_named`): a classic session whose JVM has the project's jar, shipped to its executors
(``spark.jars``, or a local master whose tasks run in the driver's JVM), and whose commit protocol is Spark's
default one: a session configured with another (a cloud committer) keeps its own, and INSERT INTO writes aside and
moves its files in. The protocol is the session's only while such an INSERT runs (counted per session, so that two
threads' INSERTs overlap safely), then Spark's default again: nothing of it shows in the session's settings."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from storage.catalogs.spark.engine import Engine, has_class
from storage.catalogs.spark.handle_answers import HandleAnswers
from storage.catalogs.spark.jvm import static
from storage.catalogs.spark.profile import Jvm

PROTOCOL_KEY = "spark.sql.sources.commitProtocolClass"
SPARK_PROTOCOL = "org.apache.spark.sql.execution.datasources.SQLHadoopMapReduceCommitProtocol"
NAMED_PROTOCOL = "spark_ddl_log.NamedJobCommitProtocol"
NAMED_JOBS = "spark_ddl_log.NamedJobs"
JAR_NAME = "spark-ddl-log-"
STAGING_KEY = "hive.exec.stagingdir"

_LOCK = threading.Lock()
_USERS: dict[int, int] = {}
"""Per session (``id`` of its Python session object): how many INSERTs have the named protocol set now."""
_UNNAMED: set[str] = set()
"""The job ids whose expectation no write job claimed (a write elsewhere than the table's directory)."""
_CONTEXTS: HandleAnswers[bool] = HandleAnswers(kept=8)
"""Per ``JavaSparkContext``: whether its JVM has the project's classes and its executors do too (a local master, or
the jar in ``spark.jars``): fixed for its life."""


def jobs_named(engine: Engine) -> bool:
    """Whether an INSERT on ``engine``'s session can run with a job id chosen beforehand (the module's conditions,
    and Hive's staging directory inside the table's, where the job's output must be for its id to be given: an
    absolute ``hive.exec.stagingdir`` puts it elsewhere). Two or three Py4J round trips (the session's settings);
    what the context fixes is asked once per context."""
    jvm = engine.jvm
    if jvm is None or not context_names_jobs(engine, jvm):
        return False
    conf = engine.spark.conf
    if str(conf.get(PROTOCOL_KEY, SPARK_PROTOCOL)) not in (SPARK_PROTOCOL, NAMED_PROTOCOL):
        return False
    staging = conf.get(STAGING_KEY, None) or jvm.hadoop_configuration().get(STAGING_KEY) or ".hive-staging"
    return not (str(staging).startswith("/") or ":" in str(staging))


def context_names_jobs(engine: Engine, jvm: Jvm) -> bool:
    """Whether the session's context has the project's commit protocol in its JVM and in its executors'."""
    def found() -> bool:
        context = engine.spark.sparkContext
        return has_class(jvm, NAMED_PROTOCOL) and (
            str(context.master).startswith("local") or JAR_NAME in str(context.getConf().get("spark.jars", "")))

    return _CONTEXTS.get(jvm.context, found)


def unnamed(job: str) -> bool:
    """Whether ``job``'s expectation went unclaimed (its write job took an id of its own: its files cannot be told
    apart); asked once, after the statement's INSERT."""
    with _LOCK:
        if job in _UNNAMED:
            _UNNAMED.discard(job)
            return True
    return False


@contextmanager
def named_job(engine: Engine, location: str, job: str) -> Iterator[None]:
    """The next write job into ``location`` (or a staging directory under it) named ``job``, for the block."""
    jvm = engine.jvm
    assert jvm is not None  # jobs_named said so
    key = id(engine.spark)
    with _LOCK:
        if not _USERS.get(key):
            engine.spark.conf.set(PROTOCOL_KEY, NAMED_PROTOCOL)
        _USERS[key] = _USERS.get(key, 0) + 1
    try:
        static(jvm.view, NAMED_JOBS, "expect")(location, job)
        yield
    finally:
        try:
            if static(jvm.view, NAMED_JOBS, "forget")(location):
                with _LOCK:
                    _UNNAMED.add(job)
        finally:
            with _LOCK:
                _USERS[key] -= 1
                if not _USERS[key]:
                    del _USERS[key]
                    engine.spark.conf.unset(PROTOCOL_KEY)


def named_files(listed: Iterable[str], job: str) -> list[str]:
    """The paths of ``listed`` whose file name carries ``job``."""
    return [path for path in listed if job in path.rsplit("/", 1)[-1]]


def local_files(root: str) -> list[str]:
    """Every file under the local directory ``root``, hidden ones too, relative to it."""
    found = []
    for directory, _, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        found += [name if relative == "." else f"{relative}/{name}" for name in files]
    return found
