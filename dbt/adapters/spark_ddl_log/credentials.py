"""profiles.yml of ``type: spark_ddl_log``: dbt-spark's credentials (``method: session``) plus the DDL log's own
settings (:class:`ddl_log.settings.Settings`). Only the session method runs dbt's statements in this Python process,
where :class:`ddl_log.AtomicDDL` can log them before Spark acts: a Thrift or HTTP server runs them where the log
cannot see or undo them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dbt.adapters.spark.connections import SparkConnectionMethod, SparkCredentials

from dbt.adapters.spark_ddl_log.errors import AdapterSettingError

METASTORE_URIS = "spark.hadoop.hive.metastore.uris"
WAREHOUSE_DIR = "spark.sql.warehouse.dir"
ANSI = "spark.sql.ansi.enabled"
"""What dbt-spark sets on every session it builds (off)."""


@dataclass
class SparkDDLLogCredentials(SparkCredentials):
    """``ddl_log_home``: the DDL log's home (a directory or a ``postgresql://...?home=ID`` URL); the rest are the
    settings of the same names (None: the ``DDL_LOG_<NAME>`` environment variable, then the default)."""

    ddl_log_home: str = "ddl_home"
    grace_seconds: float | None = None
    lock_wait_seconds: float | None = None
    metastore_uri: str | None = None
    warehouse: str | None = None
    binlog: bool | None = None

    def __post_init__(self) -> None:
        if self.method is not None and self.method != SparkConnectionMethod.SESSION:
            raise AdapterSettingError(
                f"type spark_ddl_log runs only with method: session (got {self.method}): with a Thrift or HTTP "
                "server the statements run in the server, out of reach of the DDL log; use type: spark there")
        if self.host is None:  # the session method ignores it; dbt-spark requires it
            self.host = "session"
        given = bool(self.server_side_parameters)
        super().__post_init__()
        if given:  # the session is built from them, as dbt-spark builds it: the metastore and warehouse too
            if self.metastore_uri is not None:
                self.server_side_parameters.setdefault(METASTORE_URIS, self.metastore_uri)
            if self.warehouse is not None:
                self.server_side_parameters.setdefault(WAREHOUSE_DIR, self.warehouse)

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
        return {"grace_seconds": self.grace_seconds, "lock_wait_seconds": self.lock_wait_seconds,
                "binlog": self.binlog, "metastore_uri": self.metastore_uri, "warehouse": self.warehouse}

    def _connection_keys(self) -> tuple[str, ...]:
        return (*super()._connection_keys(), "ddl_log_home", "grace_seconds", "binlog")
