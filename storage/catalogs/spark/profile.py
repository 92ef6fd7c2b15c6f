"""What a Spark session is, read once per session (:class:`SparkProfile`): its Spark and Hive client versions, classic
or Spark Connect, whether the catalog can open a Hive metastore client of its own, where the warehouse lives, and the
facts of its Spark line (error conditions by meaning, JVM class names: :mod:`storage.catalogs.spark.profiles`).
Every part of the catalog asks the profile instead of probing the session.

This is the one module that reads PySpark's private handles on a session's JVM (``_jsparkSession``, ``_jvm``,
``_jsc``): a classic session has them, a Spark Connect session has none (its JVM is the server's). Everything that
calls into the JVM gets them from here, as a :class:`Jvm`.

Cost: reading a profile asks the session four things (its version and three static settings: one Py4J or gRPC
round trip each), once per session; :func:`profile_of` keeps it for the session's life (the settings it reads are
static, the session cannot change them), so a statement pays nothing for it.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import attrs

from storage.catalogs.spark.gateway_replies import reply_promptly
from storage.catalogs.spark.profiles import facts_for
from storage.catalogs.spark.profiles.facts import ConditionTable, JvmClasses, VersionFacts

CONNECT_REFUSAL = "a Spark Connect session has no handle on the Hive metastore client"
UNREADABLE_REFUSAL = "the session's catalog implementation cannot be read"

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_KEPT = 8
"""Profiles kept at once (one per live session; a process rarely has more than one or two)."""


@attrs.frozen(eq=False)
class Jvm:
    """A classic session's JVM as the catalog reaches it: the JVM ``SparkSession``, Py4J's view of the JVM, the
    ``JavaSparkContext``, and the names of the classes this Spark line has."""

    session: Any
    view: Any
    context: Any
    classes: JvmClasses

    def hadoop_configuration(self) -> Any:
        """The session's Hadoop ``Configuration`` (how it reaches every file system): one round trip."""
        return self.context.hadoopConfiguration()


def _handles(spark: Any) -> tuple[Any, Any, Any]:
    """PySpark's private handles of ``spark``: its JVM session, Py4J's view of the JVM, its ``JavaSparkContext``
    (each None where there is none: Spark Connect). The one place they are read."""
    return getattr(spark, "_jsparkSession", None), getattr(spark, "_jvm", None), getattr(spark, "_jsc", None)


def session_key(spark: Any) -> object:
    """What identifies ``spark``'s session: its JVM session (a proxy in front of a classic session is the same
    session), else the Connect session object itself."""
    jsession = _handles(spark)[0]
    return spark if jsession is None else jsession


def jvm_of(spark: Any, classes: JvmClasses | None = None) -> Jvm | None:
    """The JVM handles of a classic session (None on Spark Connect). No round trip (four the first time a thread
    asks: :func:`~storage.catalogs.spark.gateway_replies.reply_promptly`): ``classes`` default to those of the
    session's profile when one was read, else of the newest known Spark line."""
    jsession, view, context = _handles(spark)
    if jsession is None or view is None:
        return None
    reply_promptly(view)
    if classes is None:
        known = _PROFILES.get(id(jsession))
        classes = known[1].classes if known is not None and known[0] is jsession else facts_for(None).classes
    return Jvm(jsession, view, context, classes)


def analysed_plan(frame: Any) -> Any | None:
    """A classic DataFrame's analysed logical plan in the JVM (one round trip; None for a Spark Connect DataFrame,
    whose plan is the server's, or for anything that is no DataFrame). PySpark's ``_jdf`` is its one way there."""
    java = getattr(frame, "_jdf", None)
    return None if java is None else java.queryExecution().analyzed()


def is_classic(spark: Any) -> bool:
    """Whether ``spark`` is a classic session (its JVM in this process), not Spark Connect. No round trip."""
    return jvm_of(spark) is not None


def local_path(location: str) -> Path | None:
    """The local path of a decoded ``file:`` location (or of a bare absolute path); None for other file systems.

    The location is *decoded* text (``DESCRIBE`` output after unquoting), so it is not parsed as a URI: ``#`` or
    ``?`` in a directory name stay part of the path.
    """
    if location.startswith("file:"):
        rest = location[len("file:") :]
    elif location.startswith("/") and not _SCHEME.match(location):
        rest = location
    else:
        return None
    if rest.startswith("//"):
        authority, _, path = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            return None
        rest = "/" + path
    return Path(rest)


@attrs.frozen
class SparkProfile:
    """One session's facts (see the module)."""

    spark_version: str
    hive_version: str
    """The Hive metastore client's version (``spark.sql.hive.metastore.version``)."""
    connect: bool
    """A Spark Connect session (no JVM in this process) rather than a classic one."""
    metastore_refusal: str | None
    """Why the catalog cannot open a Hive metastore client of its own (None when it can): Spark Connect, or a
    session catalog that is not the Hive metastore. Without one a replace takes the rename path, versions are not
    kept, a directory's users cannot be proven."""
    warehouse: str
    warehouse_local: bool
    """The warehouse is on a file system this process reaches with Python's file functions (``file:``)."""
    facts: VersionFacts
    jvm: Jvm | None = attrs.field(eq=False, repr=False)
    """The JVM handles (None on Spark Connect)."""
    catalog_restores: bool = True
    """Spark's Hive catalog restores the tables it reads (schema, provider, partition columns from the table
    properties); not in Spark's debug mode (``spark.sql.debug``), where it returns them as stored."""

    @property
    def has_metastore_client(self) -> bool:
        return self.metastore_refusal is None

    @property
    def conditions(self) -> ConditionTable:
        return self.facts.conditions

    @property
    def classes(self) -> JvmClasses:
        return self.facts.classes


def read_profile(spark: Any) -> SparkProfile:
    """Read ``spark``'s profile: five round trips. Raises the engine's errors when the session cannot answer."""
    version = str(spark.version)
    facts = facts_for(version)
    connect = _handles(spark)[0] is None
    hive = str(spark.conf.get("spark.sql.hive.metastore.version", facts.hive_client))
    warehouse = str(spark.conf.get("spark.sql.warehouse.dir", ""))
    if connect:
        refusal: str | None = CONNECT_REFUSAL
    else:
        try:
            implementation = spark.conf.get("spark.sql.catalogImplementation", "in-memory")
        except Exception:  # noqa: BLE001 - whatever the session raises, the answer is "no client" (not kept)
            implementation = None
        if implementation is None:
            refusal = UNREADABLE_REFUSAL
        elif str(implementation).lower() != "hive":
            refusal = f"the session catalog is {implementation!r}, not the Hive metastore"
        else:
            refusal = None
    restores = connect or str(spark.conf.get("spark.sql.debug", "false")).lower() != "true"
    return SparkProfile(version, hive, connect, refusal, warehouse, local_path(warehouse) is not None, facts,
                        jvm_of(spark, facts.classes), restores)


_PROFILES: dict[int, tuple[object, SparkProfile]] = {}
_LOCK = threading.Lock()


def profile_of(spark: Any) -> SparkProfile:
    """``spark``'s profile, read on the first call for its session and kept for the session's life (a profile
    whose catalog implementation could not be read is read again next time)."""
    key = session_key(spark)
    with _LOCK:
        known = _PROFILES.get(id(key))
    if known is not None and known[0] is key:
        return known[1]
    profile = read_profile(spark)
    if profile.metastore_refusal != UNREADABLE_REFUSAL:
        with _LOCK:
            while len(_PROFILES) >= _KEPT:
                del _PROFILES[next(iter(_PROFILES))]
            _PROFILES[id(key)] = (key, profile)
    return profile
