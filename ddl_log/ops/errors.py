"""The errors of the production setup: a server (which one, where, why, and the tail of its log), a URL."""

from __future__ import annotations

from pathlib import Path

from storage.errors import DDLLogError


class ServiceError(DDLLogError):
    """A server (the PostgreSQL cluster, the metastore schema, the metastore service) could not be created, started,
    checked or stopped. The message names the server and where it lives and ends with its log's tail, because the
    reason is nearly always in that log, not in the exit status."""

    server = "server"
    log_name = "log"

    def __init__(self, where: str, reason: str, log_tail: str = "") -> None:
        tail = f"\n--- {self.log_name} tail ---\n{log_tail}" if log_tail else ""
        super().__init__(f"{self.server} {where}: {reason}{tail}")
        self.where = where
        self.reason = reason


class PostgresServerError(ServiceError):
    """The local PostgreSQL cluster could not be created, started or stopped."""

    server = "PostgreSQL cluster in"
    log_name = "server log"

    def __init__(self, root: Path, reason: str, log_tail: str = "") -> None:
        super().__init__(str(root), reason, log_tail)
        self.root = root


class MetastoreServiceError(ServiceError):
    """The metastore service could not start, or died."""

    server = "metastore service in"
    log_name = "service log"

    def __init__(self, root: Path, reason: str, log_tail: str = "") -> None:
        super().__init__(str(root), reason, log_tail)
        self.root = root


class SparkClusterError(ServiceError):
    """The Spark standalone cluster (its master or a worker) could not start, or died."""

    server = "Spark cluster in"
    log_name = "log"

    def __init__(self, root: Path, reason: str, log_tail: str = "") -> None:
        super().__init__(str(root), reason, log_tail)
        self.root = root


class MetastoreSchemaError(ServiceError):
    """The metastore schema could not be checked or created."""

    server = "metastore schema in"
    log_name = "schema tool log"

    def __init__(self, database: str, reason: str, log_tail: str = "") -> None:
        super().__init__(database, reason, log_tail)
        self.database = database


class PostgresUrlError(DDLLogError):
    """A PostgreSQL URL this project cannot turn into a JDBC one (or back). ``url`` comes with its password already
    hidden (``hide_password``): an error message must never carry one."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"PostgreSQL URL {url!r}: {reason}")
        self.url = url


class UnusableHostError(DDLLogError):
    """The address a server should listen on names no address of this machine (a typo, an unknown name): give
    another."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"cannot listen on {host}: {reason}")
        self.host = host


class DriverServerError(ServiceError):
    """A server hosted in a PySpark driver (the Thrift server, the Connect server) could not start (a taken port, a
    home another process holds, a JVM that failed), or could not be stopped."""

    server = "server in"
    log_name = "server log"

    def __init__(self, root: Path | str, reason: str, log_tail: str = "") -> None:
        super().__init__(str(root), reason, log_tail)
        self.root = root


class ThriftServerError(DriverServerError):
    """The Thrift server's driver could not start or stop."""

    server = "Thrift server in"


class ConnectServerError(DriverServerError):
    """The Spark Connect server's driver could not start or stop."""

    server = "Connect server in"
