"""The one place the extension reads PySpark's private handles of a session (``_jsparkSession``, ``_jvm``, the
context's ``_gateway``): everything else asks :func:`handles` (the Spark profile of the architecture review is to own
such reads; this function moves there whole)."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Handles:
    """A classic session's JVM side: the JVM ``SparkSession``, the Py4J view of the JVM, the Py4J gateway and the
    Python ``SparkContext``."""

    jsession: Any
    jvm: Any
    gateway: Any
    context: Any

    @property
    def bridge(self) -> Any:
        """The extension's ``spark_ddl_log.Bridge`` class in the JVM."""
        return self.jvm.spark_ddl_log.Bridge

    @property
    def writer_state(self) -> Any:
        return self.jvm.spark_ddl_log.WriterState


def handles(spark: Any) -> Handles | None:
    """The JVM handles of ``spark``; None for a session whose JVM is not in this process (Spark Connect)."""
    jsession = getattr(spark, "_jsparkSession", None)
    if jsession is None:
        return None
    context = spark.sparkContext
    return Handles(jsession, spark._jvm, context._gateway, context)


def python_session(owner: Any, jsession: Any) -> Any:
    """A Python ``SparkSession`` on the JVM session ``jsession`` of ``owner``'s context (``spark.newSession()``'s
    kind: the one a Thrift or Connect server makes per client has no Python object of its own)."""
    from pyspark.sql import SparkSession

    return SparkSession(owner.sparkContext, jsession)
