"""One :class:`ddl_log.AtomicDDL` per home in this process: a home is locked by the process that opens it, and dbt
opens a connection per thread, so every connection of a home shares one engine (its statements are serialised per
object by the engine's own metadata locks). Opening it runs recovery: a ``dbt run`` killed mid-statement is undone
or finished before the next one sends anything."""

from __future__ import annotations

import os
import threading
from typing import Any

from ddl_log import AtomicDDL

_LOCK = threading.Lock()
_ENGINES: dict[str, AtomicDDL] = {}


def engine_for(spark: Any, home: str, settings: dict[str, Any]) -> AtomicDDL:
    """The engine of ``home`` on ``spark`` (the session dbt-spark's cursor would use; None: the session the DDL log
    starts for the home, as ``ddl-log --home`` does), opened on first use."""
    key = home if "://" in home else os.path.realpath(home)
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is not None and ((spark is not None and engine.spark is not spark) or not _same(engine, settings)):
            engine.close()  # a new session was built, or another profile names the home with other settings
            engine = None
        if engine is None:
            if spark is not None:  # the session is the builder's: the service and warehouse are its settings
                settings = {k: v for k, v in settings.items() if k not in ("metastore_uri", "warehouse")}
            engine = AtomicDDL(spark=spark, home=home, **settings)
            _ENGINES[key] = engine
        return engine


def _same(engine: AtomicDDL, settings: dict[str, Any]) -> bool:
    return all(getattr(engine.settings, name) == value for name, value in settings.items()
               if value is not None and name not in ("metastore_uri", "warehouse"))


def open_engine(home: str) -> AtomicDDL | None:
    """The engine this process has open on ``home`` (None: none)."""
    with _LOCK:
        return _ENGINES.get(home if "://" in home else os.path.realpath(home))


def close_all() -> None:
    """Close every engine this process opened (their homes' locks go with them); the sessions stay."""
    with _LOCK:
        while _ENGINES:
            _ENGINES.popitem()[1].close()
