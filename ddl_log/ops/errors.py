"""The one error of the production setup's servers: which server, where, why, and the tail of its log."""

from __future__ import annotations

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
