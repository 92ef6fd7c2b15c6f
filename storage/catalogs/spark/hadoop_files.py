"""The session's Hadoop ``FileSystem`` of a location: how the catalog reaches files on any scheme Spark reaches
(HDFS, object stores), as Spark itself does, where Python's file functions cannot."""

from __future__ import annotations

from typing import Any

from storage.catalogs.spark.engine import Engine


def hadoop_file_system(engine: Engine, location: str) -> tuple[Any, Any] | None:
    """The ``FileSystem`` of ``location`` and its ``Path``; None on Spark Connect (no JVM handle). Py4J errors are
    the caller's to turn into ours."""
    jvm = getattr(engine.spark, "_jvm", None)
    context = getattr(engine.spark, "_jsc", None)
    if jvm is None or context is None:
        return None
    path = jvm.org.apache.hadoop.fs.Path(location)
    return path.getFileSystem(context.hadoopConfiguration()), path
