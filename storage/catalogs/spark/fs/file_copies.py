"""Data files copied byte for byte by a Spark job (``spark_ddl_log.FileCopies`` of the project's jar): the partitions
a partitioned INSERT OVERWRITE keeps, put into the new version's directory on a file system without hard links (HDFS,
object stores), where Spark's row copy read, decoded, encoded and committed every kept row and needed a work table.

The job's tasks run on the executors (a large table is copied by the cluster, not through the driver), so it needs
the jar there too: the same condition as the named-job commit protocol
(:func:`~storage.catalogs.spark.fs.named_jobs.context_names_jobs`)."""

from __future__ import annotations

from collections.abc import Sequence

from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, inspect_error
from storage.catalogs.spark.fs.named_jobs import context_names_jobs
from storage.catalogs.spark.jvm import static, string_list
from storage.errors import EngineOperationError

COPIES = "spark_ddl_log.FileCopies"
TASKS_PER_CORE = 2
"""Tasks per core of the context's default parallelism, at most one per file: each task copies up to 8 of its files
at once (``FileCopies.THREADS``), since a store's latency per request, not its bandwidth, is what a small file
costs."""


def copies_files(engine: Engine) -> bool:
    """Whether :func:`copy_files` can run on ``engine``'s session (a JVM with the jar, on its executors too)."""
    jvm = engine.jvm
    return jvm is not None and context_names_jobs(engine, jvm)


def copy_files(engine: Engine, pairs: Sequence[tuple[str, str]]) -> None:
    """Copy each source file to its target (full paths, the targets in a directory only the caller writes) in one
    Spark job; nothing for no pair. A failure raises :class:`EngineOperationError` naming the first target's
    directory (what was copied is left for the caller's undo)."""
    if not pairs:
        return
    jvm = engine.jvm
    assert jvm is not None  # copies_files said so
    try:
        slices = TASKS_PER_CORE * int(engine.spark.sparkContext.defaultParallelism)
        static(jvm.view, COPIES, "copy")(jvm.session, string_list(jvm, [source for source, _ in pairs]),
                                         string_list(jvm, [target for _, target in pairs]), slices)
    except ENGINE_ERRORS as error:
        where = pairs[0][1].rpartition("/")[0]
        raise EngineOperationError(f"cannot copy the kept partitions' files into {where}: "
                                   f"{inspect_error(error).message}", where, error) from None
