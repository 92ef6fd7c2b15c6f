"""profiles.yml of ``type: spark_ddl_log``: dbt-spark's credentials, ``method: session`` or ``method: thrift``.

``session`` runs dbt's statements in this Python process, where :class:`ddl_log.AtomicDDL` logs them before Spark
acts, so the profile names the DDL log's home and its settings (:class:`ddl_log.settings.Settings`). ``thrift`` sends
them to ``ddl-log --home H thrift-server``, whose driver holds the home and runs each statement through its log: the
profile names the server as dbt-spark's thrift method does (host, port, user, schema), and the home's settings are the
server's (``ddl-log --home H --grace-seconds ... thrift-server start``). Other methods run the statements in a server
that has no log (a Spark Thrift server of its own, Databricks): refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dbt.adapters.spark.connections import SparkConnectionMethod, SparkCredentials

from dbt.adapters.spark_ddl_log.errors import AdapterSettingError

METASTORE_URIS = "spark.hadoop.hive.metastore.uris"
WAREHOUSE_DIR = "spark.sql.warehouse.dir"
ANSI = "spark.sql.ansi.enabled"
"""What dbt-spark sets on every session it builds (off)."""

DEFAULT_HOME = "ddl_home"
METHODS = (SparkConnectionMethod.SESSION, SparkConnectionMethod.THRIFT)
HOME_SETTINGS = ("grace_seconds", "lock_wait_seconds", "metastore_uri", "warehouse", "binlog")
"""The home's settings: the session method's, the Thrift server's own with the thrift method."""


@dataclass
class SparkDDLLogCredentials(SparkCredentials):
    """``ddl_log_home``: the DDL log's home (a directory or a ``postgresql://...?home=ID`` URL); the rest are the
    settings of the same names (None: the ``DDL_LOG_<NAME>`` environment variable, then the default). The session
    method only: with ``thrift`` the server holds the home."""

    ddl_log_home: str = DEFAULT_HOME
    grace_seconds: float | None = None
    lock_wait_seconds: float | None = None
    metastore_uri: str | None = None
    warehouse: str | None = None
    binlog: bool | None = None

    def __post_init__(self) -> None:
        if self.method is not None and self.method not in METHODS:
            raise AdapterSettingError(
                f"type spark_ddl_log runs only with method: session or method: thrift (got {self.method}): with "
                "another server the statements run out of reach of the DDL log; use type: spark there")
        if self.method == SparkConnectionMethod.THRIFT:
            given = [name for name in HOME_SETTINGS if getattr(self, name) is not None]
            if self.ddl_log_home != DEFAULT_HOME:
                given.insert(0, "ddl_log_home")
            if given:
                raise AdapterSettingError(
                    f"{', '.join(given)}: settings of the DDL log's home, which the Thrift server holds with method: "
                    "thrift; give them to the server (ddl-log --home H --grace-seconds ... thrift-server start) and "
                    "leave them out of the profile")
            super().__post_init__()
            return
        if self.host is None:  # the session method ignores it; dbt-spark requires it
            self.host = "session"
        given_parameters = bool(self.server_side_parameters)
        super().__post_init__()
        if given_parameters:  # the session is built from them, as dbt-spark builds it: the metastore and warehouse too
            if self.metastore_uri is not None:
                self.server_side_parameters.setdefault(METASTORE_URIS, self.metastore_uri)
            if self.warehouse is not None:
                self.server_side_parameters.setdefault(WAREHOUSE_DIR, self.warehouse)

    @property
    def thrift(self) -> bool:
        """``method: thrift``: statements go as SQL text to ``ddl-log thrift-server`` (dbt-spark's PyHive client)."""
        return self.method == SparkConnectionMethod.THRIFT

    @property
    def own_session(self) -> bool:
        """No ``server_side_parameters`` of the user's: the DDL log starts the session, as ``ddl-log --home`` does
        (its metastore and warehouse under the home, or on ``metastore_uri``), so both see the same catalog."""
        return set(self.server_side_parameters) <= {ANSI}

    @property
    def type(self) -> str:
        return "spark_ddl_log"

    def settings(self) -> dict[str, Any]:
        """The DDL log settings given in the profile (None: left to the environment and the defaults)."""
        return {name: getattr(self, name) for name in HOME_SETTINGS}

    def _connection_keys(self) -> tuple[str, ...]:
        if self.thrift:
            return (*super()._connection_keys(), "user")
        return (*super()._connection_keys(), "ddl_log_home", "grace_seconds", "binlog")
