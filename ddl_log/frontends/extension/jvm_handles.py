"""The JVM handles the extension needs of a session: the Spark profile's (``storage.catalogs.spark.profile``, the one
reader of PySpark's session handles) plus the context's Py4J gateway, which serves the extension's callbacks."""

from __future__ import annotations

from typing import Any

import attrs

from storage.catalogs.spark.profile import jvm_of


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

    @property
    def session_ends(self) -> Any:
        """The extension's ``spark_ddl_log.SessionEnds``: tells the engine when a Thrift server's client goes."""
        return self.jvm.spark_ddl_log.SessionEnds


def handles(spark: Any) -> Handles | None:
    """The JVM handles of ``spark``; None for a session whose JVM is not in this process (Spark Connect)."""
    jvm = jvm_of(spark)
    if jvm is None:
        return None
    context = spark.sparkContext
    return Handles(jvm.session, jvm.view, context._gateway, context)


def python_session(owner: Any, jsession: Any) -> Any:
    """A Python ``SparkSession`` on the JVM session ``jsession`` of ``owner``'s context (``spark.newSession()``'s
    kind: the one a Thrift or Connect server makes per client has no Python object of its own)."""
    from pyspark.sql import SparkSession

    return SparkSession(owner.sparkContext, jsession)
