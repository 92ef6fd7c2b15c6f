"""The SQL forms of table versions (this project's own: Spark does not run them): DESCRIBE HISTORY, RESTORE TABLE,
UNDROP TABLE, SHOW TABLES DROPPED, RELEASE TABLE NAME (:mod:`ddl_log.engine.release_name`)."""

from __future__ import annotations

from ddl_log.engine.release_name import ReleaseTableName
from ddl_log.engine.version_statements import DescribeHistory, RestoreTable, ShowTablesDropped, UndropTable
from ddl_log.frontends.sql.clauses import ClauseReader
from ddl_log.frontends.sql.plan import PlannedStatement, draft


class VersionRoutes(ClauseReader):
    """The routes of the version statements (the router's base)."""

    def versions(self, head: str) -> PlannedStatement:
        c = self.c
        if head == "SHOW":
            c.i = 3
            database = self.database_name() if c.take("IN") or c.take("FROM") else None
            c.expect_end()
            return c.ddl("SHOW TABLES DROPPED", draft(ShowTablesDropped.of, database), spark_sql=False)
        c.i = 3 if head == "RELEASE" else 2
        name = c.name("a table name").as_kind("relation")
        if head == "RELEASE":
            c.expect_end()
            return c.ddl("RELEASE TABLE NAME", draft(ReleaseTableName.of, name), spark_sql=False)
        if head == "UNDROP":
            c.expect_end()
            return c.ddl("UNDROP TABLE", draft(UndropTable.of, name), spark_sql=False)
        if head != "RESTORE":
            c.expect_end()
            return c.ddl("DESCRIBE HISTORY", draft(DescribeHistory.of, name), spark_sql=False)
        c.take("TO")
        if c.take("VERSION", "AS", "OF"):
            token = c.token()
            number = token.text if token is not None else ""
            if not number.isdigit():
                raise c.error("expected a version number")
            c.i += 1
            c.expect_end()
            return c.ddl("RESTORE TABLE", draft(RestoreTable.of, name, version=int(number)), spark_sql=False)
        c.expect("TIMESTAMP", "AS", "OF")
        timestamp = c.string("a timestamp literal")
        c.expect_end()
        return c.ddl("RESTORE TABLE", draft(RestoreTable.of, name, timestamp=timestamp), spark_sql=False)
