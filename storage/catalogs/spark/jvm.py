"""Cheap Py4J: JVM classes and static methods the hot path uses, resolved once per JVM, and whole Java values carried
across in one call as JSON.

Why: every Py4J call is a socket round trip to the driver's JVM (about 60 to 300 us on a 2-core machine), and
PySpark's ways of reaching a class cost many of them. ``<jvm view>.org.apache.x.Y`` asks the JVM once per dotted
segment (about 2 ms for seven segments, each a failed class lookup inside the JVM), a static method of a class is
one reflection call before the call itself, iterating a Java collection is two calls per element, and the end of
every iteration is a Java exception that PySpark's handler inspects with about fifty more calls. A statement used to
make over 500 of them. So:

* :func:`static` and :func:`new` build Py4J's handles locally (``JavaClass`` needs no call) and keep each static
  method's handle per gateway: one round trip per call;
* :func:`map_json` turns a ``java.util.Map`` (or a Scala ``Map``) into JSON inside the JVM (Jackson, in Spark's own
  jars): one round trip, whatever its size, and no iteration;
* :func:`thrift_json` / :func:`thrift_value` write and read a Thrift record (a Hive metastore ``Table`` or
  ``Partition``, or a record holding a list of them) with Thrift's JSON protocol: one round trip each way.

The classes are named by the session's profile (:class:`~storage.catalogs.spark.profile.Jvm`'s ``classes``): what a
Spark line calls them is a fact of that line.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from py4j.java_gateway import JavaClass

from storage.catalogs.spark.profile import Jvm

T = TypeVar("T")
_HANDLES: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], Any]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_THRIFT_LOCKS: weakref.WeakKeyDictionary[Any, threading.Lock] = weakref.WeakKeyDictionary()


def _client(view: Any) -> Any:
    return view._gateway_client


def _handle(view: Any, key: tuple[str, str], make: Any) -> Any:
    client = _client(view)
    with _LOCK:
        handles = _HANDLES.setdefault(client, {})
        if key not in handles:
            handles[key] = make(client)
        return handles[key]


def static(view: Any, class_name: str, method: str) -> Any:
    """The static method ``class_name.method`` (a Scala object's too, through its static forwarder), callable in one
    round trip; the reflection call that finds it is made once per JVM (``view``: Py4J's view of it)."""
    return _handle(view, (class_name, method), lambda client: getattr(JavaClass(class_name, client), method))


def new(view: Any, class_name: str, *args: Any) -> Any:
    """A new ``class_name(*args)``: one round trip (no package walk)."""
    return JavaClass(class_name, _client(view))(*args)


def _shared(view: Any, class_name: str, *args: Any) -> Any:
    """One instance of ``class_name(*args)`` per JVM, for objects that are safe to share (an ``ObjectMapper``)."""
    return _handle(view, (class_name, "<instance>"), lambda client: JavaClass(class_name, client)(*args))


def session_part(jvm: Jvm, part: str) -> Any:
    """A part of the session that lives as long as it: ``external catalog`` (its shared state's ``ExternalCatalog``),
    ``hive client`` (its Hive catalog's ``HiveClient``: a Hive session only), ``session catalog``, ``sql parser``,
    ``cache manager``; one handle per session, the round trips that reach it
    made once."""
    jsession = jvm.session
    found = _handle(jvm.view, ("<session>", part), lambda client: [None, None])
    with _LOCK:
        if found[0] is jsession:
            return found[1]
    state = jsession.sessionState()
    handle = {"external catalog": lambda: jsession.sharedState().externalCatalog(),
              "hive client": lambda: jsession.sharedState().externalCatalog().unwrapped().client(),
              "session catalog": lambda: state.catalog(),
              "sql parser": lambda: state.sqlParser(),
              "cache manager": lambda: jsession.sharedState().cacheManager()}[part]()
    with _LOCK:
        found[0], found[1] = jsession, handle
    return handle


def external_catalog(jvm: Jvm) -> Any:
    """The session's external catalog (Spark's ``ExternalCatalog`` over the Hive metastore)."""
    return session_part(jvm, "external catalog")


def caches_data(jvm: Jvm) -> bool:
    """Whether the session caches any data (``CACHE TABLE``, ``df.cache()``): one round trip."""
    return not session_part(jvm, "cache manager").isEmpty()


def singleton_list(jvm: Jvm, item: Any) -> Any:
    """A ``java.util.List`` holding ``item``: one round trip."""
    return static(jvm.view, "java.util.Collections", "singletonList")(item)


def string_list(jvm: Jvm, items: list[str]) -> Any:
    """A ``java.util.List`` of ``items`` (read from JSON in the JVM): two round trips, whatever its length."""
    array_list = static(jvm.view, "java.lang.Class", "forName")("java.util.ArrayList")
    return _shared(jvm.view, jvm.classes.json_mapper).readValue(json.dumps(items), array_list)


def tables_by_name(jvm: Jvm, db: str, name: str) -> Any:
    """The external catalog's ``CatalogTable`` records of ``db.name`` (a Scala ``Seq``, empty when nothing holds the
    name): one metastore call, three round trips."""
    names = static(jvm.view, jvm.classes.python_utils, "toSeq")(singleton_list(jvm, name))
    return external_catalog(jvm).getTablesByName(db, names)


def raw_tables_by_name(jvm: Jvm, db: str, name: str) -> Any:
    """The ``CatalogTable`` records of ``db.name`` as the metastore stores them (Spark's Hive client, below its
    catalog: every table property kept, the ``spark.sql.`` ones Spark hides included; a data source table's schema
    and location not restored from them): one metastore call, three round trips. A Hive session only."""
    names = static(jvm.view, jvm.classes.python_utils, "toSeq")(singleton_list(jvm, name))
    return session_part(jvm, "hive client").getTablesByName(db, names)


def option(value: Any) -> Any:
    """A Scala ``Option``'s value, or None: one round trip (two when set)."""
    return value.get() if value.isDefined() else None


def seq_strings(jvm: Jvm, seq: Any) -> list[str]:
    """A Scala ``Seq`` of strings as a list: two round trips, whatever its length."""
    as_java = static(jvm.view, jvm.classes.scala_collections, "asJava")(seq)
    return [str(item) for item in json.loads(to_json(jvm, as_java))]


def table_identifier(jvm: Jvm, db: str, name: str) -> Any:
    """Spark's ``TableIdentifier`` of ``db.name``: two round trips."""
    return new(jvm.view, jvm.classes.table_identifier, name, new(jvm.view, "scala.Some", db))


def uri_text(jvm: Jvm, uri: Any) -> str:
    """A location URI as Spark writes it (``CatalogUtils.URIToString``: decoded): one round trip."""
    return str(static(jvm.view, jvm.classes.catalog_utils, "URIToString")(uri))


def with_active_session(jvm: Jvm, read: Callable[[], T]) -> T:
    """``read()`` with ``jvm``'s session the active one of this thread's JVM thread (settings such as
    ``spark.sql.defaultCatalog`` are read from it), the previous one put back after: four round trips."""
    view, session = jvm.view, jvm.classes.spark_session
    previous = static(view, session, "getActiveSession")()
    static(view, session, "setActiveSession")(jvm.session)
    try:
        return read()
    finally:
        if previous.isDefined():
            static(view, session, "setActiveSession")(previous.get())
        else:
            static(view, session, "clearActiveSession")()


def map_json(jvm: Jvm, java_map: Any, *, scala: bool = False) -> str:
    """A ``java.util.Map`` (``scala``: a Scala ``Map``) as a JSON object, written in the JVM: one round trip (two for
    a Scala map)."""
    if scala:
        java_map = static(jvm.view, jvm.classes.scala_collections, "asJava")(java_map)
    return to_json(jvm, java_map)


def scala_map(jvm: Jvm, value: Any) -> dict[str, str]:
    """A Scala ``Map[String, String]`` (a catalog table's properties, its storage's) as a dict: two round trips."""
    return dict(json.loads(map_json(jvm, value, scala=True)))


def to_json(jvm: Jvm, value: Any) -> str:
    """A JVM value Jackson can write (a ``java.util.List`` of strings, a ``java.util.Map``) as JSON: one round
    trip."""
    return str(_shared(jvm.view, jvm.classes.json_mapper).writeValueAsString(value))


def _thrift(jvm: Jvm) -> tuple[Any, Any, threading.Lock]:
    """A Thrift JSON serializer and deserializer of this JVM and the lock that guards them (neither is thread-safe)."""
    view, classes = jvm.view, jvm.classes
    factory = _shared(view, classes.thrift_json_protocol)
    serializer = _handle(view, (classes.thrift_serializer, "<instance>"),
                         lambda client: JavaClass(classes.thrift_serializer, client)(factory))
    deserializer = _handle(view, (classes.thrift_deserializer, "<instance>"),
                           lambda client: JavaClass(classes.thrift_deserializer, client)(factory))
    client = _client(view)
    with _LOCK:
        lock = _THRIFT_LOCKS.setdefault(client, threading.Lock())
    return serializer, deserializer, lock


def thrift_json(jvm: Jvm, record: Any) -> str:
    """``record`` (any Thrift struct of the JVM) in Thrift's JSON protocol: one round trip."""
    serializer, _, lock = _thrift(jvm)
    with lock:
        return str(serializer.toString(record))


def thrift_value(jvm: Jvm, class_name: str, text: str) -> Any:
    """A new ``class_name`` Thrift struct read from ``text`` (Thrift's JSON protocol): two round trips."""
    _, deserializer, lock = _thrift(jvm)
    record = new(jvm.view, class_name)
    with lock:
        deserializer.fromString(record, text)
    return record
