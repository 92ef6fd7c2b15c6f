"""The JVM metastore client of the catalog's own (:class:`~storage.catalogs.spark.hms.metastore_client.MetastoreClient`
makes its calls through it): opened on first use from the session's Hive configuration, opened again for another
session, each JVM thread given Spark's Hive session state before its first call, and every change made holding the
lock Spark's own Hive client holds for each of its calls (:mod:`~storage.catalogs.spark.hms.spark_client_lock`)."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine
from storage.catalogs.spark.hms.spark_client_lock import call_locked, spark_client_lock
from storage.catalogs.spark.jvm import new, static
from storage.catalogs.spark.profile import Jvm
from storage.errors import CatalogError

HIVE_SESSION_STATE = "org.apache.hadoop.hive.ql.session.SessionState"
STATISTICS_GATHERED = "hive.stats.autogather"


class ClientConnection:
    """One Hive ``IMetaStoreClient`` for the engine's session. Not locked itself: its owner calls it under a lock."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._client: Any = None
        self._session: Any = None
        self._hive_state: Any = None
        self._spark_lock: Any = None
        """What Spark's Hive client synchronizes its calls on: every change is made holding it (:meth:`change`)."""
        self._threads = threading.local()
        """Per thread: the client whose Hive session state this thread was given (:func:`_enter_hive_state`)."""
        self.gathers_statistics = True
        """Whether the metastore counts a table's files where its record lacks statistics (``hive.stats.autogather``,
        as the client's configuration says)."""

    def jvm(self) -> Jvm:
        """The session's JVM handles."""
        jvm = self._engine.jvm
        if jvm is None:
            raise CatalogError(self._engine.profile.metastore_refusal or "no JVM handle on this session")
        return jvm

    def client(self) -> Any:
        """The JVM client, opened for the engine's current session where it is not yet."""
        jvm = self.jvm()
        if self._client is None or self._session is not jvm.session:
            self.close()  # another session: its client goes with it
            hive = jvm.session.sharedState().externalCatalog().unwrapped().client()
            self._client = new(jvm.view, jvm.classes.hive_metastore_client, hive.conf())
            self.gathers_statistics = bool(hive.conf().getBoolean(STATISTICS_GATHERED, True))
            self._hive_state = hive.state()
            self._spark_lock = spark_client_lock(hive)
            self._session = jvm.session
        if getattr(self._threads, "client", None) is not self._client:
            _enter_hive_state(jvm, self._hive_state)
            self._threads.client = self._client
        return self._client

    def change(self, method: str, *args: Any) -> Any:
        """The client's ``method``, called holding Spark's own client lock
        (:func:`~storage.catalogs.spark.hms.spark_client_lock.call_locked`): no metastore read of this JVM's sessions
        overlaps a change (under read-committed isolation one could read half of it)."""
        client = self.client()
        return call_locked(self.jvm(), self._spark_lock, client, method, *args)

    def close(self) -> None:
        """Close the JVM client (on a service: its Thrift connection, which the service keeps until the client closes
        it); the next call opens a new one."""
        client, self._client, self._session = self._client, None, None
        if client is not None:
            with contextlib.suppress(*ENGINE_ERRORS):  # a stopped JVM or a gone service: nothing is left open
                client.close()


def _enter_hive_state(jvm: Jvm, state: Any) -> None:
    """Give the calling JVM thread Spark's Hive session state where it has none (two round trips, once per thread and
    client), as Spark's Hive client does around each of its calls (``withHiveState``) and leaves in place. The
    metastore filter hook that Hive's session may configure (``AuthorizationMetaStoreFilterHook``, found in the tests'
    sessions) reads the thread's session state: on a thread that had run no Spark call into Hive, ``getAllDatabases``
    failed with a ``NullPointerException`` (an attached session's transaction whose commit deleted an expired
    version, once the install no longer ran Spark's ``refreshTable`` on that thread, 2026-12-01)."""
    current = static(jvm.view, HIVE_SESSION_STATE, "get")()
    if current is None and state is not None:
        static(jvm.view, HIVE_SESSION_STATE, "setCurrentSessionState")(state)
