"""The Python API: :class:`AtomicDDL`, the statement engine (:class:`~ddl_log.engine.core.DDLEngine`) with one method
per statement, each a thin constructor of its typed statement (:mod:`ddl_log.engine.typed`) run on the engine's one
path, and :meth:`AtomicDDL.sql` for SQL scripts (:mod:`ddl_log.frontends.sql`). Every method returns a
:class:`~actions.results.StatementResult` (a :class:`~replace_table.plans.replace_run.ReplaceResult` for the
statements that build a table version); ``statement=`` is the text the binlog records (default: the statement's
canonical text)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, overload

from actions.results import StatementResult
from ddl_log.engine.alter import AlterTable
from ddl_log.engine.alter_ops import AlterOp
from ddl_log.engine.core import DDLEngine
from ddl_log.engine.create_statements import CreateOrReplaceTable, CreateTable, InsertOverwrite, TruncateTable
from ddl_log.engine.history_statements import DescribeHistory, HistoryResult, ShowTablesDropped
from ddl_log.engine.insert import InsertInto
from ddl_log.engine.kind_replace import CreateOrReplaceAnyKind
from ddl_log.engine.release_name import ReleaseResult, ReleaseTableName
from ddl_log.engine.schema import SchemaLike
from ddl_log.engine.schema_swap import SwapSchemas
from ddl_log.engine.tables import CreateDatabase, DropDatabase, DropTables, RenameTables, SwapTables
from ddl_log.engine.typed import Statement
from ddl_log.engine.version_statements import RestoreTable, UndropTable
from ddl_log.engine.views import (
    AlterView,
    AlterViewProperties,
    CreateFunction,
    CreateView,
    DropFunction,
    DropViews,
    RenameView,
)
from ddl_log.frontends.sql import SqlResult, run_sql
from ddl_log.frontends.sql.execute import read_statements
from ddl_log.replication.apply import Applier
from ddl_log.replication.bootstrap import Bootstrap, SyncReport
from ddl_log.replication.check import Check, CheckReport
from ddl_log.replication.errors import ReplicaConfigError
from ddl_log.replication.follow import Filters, configure
from ddl_log.replication.origin import origin_for
from ddl_log.replication.promote import PromoteReport, give_role, promote
from ddl_log.replication.readers import source_reader
from ddl_log.replication.replica_state import read_state
from ddl_log.replication.resync import Resync
from ddl_log.replication.source import open_source
from replace_table.plans.insert_into import InsertResult
from replace_table.plans.replace_run import ReplaceResult
from replace_table.plans.restore import VersionResult
from storage.catalogs.names import TableName


class AtomicDDL(DDLEngine):
    """Atomic, crash-safe DDL on a home: see :class:`~ddl_log.engine.core.DDLEngine` for opening it and its
    settings, and the README's "Python API" and "Guarantees" for each statement."""

    def __init__(self, spark: Any = None, home: str | os.PathLike[str] | None = None, **options: Any) -> None:
        super().__init__(spark, home, **options)
        give_role(self)  # a replica home refuses what it does not apply (ddl_log.replication.promote)

    def execute(self, statement: Statement) -> StatementResult:
        """Run a typed statement (as the SQL front end reads them): :meth:`run`."""
        return self.run(statement)

    def sql(self, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
        """Run a SQL script: every DDL statement this project makes atomic goes through the DDL log, anything else
        to ``spark.sql`` unchanged. A DDL form that cannot be made atomic is refused unless ``allow_non_atomic``."""
        return run_sql(self, text, allow_non_atomic=allow_non_atomic)

    def statements_of(self, text: str) -> list[Statement]:
        """The typed statements of a SQL text, names resolved now, none run (what a replica applies)."""
        return read_statements(self, text)

    @property
    def home_origin(self) -> str:
        """The origin id of this home's own events in a ``binlog --sql`` script (:func:`origin_for`)."""
        return origin_for(self.home.location)

    # ------------------------------------------------------------------ replication ("Replication" in the README)

    def replica_of(self, source: str, *, databases: Iterable[str] | None = None,
                   rewrite_db: Mapping[str, str] | None = None) -> Applier:
        """This home as a replica of the source home ``source`` (a directory, or a database home's URL: its catalog
        binlog): :class:`~ddl_log.replication.apply.Applier` (``apply_available()``, ``run(until_caught_up=True)``,
        ``position``). ``databases``: replicate only these (other events are skipped and recorded);
        ``rewrite_db``: {source database: replica database}. Set once; later calls may leave them out."""
        opened = open_source(source)
        if databases is not None or rewrite_db:
            configure(self.home.spark_directory(), self.home.location, self.binlog_events(), opened.origin,
                      Filters.of(databases, rewrite_db or {}))
        return Applier(self, opened, self.statements_of)

    def replica_bootstrap(self, source: str, *, databases: Iterable[str], rewrite_db: Mapping[str, str] | None = None,
                          source_metastore: str | None = None, source_catalog: object | None = None,
                          attempts: int = 5) -> SyncReport:
        """Make this home a replica of ``source`` from its current state: ``databases`` (renamed by ``rewrite_db``)
        copied as they are at one source position, then the applier goes on from it. ``source_metastore``: where
        the source's catalog is (``thrift://HOST:PORT``, or ``embedded`` for a stopped source's own Derby; default:
        this home's metastore, under other database names); ``source_catalog``: a catalog object instead."""
        opened = open_source(source)
        filters = Filters.of(databases, rewrite_db or {})
        reader, same = source_reader(self, opened, filters, metastore=source_metastore, catalog=source_catalog)
        try:
            return Bootstrap(self, opened, reader, filters, attempts=attempts, source_catalog=source_metastore,
                             same_catalog=same).run()
        finally:
            reader.close()

    def replica_check(self, source: str | None = None, *, catch_up: bool = True,
                      source_metastore: str | None = None, source_catalog: object | None = None) -> CheckReport:
        """Compare every replicated object with the source's (definitions and row checksums) at the replica's
        position, after catching up (``catch_up``); ``.differences`` empty when they agree."""
        applier = self.replica_of(self._source_of(source))
        reader, _ = source_reader(self, applier.source, applier.follow.filters,
                                  metastore=self._source_metastore(source_metastore), catalog=source_catalog)
        try:
            return Check(self, applier, reader).run(catch_up=catch_up)
        finally:
            reader.close()

    def replica_resync(self, table: str | TableName, *, source: str | None = None,
                       source_metastore: str | None = None, source_catalog: object | None = None,
                       attempts: int = 5) -> SyncReport:
        """Copy the replica's ``table`` again from the source, in one atomic replace, at a recorded source position
        (the applier then skips the events on it up to there)."""
        opened = open_source(self._source_of(source))
        state = read_state(self.home.spark_directory())
        reader, _ = source_reader(self, opened, Filters.of_state(state),
                                  metastore=self._source_metastore(source_metastore), catalog=source_catalog)
        try:
            return Resync(self, opened, reader, TableName.of(table), attempts=attempts).run()
        finally:
            reader.close()

    def replica_promote(self, *, catch_up: bool = False, source: str | None = None) -> PromoteReport:
        """Stop following the source (after applying what it has, with ``catch_up``) and become a source."""
        if catch_up:
            self.replica_of(self._source_of(source)).run(until_caught_up=True)
        return promote(self)

    def _source_of(self, source: str | None) -> str:
        found = source or read_state(self.home.spark_directory()).source
        if found is None:
            raise ReplicaConfigError(self.home.location, "it follows no source yet: name one")
        return found

    def _source_metastore(self, given: str | None) -> str | None:
        return given if given is not None else read_state(self.home.spark_directory()).source_catalog

    # ------------------------------------------------------------------ tables

    def create_or_replace_table(self, name: str | TableName, *, schema: SchemaLike | None = None,
                                like: str | TableName | None = None, as_select: str | None = None, df: Any = None,
                                using: str | None = None, partitioned_by: Iterable[str] = (),
                                properties: dict[str, str] | None = None, comment: str | None = None,
                                statement: str | None = None, must_exist: bool = False) -> ReplaceResult:
        """CREATE OR REPLACE TABLE (``must_exist``: REPLACE TABLE): the old table stays readable and intact until
        the new one is complete and binlogged. ``using`` None: the session's default data source, as in Spark."""
        return self._replace(CreateOrReplaceTable.of(
            name, schema=schema, like=like, as_select=as_select, df=df, using=using, partitioned_by=partitioned_by,
            properties=properties, comment=comment, must_exist=must_exist, text=statement))

    def replace_as_table(self, name: str | TableName, *, statement: str | None = None,
                         **table: Any) -> StatementResult:
        """CREATE OR REPLACE TABLE (the arguments of :meth:`create_or_replace_table`) of a name that may hold a view:
        the view becomes the table in one atomic statement, the name never missing (``ANY KIND`` in SQL)."""
        return self.run(CreateOrReplaceAnyKind.as_table(name, text=statement, **table))

    def replace_as_view(self, name: str | TableName, *, as_select: str, statement: str | None = None,
                        **view: Any) -> StatementResult:
        """CREATE OR REPLACE VIEW (the arguments of :meth:`create_view`) of a name that may hold a table: the table
        becomes the view in one atomic statement, the name never missing; its files stay for the grace period."""
        return self.run(CreateOrReplaceAnyKind.as_view(name, as_select=as_select, text=statement, **view))

    def create_table(self, name: str | TableName, *, if_not_exists: bool = False, schema: SchemaLike | None = None,
                     like: str | TableName | None = None, as_select: str | None = None, df: Any = None,
                     using: str | None = None, partitioned_by: Iterable[str] = (),
                     properties: dict[str, str] | None = None, comment: str | None = None,
                     statement: str | None = None) -> StatementResult:
        """CREATE TABLE [IF NOT EXISTS]: built under a TMP name and renamed in; a failure or crash leaves no table,
        no files and no binlog event (``done`` False when IF NOT EXISTS found the name taken)."""
        return self.run(CreateTable.of(
            name, if_not_exists=if_not_exists, schema=schema, like=like, as_select=as_select, df=df, using=using,
            partitioned_by=partitioned_by, properties=properties, comment=comment, text=statement))

    @overload
    def truncate_table(self, name: str | TableName, *, statement: str | None = None) -> ReplaceResult: ...

    @overload
    def truncate_table(self, name: str | TableName, *, partition: Mapping[str, str],
                       statement: str | None = None) -> StatementResult: ...

    def truncate_table(self, name: str | TableName, *, partition: Mapping[str, str] | None = None,
                       statement: str | None = None) -> StatementResult:
        """TRUNCATE TABLE [PARTITION (...)]: an empty copy swapped in (``partition``: some or all partition columns
        and their values as strings; only the partitions it matches emptied, as Spark's); a failure or crash before
        the commit keeps the old rows. A spec of some columns that matches nothing does nothing, as Spark's."""
        if partition is None:
            return self._replace(TruncateTable.of(name, text=statement))
        return self.run(TruncateTable.of(name, partition=partition, text=statement))

    def insert_overwrite(self, name: str | TableName, *, as_select: str | None = None, df: Any = None,
                         statement: str | None = None, partition: Mapping[str, str | None] | None = None,
                         overwrite_mode: str | None = None, if_not_exists: bool = False,
                         columns: Sequence[str] | None = None, by_name: bool = False) -> StatementResult:
        """INSERT OVERWRITE TABLE t [PARTITION (...)] [IF NOT EXISTS] [(columns) | BY NAME] SELECT ...: see
        :class:`~ddl_log.engine.create_statements.InsertOverwrite`."""
        return self.run(InsertOverwrite.of(name, as_select=as_select, df=df, partition=partition,
                                           overwrite_mode=overwrite_mode, if_not_exists=if_not_exists,
                                           columns=columns, by_name=by_name, text=statement))

    def insert_into(self, name: str | TableName, *, as_select: str | None = None, df: Any = None,
                    partition: Mapping[str, str | None] | None = None, statement: str | None = None) -> InsertResult:
        """INSERT INTO t [PARTITION (...)] SELECT ...: all the rows or none, whatever instant the process dies; see
        :mod:`ddl_log.engine.insert` (``partition`` as for :meth:`insert_overwrite`)."""
        result = self.run(InsertInto.of(name, as_select=as_select, df=df, partition=partition, text=statement))
        assert isinstance(result, InsertResult), result
        return result

    def rename_tables(self, pairs: Iterable[tuple[str | TableName, str | TableName]], *,
                      statement: str | None = None) -> StatementResult:
        """RENAME TABLE a TO b, c TO d: all or none; on failure or crash the renames are undone in reverse order."""
        return self.run(RenameTables.of(pairs, text=statement))

    def swap_tables(self, first: str | TableName, second: str | TableName, *,
                    statement: str | None = None) -> StatementResult:
        """ALTER TABLE first SWAP WITH second: the two tables exchange names, all or none."""
        return self.run(SwapTables.of(first, second, text=statement))

    def swap_schemas(self, first: str, second: str, *, statement: str | None = None) -> StatementResult:
        """ALTER SCHEMA first SWAP WITH second: the two databases exchange every table and view, all or none, by
        their metastore records (no file moves)."""
        return self.run(SwapSchemas.of(first, second, text=statement))

    def drop_tables(self, names: Iterable[str | TableName], *, if_exists: bool = False, purge: bool = False,
                    statement: str | None = None) -> StatementResult:
        """DROP TABLE a, b [PURGE]: all names checked first (nothing dropped on a missing one); then rolls forward."""
        return self.run(DropTables.of(names, if_exists=if_exists, purge=purge, text=statement))

    def alter_table(self, name: str | TableName, op: AlterOp, *, statement: str | None = None) -> StatementResult:
        """ALTER TABLE (:mod:`ddl_log.engine.alter_ops`: properties, comments, columns, partitions)."""
        return self.run(AlterTable.of(name, op, text=statement))

    # ------------------------------------------------------------------ table versions

    def restore_table(self, name: str | TableName, *, version: int | None = None,
                      timestamp: str | float | None = None, statement: str | None = None) -> VersionResult:
        """RESTORE TABLE t TO VERSION AS OF ``version`` | TO TIMESTAMP AS OF ``timestamp``: a kept version is the
        table again, in one catalog call; the replaced one is kept in turn."""
        result = self.run(RestoreTable.of(name, version=version, timestamp=timestamp, text=statement))
        assert isinstance(result, VersionResult), result
        return result

    def undrop_table(self, name: str | TableName, *, statement: str | None = None) -> VersionResult:
        """UNDROP TABLE t: the newest dropped version of ``t`` back (refused while the name is taken)."""
        result = self.run(UndropTable.of(name, text=statement))
        assert isinstance(result, VersionResult), result
        return result

    def describe_history(self, name: str | TableName, *, statement: str | None = None) -> HistoryResult:
        """DESCRIBE HISTORY t: every version of ``t`` (``.rows``), the current one first, then the kept ones, newest
        first."""
        result = self.run(DescribeHistory.of(name, text=statement))
        assert isinstance(result, HistoryResult), result
        return result

    def show_tables_dropped(self, database: str | None = None, *, statement: str | None = None) -> HistoryResult:
        """SHOW TABLES DROPPED [IN db]: the dropped tables UNDROP can bring back (``.rows``)."""
        result = self.run(ShowTablesDropped.of(database, text=statement))
        assert isinstance(result, HistoryResult), result
        return result

    def release_table_name(self, name: str | TableName, *, statement: str | None = None) -> ReleaseResult:
        """RELEASE TABLE NAME t: delete now what this home keeps at ``t``'s default directory (a replaced or dropped
        version waiting for its grace period), so that plain Spark can make a managed table ``t`` (README "dbt",
        "Going back to plain dbt-spark")."""
        result = self.run(ReleaseTableName.of(name, text=statement))
        assert isinstance(result, ReleaseResult), result
        return result

    # ------------------------------------------------------------------ databases

    def create_database(self, name: str, *, if_not_exists: bool = False, comment: str | None = None,
                        properties: dict[str, str] | None = None, statement: str | None = None) -> StatementResult:
        return self.run(CreateDatabase.of(name, if_not_exists=if_not_exists, comment=comment, properties=properties,
                                          text=statement))

    def drop_database(self, name: str, *, if_exists: bool = False, cascade: bool = False,
                      statement: str | None = None) -> StatementResult:
        return self.run(DropDatabase.of(name, if_exists=if_exists, cascade=cascade, text=statement))

    # ------------------------------------------------------------------ views and functions

    def create_view(self, name: str | TableName, *, as_select: str, or_replace: bool = False,
                    comment: str | None = None, columns: Iterable[str] = (), if_not_exists: bool = False,
                    properties: dict[str, str] | None = None, statement: str | None = None) -> StatementResult:
        return self.run(CreateView.of(name, as_select=as_select, or_replace=or_replace, comment=comment,
                                      columns=columns, if_not_exists=if_not_exists, properties=properties,
                                      text=statement))

    def alter_view(self, name: str | TableName, *, as_select: str, statement: str | None = None) -> StatementResult:
        return self.run(AlterView.of(name, as_select=as_select, text=statement))

    def alter_view_properties(self, name: str | TableName, *, set: dict[str, str] | None = None,
                              unset: Iterable[str] = (), if_exists: bool = False,
                              statement: str | None = None) -> StatementResult:
        """ALTER VIEW ... SET TBLPROPERTIES (``set``) or UNSET TBLPROPERTIES (``unset``): one metastore call."""
        return self.run(AlterViewProperties.of(name, set=set, unset=unset, if_exists=if_exists, text=statement))

    def rename_view(self, old: str | TableName, new: str | TableName, *,
                    statement: str | None = None) -> StatementResult:
        return self.run(RenameView.of(old, new, text=statement))

    def drop_views(self, names: Iterable[str | TableName], *, if_exists: bool = False,
                   statement: str | None = None) -> StatementResult:
        return self.run(DropViews.of(names, if_exists=if_exists, text=statement))

    def create_function(self, name: str | TableName, *, class_name: str, resources: Iterable[tuple[str, str]] = (),
                        or_replace: bool = False, if_not_exists: bool = False,
                        statement: str | None = None) -> StatementResult:
        return self.run(CreateFunction.of(name, class_name=class_name, resources=resources, or_replace=or_replace,
                                          if_not_exists=if_not_exists, text=statement))

    def create_sql_function(self, name: str | TableName, *, params: str, returns: str, body: str,
                            or_replace: bool = False, if_not_exists: bool = False,
                            statement: str | None = None) -> StatementResult:
        return self.run(CreateFunction.sql(name, params=params, returns=returns, body=body, or_replace=or_replace,
                                           if_not_exists=if_not_exists, text=statement))

    def drop_function(self, name: str | TableName, *, if_exists: bool = False,
                      statement: str | None = None) -> StatementResult:
        return self.run(DropFunction.of(name, if_exists=if_exists, text=statement))

    def _replace(self, statement: Statement) -> ReplaceResult:
        result = self.run(statement)
        assert isinstance(result, ReplaceResult), result
        return result

    def __enter__(self) -> AtomicDDL:
        return self
