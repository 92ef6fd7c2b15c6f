"""Attaching a running PySpark session to a DDL log home (:func:`attach`): one engine per home per process, one
attached Spark per process (its context: every session of it, ``spark.newSession()`` ones included, runs through the
engine from then on). The contract:

* the session must have been built with the extension (``ddl-log --home H session-conf`` prints its settings):
  a session's parser is fixed when it is built, so a running session without it cannot be attached;
* ``attach`` opens the home (its lock: a second process on it is refused, as always; recovery runs first), registers
  the Python handler in the JVM and routes PySpark's writer calls that have no plan (:mod:`.patches`);
* before ``attach`` (and after the engine closes) every statement the engine would run fails, naming the cause:
  nothing falls back to Spark's own, non-atomic statement. ``SET spark.ddlLog.enabled=false`` is how a session opts
  out on purpose;
* Spark has no hook that runs Python code when a session is built: without ``attach`` the settings alone attach
  nothing (the JVM cannot call into a Python driver that never gave it an object to call).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ddl_log.errors import ExtensionError
from ddl_log.frontends.extension import answers, patches
from ddl_log.frontends.extension.attached_engine import AttachedEngine
from ddl_log.frontends.extension.conf import ENABLED, HOME, jar_path, settings_from_conf
from ddl_log.frontends.extension.handler import Handler
from ddl_log.frontends.extension.jvm_handles import Handles, handles
from ddl_log.frontends.extension.sessions import SessionTable
from ddl_log.frontends.extension.writes import Write
from ddl_log.frontends.sql import SqlResult
from storage.catalogs.names import quote_ident
from storage.errors import InvalidDefinitionError

PARSER_MARK = "spark-ddl-log parser"


@attrs.define
class Attachment:
    engine: AttachedEngine
    handler: Handler
    sessions: SessionTable
    handles: Handles
    closed: bool = False


_lock = threading.RLock()
_current: list[Attachment] = []


def attach(spark: Any, home: str | os.PathLike[str] | None = None, **settings: Any) -> AttachedEngine:
    """Attach ``spark`` (a classic session built with the extension) to ``home`` (default: its
    ``spark.ddlLog.home`` setting), and return the home's engine (an :class:`~ddl_log.AtomicDDL`). ``settings``:
    the home's settings (``grace_seconds=...``), over the session's ``spark.ddlLog.<name>`` ones. Attaching the same
    Spark to the same home again returns the engine it has; :class:`ExtensionError` says why it cannot attach."""
    found = _checked(spark)
    location = home if home is not None else spark.conf.get(HOME, None)
    if not location:
        raise ExtensionError(f"no DDL log home to attach to: give home= or set {HOME} when building the session")
    with _lock:
        current = _current[0] if _current else None
        if current is not None and not current.closed:
            if current.handles.context is found.context and _same_home(current.engine, str(location)):
                return current.engine
            raise ExtensionError(f"this process's Spark is attached to {current.engine.home.location}: close that "
                                 "engine first (ddl_log.attached(spark).close()); one home per process")
        engine = AttachedEngine(spark, location, handles=found, settings=settings_from_conf(spark, settings))
        try:
            sessions = SessionTable(engine, spark, str(found.jsession.sessionUUID()))
            attachment = Attachment(engine, Handler(engine, sessions), sessions, found)
            from pyspark.java_gateway import ensure_callback_server_started

            ensure_callback_server_started(found.gateway)  # type: ignore[no-untyped-call]
            found.bridge.attach(attachment.handler, engine.home.location)
            found.session_ends.install(found.jsession)
            patches.install(_route_of)
        except BaseException:
            engine.close()
            raise
        engine.on_close(lambda: _detach(attachment))
        _current[:] = [attachment]
    return engine


def _checked(spark: Any) -> Handles:
    found = handles(spark)
    if found is None:
        raise ExtensionError("a Spark Connect session has no JVM in this process: attach the driver that runs the "
                             "Connect server")
    from py4j.clientserver import ClientServer

    if not isinstance(found.gateway, ClientServer):
        raise ExtensionError("PySpark's pinned-thread mode is off (PYSPARK_PIN_THREAD=false): the extension needs it "
                             "to tell the engine's own statements from a session's; unset it and start again")
    jar_path()
    if str(spark.conf.get(ENABLED, "true")).strip().lower() == "false":
        raise ExtensionError(f"this session has {ENABLED}=false (it runs Spark's own statements): set it to true in "
                             "the session first, then attach")
    parser = str(found.jsession.sessionState().sqlParser().toString())
    if not parser.startswith(PARSER_MARK):
        raise ExtensionError("this session was built without the spark-ddl-log extension, and a session's parser is "
                             "fixed when it is built: build it with spark.sql.extensions=spark_ddl_log.DdlLogExtension "
                             f"and spark.jars={jar_path()} (all its settings: ddl-log --home HOME session-conf)")
    return found


def _same_home(engine: AttachedEngine, location: str) -> bool:
    given = location if "://" in location else os.path.realpath(location)
    held = engine.home.location
    return given == (held if "://" in held else os.path.realpath(held))


def _detach(attachment: Attachment) -> None:
    with _lock:
        attachment.closed = True
        if _current and _current[0] is attachment:
            _current.clear()
            with contextlib.suppress(Exception):  # a stopped JVM has nothing left to detach
                attachment.handles.bridge.detach()
        attachment.sessions.close()


def attached(spark: Any = None) -> AttachedEngine | None:
    """The engine this process's Spark is attached to (``spark``: only if it is that Spark's), else None."""
    with _lock:
        current = _current[0] if _current else None
    if current is None or current.closed:
        return None
    if spark is not None:
        found = handles(spark)
        if found is None or found.context is not current.handles.context:
            return None
    return current.engine


def last_result(spark: Any) -> SqlResult | None:
    """The result of the last statement the engine ran for ``spark`` (this session), as ``ddl.sql`` returns it."""
    with _lock:
        current = _current[0] if _current else None
    found = handles(spark)
    if current is None or found is None:
        return None
    return current.handler.last_results.get(str(found.jsession.sessionUUID()))


def _route_of(spark: Any) -> patches.Route | None:
    with _lock:
        current = _current[0] if _current else None
    if current is None or current.closed:
        return None
    found = handles(spark)
    if found is None or found.context is not current.handles.context:
        return None
    if str(spark.conf.get(ENABLED, "true")).strip().lower() == "false":
        return None
    return SessionRoute(current, spark, found)


@attrs.frozen
class SessionRoute:
    """A session's writer calls through the attached engine (:class:`patches.Route`)."""

    attachment: Attachment
    spark: Any
    found: Handles

    def writer_state(self, jwriter: Any) -> dict[str, Any]:
        return dict(json.loads(self.found.writer_state.ofWriter(jwriter)))

    def writer_v2_state(self, jwriter: Any) -> dict[str, Any]:
        return dict(json.loads(self.found.writer_state.ofWriterV2(jwriter)))

    def name_parts(self, name: str) -> list[str]:
        """``name`` parsed as Spark parses a writer's table name (its errors are Spark's)."""
        parts = self.found.jsession.sessionState().sqlParser().parseMultipartIdentifier(name)
        return [str(parts.apply(i)) for i in range(parts.length())]

    def table_columns(self, parts: Sequence[str], given: Sequence[str]) -> list[str] | None:
        """The table's columns in order, each matched by name in ``given`` (a DataFrame's); None: no such table."""
        name = ".".join(quote_ident(part) for part in parts)
        try:
            columns = self.as_spark(lambda: list(self.spark.table(name).columns))
        except Exception:  # noqa: BLE001 - no table (or not one Spark reads): Spark's own call says so
            return None
        sensitive = str(self.spark.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
        fold: Callable[[str], str] = (lambda text: text) if sensitive else str.lower
        by_name = {fold(column): column for column in given}
        if set(by_name) != {fold(column) for column in columns}:
            raise self._spark_error(InvalidDefinitionError(
                f"the DataFrame's columns ({', '.join(given)}) are not the columns of {name} ({', '.join(columns)}): "
                "an overwrite writes them by name", name))
        return [by_name[fold(column)] for column in columns]

    def write(self, write: Write, frame: Any) -> bool:
        engine = self.attachment.engine
        session_id = str(self.found.jsession.sessionUUID())
        allow = str(self.spark.conf.get("spark.ddlLog.allowNonAtomic", "false")).strip().lower() == "true"
        try:
            with engine.internal(), self.attachment.sessions.runner(session_id, self.found.jsession) as runner:
                return self.attachment.handler.run_write(session_id, runner, write, frame, allow)
        except Exception as error:
            raise self._spark_error(error) from error

    def as_spark(self, call: Callable[[], Any]) -> Any:
        """``call`` run as Spark runs it (the engine's own mark on this thread)."""
        with self.attachment.engine.internal():
            return call()

    def _spark_error(self, error: Exception) -> Exception:
        """The Spark exception ``spark.sql`` raises for a routed statement's ``error`` (same type and condition)."""
        from pyspark.errors.exceptions.captured import convert_exception

        java = self.found.jvm.spark_ddl_log.Failures.forPython(answers.failure(error))
        converted: Exception = convert_exception(java)
        return converted
